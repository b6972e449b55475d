"""Every registered pack's errata agree with its witnesses: the committed errata.md is the
rendering of the data, every strict xfail cites an existing entry that lists it, every test an
entry lists exists, is a strict xfail citing that entry and witnesses one of its statements;
and ``numerics.core.errata.load`` rejects malformed data.  Every strict xfail of the masking pack
names the failure it records (``raises=``), so a test that breaks for another reason is not
taken for the finding.  Each entry's reproducer runs: its ``python -c`` commands in-process (the
fast form: the same code, without a fresh interpreter's imports), and what they print is
compared with the numbers the entry's ``reproduce_note`` quotes in backticks; its ``pytest``
commands in a subprocess (slow tier), which must pass with the entry's xfails reported.

The xfail marks are read by collecting each pack's witness folder with pytest in-process
(``--collect-only``), so that marks set through module constants, ``pytestmark``, classes or
``pytest.param`` are seen exactly as pytest applies them.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from numerics.core import errata, nodeids, registry

ROOT = Path(__file__).resolve().parents[1]
PACKS = registry.select(None)


@dataclasses.dataclass(frozen=True)
class Collected:
    """What a test is, as pytest collected it: its strict-xfail reason (None: not a strict
    xfail) and the statements it is marked with."""

    nodeid: str
    strict_reason: str | None
    statements: frozenset[str]
    raises: str | None = None
    #: the test file (a node id is relative to the repository only for a pack inside it)
    path: Path | None = None
    #: every name an erratum may list it by (``numerics.core.nodeids.forms``): its node id and, for a
    #: distribution's test, the path relative to the distribution's root; empty: the node id alone
    names: frozenset[str] = frozenset()


class _Marks:
    """A pytest plugin that records every collected item's xfail and statement marks."""

    def __init__(self):
        self.items: list[Collected] = []
        self.errors: list[str] = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(report.nodeid)

    def pytest_collection_finish(self, session):
        for item in session.items:
            strict_default = item.config.getini("xfail_strict")
            reason = raises = None
            for mark in item.iter_markers("xfail"):
                if mark.kwargs.get("strict", strict_default):
                    reason = str(mark.kwargs.get("reason", ""))
                    raises = getattr(mark.kwargs.get("raises"), "__name__", None)
            statements = frozenset(s for m in item.iter_markers("statement") for s in m.args)
            path = Path(item.path).resolve()
            rest = item.nodeid.partition("::")[1] + item.nodeid.partition("::")[2]
            self.items.append(Collected(nodeids.runnable(path, rest), reason, statements, raises, path,
                                        frozenset(nodeids.forms(path, rest))))


@pytest.fixture(scope="module")
def collected() -> dict[str, list[Collected]]:
    """Every pack's witnesses as collected by pytest (all tiers), node ids as a user runs them
    (``numerics.core.nodeids``: relative to the repository for its packs, importable for a
    distribution's): ``{pack id: [Collected]}``."""
    marks = _Marks()
    dirs = {p.id: Path(p.verify_dir).resolve() for p in PACKS}
    code = pytest.main(["--collect-only", "-p", "no:cacheprovider", "-p", "no:terminal", "-o", "addopts=",
                        "--rootdir", str(ROOT), *map(str, dirs.values())], plugins=[marks])
    assert code == 0 and not marks.errors, f"collection failed (exit {code}): {marks.errors}"
    out: dict[str, list[Collected]] = {pid: [] for pid in dirs}
    for c in marks.items:
        owner = next(pid for pid, d in dirs.items() if d in c.path.parents)
        out[owner].append(c)
    return out


def _matches(test: str, c: Collected) -> bool:
    """A listed test stands for the node id itself and, without ``[params]``, for all its
    parametrizations; a distribution's test may be listed by any of its names (``Collected.names``:
    importable, ``module::test``, or relative to the distribution's root)."""
    names = c.names or {c.nodeid}
    return test in names or ("[" not in test and test in {n.split("[")[0] for n in names})


def xfail_problems(pack_id: str, items: list[Collected], entries: dict[str, errata.Erratum]) -> list[str]:
    """What is wrong with the strict xfails of one pack: a reason that cites no entry, cites
    one that does not exist (``entries`` by qualified id, every pack's), or cites one that
    does not list the test."""
    problems = []
    for c in items:
        if c.strict_reason is None:
            continue
        cited = [f"{m['pack']}:{m['id']}" for m in errata.CITATION.finditer(c.strict_reason)]
        if not cited:
            problems.append(f"{c.nodeid}: its reason cites no erratum as ({pack_id}:E<n>): {c.strict_reason!r}")
        for q in cited:
            if q not in entries:
                problems.append(f"{c.nodeid}: cites {q}, which does not exist")
            elif not any(_matches(t, c) for t in entries[q].tests):
                problems.append(f"{c.nodeid}: cites {q}, whose tests do not list it")
    return problems


def entry_problems(entries: list[errata.Erratum], items: list[Collected]) -> list[str]:
    """What is wrong with the tests the entries list: a test that does not exist, is not a
    strict xfail, does not cite its entry, or witnesses none of the entry's statements."""
    problems = []
    for e in entries:
        for t in e.tests:
            found = [c for c in items if _matches(t, c)]
            if not found:
                problems.append(f"{e.qualified}: test {t} does not exist")
            for c in found:
                if c.strict_reason is None:
                    problems.append(f"{e.qualified}: {c.nodeid} is not xfail(strict=True)")
                elif e.citation not in c.strict_reason:
                    problems.append(f"{e.qualified}: the reason of {c.nodeid} does not cite {e.citation}")
                if not c.statements & set(e.statements):
                    problems.append(f"{e.qualified}: {c.nodeid} witnesses {sorted(c.statements)}, none of "
                                    f"the entry's statements {list(e.statements)}")
    return problems


def raises_problems(items: list[Collected]) -> list[str]:
    """Strict xfails that do not name the failure they record (``raises=``): any exception at all,
    a typo or a NaN in the path only they run, would then pass for the finding."""
    return [f"{c.nodeid}: xfail(strict=True) without raises=" for c in items
            if c.strict_reason is not None and c.raises is None]


_NUMBER = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"


def python_commands(entry: errata.Erratum) -> list[str]:
    """The code of the entry's ``python -c '...'`` reproducer lines."""
    argvs = [shlex.split(line) for line in entry.reproduce]
    return [a[2] for a in argvs if a[:2] == ["python", "-c"] and len(a) == 3]


def pytest_commands(entry: errata.Erratum) -> list[list[str]]:
    """The entry's ``pytest ...`` reproducer lines, as argument lists."""
    return [a for a in (shlex.split(line) for line in entry.reproduce) if a[:1] == ["pytest"]]


def claims(entry: errata.Erratum) -> list[str]:
    """What the entry's ``reproduce_note`` says the commands print: its backticked spans."""
    return re.findall(r"`([^`]+)`", entry.reproduce_note or "")


def claim_problems(quoted: list[str], output: str) -> list[str]:
    """Quoted spans the output does not bear out.  ``name=1.234`` needs ``name=`` followed by a
    number that rounds to 1.234 at the quoted decimals; a bare number, any printed number that
    does; other text must appear verbatim."""
    problems = []
    for q in quoted:
        m = re.fullmatch(rf"(.*?)({_NUMBER})", q)
        if m is None or (m.group(1) and not m.group(1).endswith("=")):
            if q not in output:
                problems.append(f"`{q}` is not in the output")
            continue
        prefix, num = m.groups()
        decimals = len(num.split(".")[1]) if "." in num else 0
        printed = [float(x) for x in re.findall(re.escape(prefix) + f"({_NUMBER})", output)]
        if not any(round(x, decimals) == float(num) for x in printed):
            problems.append(f"`{q}`: printed {printed[:6]}")
    return problems


def run_python(code: str) -> str:
    """Run a reproducer's ``python -c`` code in this process and return what it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<reproduce>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def _all_entries() -> dict[str, errata.Erratum]:
    return {e.qualified: e for p in PACKS for e in errata.load(p)}


# ---------------------------------------------------------------------------------------
# The packs' data
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_committed_markdown_is_the_rendering(pack):
    md = errata.markdown_path(pack)
    if not Path(pack.errata).exists():
        assert not md.exists(), f"{md} exists without its data {pack.errata}"
        return
    rendered = errata.render_markdown(pack, errata.load(pack))
    assert md.exists() and md.read_text(encoding="utf-8") == rendered, (
        f"{md} is stale: run `{errata.COMMAND}` and commit the result")
    assert errata.COMMAND in rendered.split("\n\n")[1]  # the header says how it is made


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_every_strict_xfail_cites_an_entry_that_lists_it(pack, collected):
    assert xfail_problems(pack.id, collected[pack.id], _all_entries()) == []


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_every_listed_test_is_a_strict_xfail_citing_its_entry(pack, collected):
    assert entry_problems(errata.load(pack), collected[pack.id]) == []


def test_the_checks_catch_planted_disagreements(collected):
    """A wrong test id, a test of another entry, an uncited xfail: each is reported."""
    pack = next(p for p in PACKS if any(e.tests for e in errata.load(p)))
    entries = errata.load(pack)
    first = next(e for e in entries if e.tests)
    items = collected[pack.id]
    target = next(c for c in items if _matches(first.tests[0], c))

    gone = dataclasses.replace(first, tests=first.tests + (f"{first.tests[0].split('::')[0]}::test_no_such",))
    assert any("does not exist" in p for p in entry_problems([gone], items))
    other = next((e for e in entries if e.id != first.id), None)
    if other is not None:
        stolen = dataclasses.replace(other, tests=(target.nodeid,))
        assert any(f"does not cite {other.citation}" in p for p in entry_problems([stolen], items))
    uncited = dataclasses.replace(target, strict_reason="printed form fails (notes/errata.md, E4)")
    assert any("cites no erratum" in p for p in xfail_problems(pack.id, [uncited], _all_entries()))
    dangling = dataclasses.replace(target, strict_reason=f"fails ({pack.id}:E999)")
    assert any("does not exist" in p for p in xfail_problems(pack.id, [dangling], _all_entries()))
    unlisted = {first.qualified: dataclasses.replace(first, tests=())}
    cites_first = dataclasses.replace(target, strict_reason=f"fails {first.citation}")
    assert any("do not list it" in p for p in xfail_problems(pack.id, [cites_first], unlisted))


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_every_strict_xfail_names_the_failure_it_records(pack, collected):
    """Judges the pack's strict xfails; a pack without findings has none, and the test says so
    (a skip naming the pack) instead of passing on nothing."""
    strict = [c for c in collected[pack.id] if c.strict_reason is not None]
    if not strict:
        pytest.skip(f"{pack.id} has no strict xfail (no recorded finding): nothing to judge")
    assert raises_problems(strict) == []


def test_raises_problems_catches_a_strict_xfail_without_raises():
    """The check itself, on planted items: a strict xfail without ``raises=`` is reported, one
    with it and a test that is no strict xfail are not."""
    bare = Collected("verify/x/test_a.py::test_b", "fails (x:E1)", frozenset({"s"}))
    named = dataclasses.replace(bare, nodeid="verify/x/test_a.py::test_c", raises="AssertionError")
    plain = Collected("verify/x/test_a.py::test_d", None, frozenset({"s"}))
    assert raises_problems([bare, named, plain]) == [f"{bare.nodeid}: xfail(strict=True) without raises="]


def test_a_distributions_test_is_listed_by_its_import_name_or_its_path_from_the_distribution():
    """An erratum of a distribution lists its tests as ``pkg.verify.test_x::test`` (what ``pytest
    --pyargs`` runs from anywhere) or ``pkg/verify/test_x.py::test`` (from the distribution's root);
    a bare ``test_x.py::test`` runs from neither and is no name of it."""
    names = frozenset({"maskverify_w.verify.test_s3_erf::test_printed[1]",
                       "maskverify_w/verify/test_s3_erf.py::test_printed[1]"})
    c = Collected("maskverify_w.verify.test_s3_erf::test_printed[1]", "fails (w:E1)", frozenset({"s"}),
                  "AssertionError", None, names)
    for listed in ("maskverify_w.verify.test_s3_erf::test_printed",
                   "maskverify_w/verify/test_s3_erf.py::test_printed", "maskverify_w.verify.test_s3_erf::test_printed[1]"):
        assert _matches(listed, c), listed
    assert not _matches("test_s3_erf.py::test_printed", c)


def _with_python(pack) -> list:
    return [e for e in errata.load(pack) if python_commands(e)]


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_python_reproducers_print_the_entries_numbers(pack):
    """Each entry's ``python -c`` commands, run in-process, print what its reproduce_note quotes.
    Entries with only ``pytest`` reproducers are the suite's own tests (the slow test below runs
    them as commands); ``maskverify figures`` reproducers (masking:E6) write figures and take
    minutes, and are not run."""
    if not errata.load(pack):
        pytest.skip(f"{pack.id} has no recorded finding: no reproducer to run")
    entries = _with_python(pack)
    if not entries:
        pytest.skip(f"{pack.id}: no python -c reproducers (only pytest commands, run in the slow tier)")
    for e in entries:
        quoted = claims(e)
        assert quoted, f"{e.qualified}: its reproduce_note quotes nothing the python commands print"
        output = "".join(run_python(code) for code in python_commands(e))
        assert claim_problems(quoted, output) == [], f"{e.qualified}: {output}"


def test_claims_catch_a_wrong_number():
    output = "Theorem42(E=0.43351817420361555, bound=0.4060058497098381) tensor([18.]) outcome='false'"
    assert claim_problems(["E=0.433518", "bound=0.406006", "18", "outcome='false'"], output) == []
    assert len(claim_problems(["E=0.433519", "bound=0.43352", "17", "outcome='true'"], output)) == 4


@pytest.mark.slow
@pytest.mark.parametrize("entry", [pytest.param(e, id=e.qualified) for p in PACKS for e in errata.load(p)
                                   if pytest_commands(e)])
def test_pytest_reproducers_pass_reporting_the_entrys_xfails(entry):
    """Each ``pytest`` reproducer line, run as a command, passes (exit 0 or 5: nothing selected is
    not allowed) and reports xfails citing the entry, and no XPASS."""
    pack = registry.get(entry.pack)
    for argv in pytest_commands(entry):  # from where the pack's commands run (errata.runs_from)
        run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *argv[1:]],
                             cwd=errata.home(pack), capture_output=True, text=True, timeout=1800)
        out = run.stdout + run.stderr
        assert run.returncode == 0, f"{' '.join(argv)}: exit {run.returncode}\n{out[-3000:]}"
        assert "XPASS" not in out
        if entry.tests and "-rxX" in argv and "XFAIL" in out:
            assert entry.citation in out, f"{' '.join(argv)}: no xfail cites {entry.citation}"


# ---------------------------------------------------------------------------------------
# load() on malformed files
# ---------------------------------------------------------------------------------------

PACK = PACKS[0]
SID = PACK.paper.statements[0].id
GOOD = f'''
[[erratum]]
id = "E1"
title = "A title"
statements = ["{SID}"]
paper = "the claim"
wrong = "why it fails"
tests = ["verify/x/test_a.py::test_b"]

[[erratum.sections]]
label = "More"
text = "a further finding"
'''


def _pack_with(tmp_path, text: str):
    path = tmp_path / "errata.toml"
    path.write_text(text, encoding="utf-8")
    return dataclasses.replace(PACK, errata=path)


def test_load_reads_a_well_formed_file_and_a_missing_one(tmp_path):
    [e] = errata.load(_pack_with(tmp_path, GOOD))
    assert (e.qualified, e.citation, e.statements, e.sections) == (
        f"{PACK.id}:E1", f"({PACK.id}:E1)", (SID,), (errata.Section("More", "a further finding"),))
    assert e.counterexample_label == errata.DEFAULT_COUNTEREXAMPLE_LABEL and e.reproduce == ()
    assert errata.load(dataclasses.replace(PACK, errata=tmp_path / "none.toml")) == []


@pytest.mark.parametrize("text, message", [
    (GOOD + GOOD.split("\n[[erratum.sections]]")[0], "entry 2 (E1): duplicate id E1"),
    (GOOD.replace(f'["{SID}"]', '["no.such.statement"]'), "unknown statement(s) no.such.statement"),
    (GOOD.replace('wrong = "why it fails"\n', ""), "entry 1 (E1): missing required key(s) wrong"),
    (GOOD.replace('paper = "the claim"', 'paper = "the claim"\nwrnog = "typo"'), "unknown key(s) wrnog"),
    (GOOD.replace('id = "E1"', 'id = "4"'), "id '4' must match"),
    (GOOD.replace('statements = ["%s"]' % SID, "statements = []"), "at least one statement"),
    (GOOD.replace('"verify/x/test_a.py::test_b"', '"test_b"'), "not pytest node ids"),
    (GOOD.replace('paper = "the claim"', "paper = 3"), "'paper' must be non-empty text"),
    (GOOD.replace('label = "More"\n', ""), "exactly the keys 'label' and 'text'"),
    (GOOD.replace("[[erratum]]", "[erratum]"), "'erratum' must be an array of tables"),
    ("errata = 1\n", "unknown top-level key(s) errata"),
    (GOOD.replace('title = "A title"', 'title = "unclosed'), "not valid TOML"),
])
def test_load_rejects_a_malformed_file_naming_file_and_entry(tmp_path, text, message):
    pack = _pack_with(tmp_path, text)
    with pytest.raises(ValueError) as exc:
        errata.load(pack)
    assert str(exc.value).startswith(f"{pack.errata}:") and message in str(exc.value)


# ---------------------------------------------------------------------------------------
# What an entry covers: the campaigns' counterexamples it records
# ---------------------------------------------------------------------------------------

COVERS = f'''
[[erratum.covers]]
campaign = "{SID}"
when = "those with x > 0"
'''


def _campaign(cid=SID, recorded=None):
    from hypothesis import strategies as st

    from numerics.core.fuzzing import Campaign

    return Campaign(id=cid, statement="a planted bound", ratio_name="lhs/rhs", domain="x real", judged="always",
                    strategy=st.fixed_dictionaries({"x": st.floats(-1, 1)}), evaluate=lambda ex: (2.0, {}),
                    reproducer=lambda ex: "2.0", recorded={"E1": lambda ex: ex["x"] > 0} if recorded is None else recorded)


def _pack_covering(tmp_path, text: str, campaigns):
    return dataclasses.replace(_pack_with(tmp_path, text), campaigns=tuple(campaigns))


def test_an_entry_covers_the_counterexamples_its_campaigns_predicate_claims(tmp_path):
    pack = _pack_covering(tmp_path, GOOD + COVERS, [_campaign()])
    [e] = errata.load(pack)
    assert e.covers == (errata.Cover(SID, "those with x > 0"),)
    assert errata.covering([e], pack.campaigns[0], {"x": 0.5}) == [e]
    assert errata.covering([e], pack.campaigns[0], {"x": -0.5}) == []
    # another campaign of the same statement is not covered by naming this one
    assert errata.covering([e], _campaign(cid=SID + "@other"), {"x": 0.5}) == []
    assert f"`{PACK.id}:{SID}`: those with x > 0" in errata.entry_markdown(e)


@pytest.mark.parametrize("campaigns, text, message", [
    ([], GOOD + COVERS, f"covers unknown campaign '{SID}'"),
    ([_campaign(recorded={})], GOOD + COVERS, "has no predicate for it"),
    ([_campaign()], GOOD, "has a predicate for E1, but no such entry covers it"),
    ([_campaign()], GOOD + COVERS.replace('when = "those with x > 0"\n', ""), "exactly the keys 'campaign' and 'when'"),
])
def test_load_holds_covers_and_predicates_to_each_other(tmp_path, campaigns, text, message):
    pack = _pack_covering(tmp_path, text, campaigns)
    with pytest.raises(ValueError) as exc:
        errata.load(pack)
    assert message in str(exc.value)


def test_a_cover_must_name_a_campaign_of_one_of_its_statements(tmp_path):
    other = next(s.id for s in PACK.paper.statements if s.id != SID)
    pack = _pack_covering(tmp_path, GOOD.replace(f'statements = ["{SID}"]', f'statements = ["{other}"]') + COVERS,
                          [_campaign()])
    with pytest.raises(ValueError, match="not one of its statements"):
        errata.load(pack)
