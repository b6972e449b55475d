"""`maskverify report`: a row for every statement, the errata parsed with their reproducers,
every figure embedded or its absence stated, and the three files consistent and atomic."""
from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from numerics.app import checkrun
from numerics.core import fuzzing
from numerics.app import report
from numerics.app.checkrun import WitnessResult
from numerics.app.report_html import inline, tex_to_html
from theory.masking.catalogue import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]


def synthetic_results() -> list[WitnessResult]:
    """One passing fast witness per statement; a finding and a tight bound for thm.4.2; a
    failure for cor.5.3; a machinery test without a statement that errors."""
    out = [WitnessResult(f"verify/t.py::fast[{sid}]", sid, "fast", "passed", 0.01, error=1e-15, digits=15.0)
           for sid in CATALOGUE]
    out += [
        WitnessResult("verify/t.py::bound_fuzzed", "thm.4.2", "property", "xfail", 0.2, ratio=3.4,
                      detail="worst |E|/bound found: 3.4"),
        WitnessResult("verify/t.py::bound_family", "thm.4.2", "property", "passed", 0.2, ratio=0.8, detail="family"),
        WitnessResult("verify/t.py::cor53_broken", "cor.5.3", "fast", "failed", 0.1, error=2e-3,
                      message="AssertionError: excess 0.5 > eps1 0.4"),
        WitnessResult("verify/t.py::machinery", "(unmarked)", "other", "error", 0.0, message="fixture broke"),
    ]
    return out


def synthetic_runs() -> list[report.CampaignRun]:
    """A failed thm.4.2 campaign and a cor.5.4 campaign without a threshold, by hand."""
    def result(cid, ratios, **kw):
        c = fuzzing.CAMPAIGNS[cid]
        judged = [r for r in ratios if r is not None]
        return fuzzing.Result(campaign=cid, statement=c.statement, ratio_name=c.ratio_name, domain=c.domain,
                              judged=c.judged, threshold=c.threshold, seed=0, deep=False, database=None,
                              examples_requested=len(ratios), examples_tried=len(ratios),
                              valid_examples=len(judged), worst_ratio=max(judged), **kw)

    thm = [0.1, None, 0.5, 0.0, 0.9, 2.5]
    cor = [0.3, 1.2, 0.7, math.inf]
    return [report.CampaignRun(result("thm.4.2", thm, failed=True, shrunk_ratio=1.07, reproducer="1.07"), thm),
            report.CampaignRun(result("cor.5.4", cor, reproducer="inf"), cor)]


def _broken(out_dir, quick):
    raise RuntimeError("the producer broke")


def _nothing(out_dir, quick):
    raise report.ProducerUnavailable("nothing to draw here")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A report from synthetic results and runs, the real errata, a real Fig. 1(a) (41 points),
    the fuzzing plot, and three producers that cannot draw: written to a temporary DIR."""
    out = tmp_path_factory.mktemp("report")
    runs = synthetic_runs()
    producers = [p for p in report.figure_producers(report.Sizes(points=41), runs, progress=False)
                 if p.name in ("fig1a", "fuzz")]
    producers += [report.FigureProducer("fig3a", "a producer with nothing to draw", _nothing),
                  report.FigureProducer("broken", "a producer that raises", _broken)]
    figures = report.draw_figures(producers, out, progress=False)
    errata = report.parse_errata(report.ERRATA.read_text(), CATALOGUE)
    payload = report.assemble(1, synthetic_results(), runs=runs, figures=figures, errata=errata,
                              meta={"command": "test", "timestamp": "2026-01-01T00:00:00+00:00", "tier": "default",
                                    "git": report.git_state(), "versions": report.versions()})
    paths = report.write(payload, out)
    return out, payload, paths


# ---------------------------------------------------------------------------------------
# Errata
# ---------------------------------------------------------------------------------------

def test_errata_file_parses_into_entries_with_reproducers():
    entries = report.parse_errata(report.ERRATA.read_text(), CATALOGUE)
    ids = [e.id for e in entries]
    assert ids == [f"E{i}" for i in range(1, len(ids) + 1)] and len(ids) >= 11
    assert all(e.title and e.sections for e in entries)
    by = {e.id: e for e in entries}
    for eid in ("E1", "E4", "E9", "E10", "E11"):
        e = by[eid]
        assert e.statement and e.wrong and e.counterexample, eid
        assert any(r.kind == "shell" and r.command.startswith("pytest verify/") for r in e.reproducers), eid
    assert "thm.4.2" in by["E4"].statements
    assert any(r.kind == "python" and r.command.startswith("numerics.masking.network.theorem_4_2(") for r in by["E4"].reproducers)
    assert by["E3"].reproducers == () and by["E3"].reproduce is None
    assert by["E2"].reproducers == () and "not executable" in by["E2"].reproduce  # a bare name is no command
    assert "|" in by["E9"].counterexample  # the indented table stays in its section


def test_errata_parser_is_robust_to_layout():
    text = ("# Errata\r\npreamble\r\n\r\n## E1. First: a title\r\nintro line\r\n"
            "- **Paper** (Section 2): the claim\r\n  continued $x^2$.\r\n"
            "- **Odd label**: kept\r\n"
            "- **Counterexample family** (exact): $n=3$\r\n  | a | b |\r\n  |---|---|\r\n  | 1 | 2 |\r\n"
            "- **Reproduce**: `maskverify fuzz thm.4.2 --seed 1` and, in Python,\r\n"
            "  `numerics.masking.network.theorem_4_2([[2.0]], [1.0], [[1.0]], [-6.0], 0.5)`; see `cor.5.3:part`.\r\n"
            "## E2 Second without bullets\n\nfree text only\n"
            "## Appendix (not an entry)\n- **Paper**: ignored\n"
            "## E10. Last\n- **Wrong**: `cor.5.3`\n")
    entries = report.parse_errata(text, CATALOGUE)
    assert [e.id for e in entries] == ["E1", "E2", "E10"]
    e1, e2, e10 = entries
    assert e1.title == "First: a title"
    assert [lab for lab, _ in e1.sections] == ["Text", "Paper", "Odd label", "Counterexample family", "Reproduce"]
    assert e1.statement == "(Section 2): the claim\ncontinued $x^2$."
    assert e1.counterexample.splitlines()[1:] == ["| a | b |", "|---|---|", "| 1 | 2 |"]
    assert [r.kind for r in e1.reproducers] == ["shell", "python"]
    assert e1.statements == ("cor.5.3",)  # quoted ids only, a ":part" suffix dropped
    assert e2.title == "Second without bullets" and e2.sections == (("Text", "free text only"),)
    assert e2.statement is None and e2.reproducers == ()
    assert e10.wrong == "`cor.5.3`" and e10.statements == ("cor.5.3",)
    assert report.parse_errata("") == []


# ---------------------------------------------------------------------------------------
# The payload and report.json
# ---------------------------------------------------------------------------------------

def test_payload_has_every_statement_result_and_summary(built):
    _, payload, _ = built
    rows = {r["id"]: r for r in payload["statements"]}
    assert list(rows)[:len(CATALOGUE)] == list(CATALOGUE) and "(unmarked)" in rows
    for sid, st in CATALOGUE.items():
        assert rows[sid]["ref"] == st.ref and rows[sid]["kind"] == st.kind.value
        assert set(rows[sid]["witnesses"]) == set(checkrun.WITNESSES)
    assert rows["thm.4.2"]["status"] == "finding" and rows["cor.5.3"]["status"] == "fails"
    assert rows["lemma.relu_moment1"]["status"] == "holds"
    assert rows["thm.4.2"]["tightest_ratio"]["value"] == 0.8 and rows["thm.4.2"]["finding_ratio"]["value"] == 3.4
    assert rows["thm.4.2"]["fuzz"][0]["failed"] and rows["cor.5.4"]["fuzz"][0]["worst_ratio"] == "inf"
    assert "E4" in rows["thm.4.2"]["errata"]
    assert len(payload["witness_results"]) == len(synthetic_results())
    s = payload["summary"]
    assert (s["statements"], s["failed"], s["findings"], s["fuzz_counterexamples"]) == (len(CATALOGUE) + 1, 2, 1, 1)
    assert s["figures"] == {"ok": 2, "unavailable": 1, "failed": 1} and "FAILED" in s["verdict"]
    assert {f["nodeid"] for f in payload["failures"]} == {"verify/t.py::cor53_broken", "verify/t.py::machinery"}


def test_json_is_strict_and_complete(built):
    out, payload, _ = built
    def no_constants(name):
        raise ValueError(f"non-standard JSON constant {name}")
    data = json.loads((out / "report.json").read_text(), parse_constant=no_constants)
    assert data == json.loads(json.dumps(payload))
    assert {"schema", "paper", "generated", "summary", "statements", "failures", "witness_results", "fuzz",
            "errata", "figures"} <= set(data)
    assert data["fuzz"][0]["ratios"] == [0.1, None, 0.5, 0.0, 0.9, 2.5] and data["fuzz"][0]["outcome"] == "counterexample"
    assert data["generated"]["versions"]["numpy"] and data["generated"]["git"]["commit"]
    assert all(e["reproducers"] is not None for e in data["errata"])
    assert not list(out.rglob("*.tmp*"))


def test_figure_outcomes_state_what_is_missing(built):
    _, payload, _ = built
    figs = {f["name"]: f for f in payload["figures"]}
    assert figs["fig1a"]["files"][:2] == ["figures/fig1a.png", "figures/fig1a.pdf"]
    assert figs["fuzz"]["files"] == ["figures/fuzz_tightness.png", "figures/fuzz_tightness.pdf"]
    assert figs["fig3a"]["status"] == "unavailable" and "nothing to draw" in figs["fig3a"]["error"]
    assert figs["broken"]["status"] == "failed" and "RuntimeError: the producer broke" in figs["broken"]["error"]


def test_figure_list_and_fuzz_needs_runs():
    producers = report.figure_producers()
    assert [p.name for p in producers] == ["fig1a", "fig1b", "fig2", "fuzz", "fig3a", "fig3b"]
    with pytest.raises(report.ProducerUnavailable, match="no fuzz campaign"):
        producers[3].produce(Path("."), True)


# ---------------------------------------------------------------------------------------
# report.md
# ---------------------------------------------------------------------------------------

def test_markdown_has_rows_errata_and_figures(built):
    out, payload, _ = built
    md = (out / "report.md").read_text()
    table = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(table) == len(payload["statements"]) + len(payload["fuzz"])
    for sid in CATALOGUE:
        assert any(line.startswith(f"| `{sid}` |") for line in table), sid
    for e in payload["errata"]:
        assert f"### {e['id']}. " in md
    assert "  pytest verify/test_s4_network_errata.py -rxX -k bound_4" in md
    assert "![fig1a](figures/fig1a.png)" in md and "![fuzz](figures/fuzz_tightness.png)" in md
    assert "**Figure not available**: nothing to draw here" in md
    assert "FAILED" in md and "verify/t.py::cor53_broken" in md


# ---------------------------------------------------------------------------------------
# report.html
# ---------------------------------------------------------------------------------------

class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.imgs, self.links, self.ids, self.text = [], [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "tr" and "data-statement" in a:
            self.rows.append(a["data-statement"])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        for key in ("href", "src", "action", "data"):
            if key in a and tag != "img":
                self.links.append(a[key])
        if "id" in a:
            self.ids.append(a["id"])

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_self_contained_and_complete(built):
    out, payload, _ = built
    page = _Page()
    page.feed((out / "report.html").read_text())
    assert page.rows == [r["id"] for r in payload["statements"]]
    assert len(page.imgs) == 2 and all(src.startswith("data:image/png;base64,") for src in page.imgs)
    assert all(link.startswith("#") for link in page.links), page.links
    assert not [t for t, _ in page.tags if t in ("script", "link", "iframe", "object", "embed")]
    csp = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")
    assert {e["id"] for e in payload["errata"]} <= set(page.ids)
    text = "".join(page.text)
    assert "Figure fig3a not available" in text and "nothing to draw here" in text
    assert "Figure broken failed" in text
    errata_text = text[text.index("Errata"):text.index("Figures", text.index("Errata"))]
    assert "\\" not in errata_text and "$" not in errata_text  # every formula was rendered


def test_tex_and_markdown_rendering():
    assert tex_to_html(r"\kappa^2 R_{\mathbf u}^2\le\frac{1}{2m}") == "κ<sup>2</sup> R<sub><b>u</b></sub><sup>2</sup>≤1/(2m)"
    assert tex_to_html(r"\mathbb E_C[\mathcal L_C]\ne\sqrt{2\pi}") == "𝔼<sub>C</sub>[ℒ<sub>C</sub>]≠√(2π)"
    assert tex_to_html(r"\unknown{x}}<") == "unknownx&lt;"  # never raises, never leaks a backslash or tag
    assert inline("**Bold** and *em*, `a<b`, $x_1$") == (
        '<strong>Bold</strong> and <em>em</em>, <code>a&lt;b</code>, <span class="math">x<sub>1</sub></span>')


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

def _parser():
    parser = argparse.ArgumentParser(prog="maskverify")
    report.add_subcommand(parser.add_subparsers(dest="command", required=True))
    return parser


def test_help_describes_outputs_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["report", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("report.html", "report.json", "self-contained", "Exit status", "--deep", "--figures"):
        assert word in text
    with pytest.raises(SystemExit):
        _parser().parse_args(["report", "--figures", "fig9"])
    assert "unknown figure" in capsys.readouterr().err


def test_exit_2_and_nothing_written_when_the_catalogue_cannot_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(checkrun, "run", lambda **kw: (4, []))
    args = _parser().parse_args(["report", "--out", str(tmp_path / "r"), "--no-progress"])
    assert args.func(args) == 2
    assert not (tmp_path / "r" / "report.html").exists()
    assert "could not run the catalogue" in capsys.readouterr().err


def test_cli_writes_a_report_from_a_selection(tmp_path):
    """The real pipeline on a small selection, in a fresh interpreter (the catalogue is a
    pytest run of its own): exit 0, and a row per catalogue statement."""
    script = ("import argparse, sys; from numerics import report; p = argparse.ArgumentParser(); "
              "report.add_subcommand(p.add_subparsers()); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))")
    out = tmp_path / "rep"
    proc = subprocess.run([sys.executable, "-c", script, "report", "--out", str(out), "-k", "lemma_d22",
                           "--fuzz-examples", "0", "--figures", "fig1a", "--points", "21", "--no-progress"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((out / "report.json").read_text())
    assert [r["id"] for r in data["statements"]] == list(CATALOGUE)
    assert data["summary"]["witness_tests"] >= 1 and data["fuzz"] == []
    assert [f["name"] for f in data["figures"]] == ["fig1a"]
    assert data["generated"]["command"].startswith("maskverify report --out ")
    assert re.search(r"wrote .*report\.html", proc.stdout)


@pytest.mark.parametrize("kw", [{"samples": 1}, {"points": 1}, {"fuzz_examples": 0}, {"seed": -1}])
def test_bad_sizes_raise_value_error(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        report.Sizes(**kw)
