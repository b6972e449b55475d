"""LaTeX witness of the amplification pack: every statement exports a fragment with its reference,
its provenance (as printed / reconstructed from a named passage) and every part labelled, using only
LaTeX/amsmath/amssymb commands; every formula in it without a listed unparseable construct parses
back, from the file's text, to the expression it was printed from (``verify.latex_roundtrip``: the
procedure of ``verify/masking/test_latex.py``, SymPy's ANTLR LaTeX parser, ``parsed - original``
exactly 0).  The insides of ``Tex`` atoms (the lost displays' notation) are never parsed."""
from __future__ import annotations

import re

import pytest

from theory.amplification.paper import PAPER
from theory.core.latex import export, fragment, fragment_name
from verify.latex_roundtrip import (
    ALLOWED_COMMANDS,
    balanced,
    formulas_in_fragment,
    ids,
    paper_formulas,
    round_trip,
    round_trip_cases,
    unbreak,
)
from verify.marks import per_statement

_PARSEABLE, _ = round_trip_cases(PAPER)
#: relations the shared fragment reader (verify.latex_roundtrip._RELATION) does not read: strict ones
STRICT = {">", "<"}
#: formulas SymPy's parser cannot read back although they carry no listed construct (limits of the
#: parser, not findings: strict xfails in tests/amplification/test_latex_limits.py)
LIMITS = {
    ("prose.bayes", ("A1", "rhs")): "SymPy prints log(x)^2 as \\log{\\left(x \\right)}^{2}, which the parser reads as log(x^2)",
    ("lemma.4.1.p", ("tail", "rhs")): "a Piecewise: the parser reads no cases environment",
    ("lemma.4.1.p", ("density", "rhs")): "the Beta function, printed \\operatorname{B}(a, b): the parser reads no "
                                        "two-argument function call",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("latex")
    export(PAPER, out)
    return out


def _is_step(key) -> bool:
    return isinstance(key[0], tuple) and key[0][0] == "step"


@pytest.mark.witness("latex")
@pytest.mark.parametrize("sid", per_statement(ids(PAPER)))
def test_fragment_round_trip(sid, exported, record):
    st = PAPER.statement(sid)
    text = (exported / fragment_name(sid)).read_text()
    assert text == fragment(PAPER, sid)
    assert balanced(text), "unbalanced braces in the exported fragment"
    flat = unbreak(text)
    assert PAPER.qualify(st.id).replace("_", r"\_") in flat and st.ref.split(" ")[0] in flat
    if not st.provenance.printed:
        assert "reconstructed from" in flat and st.provenance.passage.split("'")[0][:20].replace("_", r"\_") in flat
    for eq in st.equations:
        assert f"\\label{{amplification:{sid}:{eq.label}}}" in flat
    texts, originals = formulas_in_fragment(text), paper_formulas(PAPER, sid)
    strict = {(eq.label, side) for eq in st.equations if eq.relation in STRICT for side in ("lhs", "rhs")}
    assert set(texts) == set(originals) - strict
    for label, _ in strict:                                   # typeset all the same, with its relation
        eq = next(e for e in st.equations if e.label == label)
        assert f"&{eq.relation} " in text.split(f"\\label{{amplification:{sid}:{label}}}")[0].splitlines()[-1]
    used = set(re.findall(r"\\[a-zA-Z]+", text))
    assert used <= ALLOWED_COMMANDS, f"commands outside LaTeX/amsmath/amssymb: {sorted(used - ALLOWED_COMMANDS)}"
    how = {key: round_trip(texts[key], originals[key]) for s, key in _PARSEABLE
           if s == sid and not _is_step(key) and key not in strict and (sid, key) not in LIMITS}
    record(detail=f"{len(st.equations)} equations; {len(how)} formulas parsed back equal")
