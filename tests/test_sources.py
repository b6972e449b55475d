"""The source index (``numerics.core.sources``): its validation, its coverage buckets, its rendering,
the meta-tests every pack's index answers to, and the coverage in the verdict surfaces
(``numerics.app.coverage``: ``maskverify check``, the report, ``maskverify papers``)."""
from __future__ import annotations

import json
import textwrap

import pytest

from numerics.app import checkrun, coverage, report
from numerics.app import cli
from numerics.core import registry, sources
from numerics.core.pack import PaperPack
from theory.core.pack import Paper
from theory.core.statement import Kind, Statement

GOOD = '''
[paper]
source = "a text extraction"

[[result]]
label = "Theorem 1"
name = "main"
kind = "theorem"
section = "2"
quote = "Theorem 1 (main). For all x, x = x."
statements = ["a"]
'''


def _write(tmp_path, text: str):
    path = tmp_path / "sources.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_valid_index_loads_in_file_order(tmp_path):
    index = sources.load(_write(tmp_path, GOOD + '''
[[result]]
label = "eq. (3)"
kind = "equation"
section = "2"
quote = "(3)"
reason = "a definition; no claim of its own"
'''), "p", {"a"})
    assert [r.label for r in index.results] == ["Theorem 1", "eq. (3)"]
    assert index.source == "a text extraction" and index.results[0].printed == "Theorem 1 (main)"
    assert index.results[0].statements == ("a",) and index.cited() == {"a"}
    assert index.result("eq. (3)").reason.startswith("a definition")


ENTRY = 'label = "Lemma 2"\nkind = "lemma"\nsection = "3"\nquote = "Lemma 2."\n'

BAD = [
    ("[[result]]\n" + ENTRY + 'statements = ["zzz"]\n', "unknown statement(s) zzz"),
    ("[[result]]\n" + ENTRY, "no statement carries it and it gives no 'reason'"),
    ("[[result]]\n" + ENTRY + 'statements = ["a"]\nreason = "x"\n', "'reason' is for a result no statement"),
    ("[[result]]\n" + ENTRY + 'partial = "x"\nreason = "y"\n', "'partial' needs the statements"),
    ("[[result]]\n" + ENTRY.replace('"lemma"', '"lema"') + 'reason = "x"\n', "kind 'lema' is not one of"),
    ("[[result]]\n" + ENTRY.replace('quote = "Lemma 2."\n', "") + 'reason = "x"\n', "missing required key(s) quote"),
    ("[[result]]\n" + ENTRY + 'reason = "x"\ncolour = "red"\n', "unknown key(s) colour"),
    ("[[result]]\n" + ENTRY + 'reason = ""\n', "'reason' must be non-empty text"),
    ("[[result]]\n" + ENTRY + 'statements = ["a", "a"]\n', "names a statement twice"),
    ("[[result]]\n" + ENTRY + 'statements = "a"\n', "must be a list of short statement ids"),
    ("[[result]]\n" + ENTRY.replace('quote = "Lemma 2."', f'quote = "{"q" * 401}"') + 'reason = "x"\n',
     "the quote has 401 characters"),
    ("[[result]]\n" + ENTRY + 'reason = "x"\n' + "[[result]]\n" + ENTRY + 'reason = "y"\n',
     "duplicate label 'Lemma 2'"),
    ("[results]\n", "unknown top-level key(s) results"),
    ('[paper]\nsource = "s"\nyear = 2020\n', "[paper] holds only source"),
    ("result = 3\n", "'result' must be an array of tables"),
    ("[[result\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m for _, m in BAD])
def test_an_invalid_index_is_refused_naming_file_entry_and_fault(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(sources.SourcesError) as exc:
        sources.load(path, "p", {"a"})
    assert message in str(exc.value) and str(path) in str(exc.value)


def test_a_missing_index_is_an_error_when_loaded(tmp_path):
    with pytest.raises(sources.SourcesError, match="no such source index"):
        sources.load(tmp_path / "none.toml", "p")


def _statement(sid: str) -> Statement:
    return Statement(id=sid, ref="ref", title=sid, kind=Kind.IDENTITY, params=(), equations=(), not_checked="x")


def test_a_pack_with_a_broken_index_fails_when_it_is_built(tmp_path):
    paper = Paper("p", "P", ("A",), "arXiv 0", (_statement("a"),))
    path = _write(tmp_path, "[[result]]\n" + ENTRY + 'statements = ["b"]\n')
    with pytest.raises(sources.SourcesError, match="unknown statement"):
        PaperPack(paper, tmp_path, tmp_path / "errata.toml", sources=path)
    assert PaperPack(paper, tmp_path, tmp_path / "errata.toml", sources=tmp_path / "absent.toml").index is None


R = sources.Result("L", "lemma", "1", "q", statements=("a", "b"))
CASES = [
    (R, ("holds", "supported"), "holds"),
    (R, ("holds", "finding"), "finding"),
    (R, ("not supported", "holds"), "finding"),
    (R, ("finding", "fails"), "fails"),
    (R, ("holds", "not checked in this tier"), "not checked"),
    (R, ("not checked", "not checked"), "not checked"),
    (R, ("holds", None), "not run"),
    (R, ("finding", None), "finding"),
    (R, ("not checked", None), "not checked"),
    (sources.Result("L", "lemma", "1", "q", statements=("a",), partial="the rest"), ("holds",), "in part"),
    (sources.Result("L", "lemma", "1", "q", reason="cited"), (), "not carried"),
]


@pytest.mark.parametrize("result, statuses, expected", CASES)
def test_the_bucket_of_a_result_from_its_statements_verdicts(result, statuses, expected):
    assert sources.bucket(result, statuses) == expected


def test_counts_and_line_name_every_bucket():
    index = sources.Index("p", None, "", (
        sources.Result("T1", "theorem", "1", "q", statements=("a",)),
        sources.Result("T2", "theorem", "1", "q", statements=("b",)),
        sources.Result("T3", "theorem", "1", "q", statements=("a",), partial="its second half"),
        sources.Result("F1", "figure", "5", "q", reason="needs a GPU week")))
    covered = sources.coverage(index, {"a": ("holds", ""), "b": ("finding", "E1")})
    assert [c.bucket for c in covered] == ["holds", "finding", "in part", "not carried"]
    c = sources.counts(covered)
    assert c == {"results": 4, "holds": 1, "finding": 1, "fails": 0, "in part": 1, "not checked": 0,
                 "not carried": 1, "not run": 0}
    assert sources.line(c) == ("4 results in the paper: 1 carried by a holding or supported statement, "
                               "1 by a finding, 0 by a failing statement, 1 in part, 0 not checked, 1 not carried")
    assert covered[2].detail == "a: holds; not carried: its second half"
    assert covered[3].detail == "needs a GPU week" and covered[1].detail == "b: finding (E1)"


# ---------------------------------------------------------------------------------------
# Every registered pack's index
# ---------------------------------------------------------------------------------------

PACKS = registry.select(None)


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_every_pack_has_a_source_index_that_cites_every_statement(pack):
    assert pack.index is not None, f"{pack.id} has no source index ({pack.sources})"
    uncited = sorted({st.id for st in pack.paper.statements} - pack.index.cited())
    assert not uncited, f"{pack.id}: statements no result of the paper cites: {uncited}"
    assert {r.kind for r in pack.index.results} <= set(sources.KINDS)


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.id)
def test_every_pack_sources_md_is_rendered_from_its_data(pack):
    """``notes/<pack>/sources.md`` is what ``python -m numerics.core.sources_notes`` writes."""
    if pack.index is None:
        pytest.fail(f"{pack.id} has no source index")
    path = sources.markdown_path(pack.index)
    assert path.exists() and path.read_text(encoding="utf-8") == sources.render_markdown(pack.index, pack.title), \
        f"{path} is stale: run {sources.COMMAND}"


# ---------------------------------------------------------------------------------------
# The surfaces, on a planted pack
# ---------------------------------------------------------------------------------------

PLANTED = '''
import pytest

@pytest.mark.statement("good")
@pytest.mark.witness("reference")
def test_good(record):
    record(ratio=0.5, judged=2)
'''

INDEX = '''
[[result]]
label = "Theorem 1"
kind = "theorem"
section = "1"
quote = "Theorem 1. Good things hold."
statements = ["good"]

[[result]]
label = "Theorem 2"
kind = "theorem"
section = "1"
quote = "Theorem 2. Both things hold."
statements = ["good"]
partial = "the second thing: no witness can reach it here"

[[result]]
label = "Lemma 3"
kind = "lemma"
section = "2"
quote = "Lemma 3. Something unwitnessed."
statements = ["idle"]

[[result]]
label = "Figure 1"
kind = "figure"
section = "4"
quote = "Figure 1: the error falls like 1/m."
reason = "the experiment needs a week of GPU time"
'''


@pytest.fixture
def planted(tmp_path, monkeypatch):
    vdir = tmp_path / "verify" / "cov"
    vdir.mkdir(parents=True)
    (vdir / "test_cov.py").write_text(PLANTED)
    (tmp_path / "sources.toml").write_text(INDEX)
    paper = Paper("cov", "A planted paper", ("A. Author",), "arXiv 0000.00000",
                  (Statement(id="good", ref="Thm 1", title="good", kind=Kind.IDENTITY, params=(), equations=()),
                   _statement("idle")))
    monkeypatch.chdir(tmp_path)
    return PaperPack(paper, vdir, tmp_path / "errata.toml", sources=tmp_path / "sources.toml")


def test_check_report_and_papers_show_the_coverage(planted, tmp_path, capsys):
    code, results = checkrun.run([planted], progress=False, workers=1)
    rows = checkrun.table(results, [planted])
    checkrun.judge_rows(rows, results, [planted])
    (cov,) = coverage.from_rows([planted], rows)
    assert [r["bucket"] for r in cov["results"]] == ["holds", "in part", "not checked", "not carried"]
    assert cov["line"].startswith("4 results in the paper: 1 carried by a holding or supported statement")
    assert coverage.lines([cov])[1] == "  not carried: Figure 1"
    # the report: per paper and in total, json and Markdown (with the quote of what is not carried)
    payload = report.assemble([planted], code, results)
    assert payload["summary"]["coverage"]["not carried"] == 1 == payload["papers"][0]["summary"]["coverage"]["not carried"]
    md = report.render_markdown(json.loads(json.dumps(payload)))
    assert "### Coverage of the paper" in md and "Figure 1: the error falls like 1/m." in md
    assert "the experiment needs a week of GPU time" in md and "the second thing: no witness" in md
    assert "Coverage: 4 results in the paper" in md
    from numerics.app.report_html import render_html
    html = render_html(payload, tmp_path)
    assert "Coverage of the paper" in html and "results in the paper" in html
    # papers --json: without running, the holding statement's result is 'not run'
    (static,) = checkrun.static_verdicts([planted])
    covs = coverage.from_statement_rows(planted, static)
    assert [r["bucket"] for r in covs["results"]] == ["not run", "in part", "not checked", "not carried"]


def test_a_pack_without_an_index_says_its_coverage_is_unknown(tmp_path):
    paper = Paper("bare", "Bare", ("A",), "arXiv 0", (_statement("a"),))
    pack = PaperPack(paper, tmp_path, tmp_path / "errata.toml")
    cov = coverage.of_pack(pack, {"a": ("not checked", "x")})
    assert not cov["indexed"] and cov["counts"] is None and "no source index" in cov["line"]
    assert coverage.total([cov]) is None


def test_maskverify_papers_prints_each_pack_coverage(capsys):
    assert cli.main(["papers"]) == 0
    out = capsys.readouterr().out
    for pack in PACKS:
        assert f"{pack.id}: " in out
    assert out.count(" in the paper: ") + out.count("no source index") == len(PACKS)  # "1 result in the paper: "
