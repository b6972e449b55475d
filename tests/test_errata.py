"""Every registered pack's errata agree with its witnesses: the committed errata.md is the
rendering of the data, every strict xfail cites an existing entry that lists it, every test an
entry lists exists, is a strict xfail citing that entry and witnesses one of its statements;
and ``numerics.core.errata.load`` rejects malformed data.

The xfail marks are read by collecting each pack's witness folder with pytest in-process
(``--collect-only``), so that marks set through module constants, ``pytestmark``, classes or
``pytest.param`` are seen exactly as pytest applies them.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from numerics.core import errata, registry

ROOT = Path(__file__).resolve().parents[1]
PACKS = registry.select(None)


@dataclasses.dataclass(frozen=True)
class Collected:
    """What a test is, as pytest collected it: its strict-xfail reason (None: not a strict
    xfail) and the statements it is marked with."""

    nodeid: str
    strict_reason: str | None
    statements: frozenset[str]


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
            reason = None
            for mark in item.iter_markers("xfail"):
                if mark.kwargs.get("strict", strict_default):
                    reason = str(mark.kwargs.get("reason", ""))
            statements = frozenset(s for m in item.iter_markers("statement") for s in m.args)
            self.items.append(Collected(item.nodeid, reason, statements))


@pytest.fixture(scope="module")
def collected() -> dict[str, list[Collected]]:
    """Every pack's witnesses as collected by pytest (all tiers), node ids relative to the
    repository: ``{pack id: [Collected]}``."""
    marks = _Marks()
    dirs = {p.id: Path(p.verify_dir).resolve() for p in PACKS}
    code = pytest.main(["--collect-only", "-p", "no:cacheprovider", "-p", "no:terminal", "-o", "addopts=",
                        "--rootdir", str(ROOT), *map(str, dirs.values())], plugins=[marks])
    assert code == 0 and not marks.errors, f"collection failed (exit {code}): {marks.errors}"
    out: dict[str, list[Collected]] = {pid: [] for pid in dirs}
    for c in marks.items:
        path = (ROOT / c.nodeid.split("::")[0]).resolve()
        owner = next(pid for pid, d in dirs.items() if d in path.parents)
        out[owner].append(c)
    return out


def _matches(test: str, c: Collected) -> bool:
    """A listed test stands for the node id itself and, without ``[params]``, for all its
    parametrizations."""
    return c.nodeid == test or ("[" not in test and c.nodeid.split("[")[0] == test)


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
