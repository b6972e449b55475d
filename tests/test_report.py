"""`maskverify report` over several packs: a section per paper with a row for every statement
(qualified ids, provenance), planted failures and findings where they belong, the errata from
the packs' data, every figure embedded or its absence stated, and the three files consistent,
atomic and (the HTML) self-contained.

The report is built from synthetic witness results and fuzz runs over the first registered
pack and a second pack made from it (``other``), with small planted figures, so that it takes
seconds; one test runs the real pipeline on a small selection in a fresh interpreter.
"""
from __future__ import annotations

import dataclasses
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from numerics.app import checkrun, cli, report
from numerics.app.checkrun import WitnessResult
from numerics.app.report_html import md_block, md_inline, tex_to_html
from numerics.core import errata, fuzzing, registry
from numerics.core.cliargs import UsageError
from numerics.core.pack import Figure
from theory.core.io import atomic_write
from theory.core.statement import Kind

ROOT = Path(__file__).resolve().parents[1]
PACK = registry.get("masking")
ERRATA = errata.load(PACK)
#: the statement that gets a recorded finding: one an erratum names, so the row links to it
FINDING = PACK.paper.qualify(ERRATA[0].statements[0] if ERRATA else PACK.paper.statements[0].id)
#: the statement whose witness fails
FAILING = next(PACK.paper.qualify(s.id) for s in PACK.paper.statements if PACK.paper.qualify(s.id) != FINDING)


def _tiny(out_dir, quick, progress, seed=0):
    """A planted figure: one small PNG, written as the packs write theirs."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(2, 1.5))
    fig.subplots().plot([0, 1], [seed, 1])
    return [atomic_write(out_dir / "tiny.png", lambda tmp: fig.savefig(tmp, format="png", dpi=60))]


def _broken(out_dir, quick, progress, seed=0):
    raise RuntimeError("the producer broke")


OTHER = dataclasses.replace(PACK, paper=dataclasses.replace(PACK.paper, id="other", title="Another paper"),
                            errata=ROOT / "no-such-errata.toml",
                            figures=(Figure("tiny", "a planted figure with `code` and $x_1$", _tiny),
                                     Figure("broken", "a producer that raises", _broken)))
PACKS = [PACK, OTHER]


def synthetic_results() -> list[WitnessResult]:
    """One passing fast witness per statement of both packs; a finding and a tight ratio for
    FINDING; a failure for FAILING; a machinery test without a statement that errors."""
    out = [WitnessResult(f"verify/{p.id}/t.py::fast[{st.id}]", p.paper.qualify(st.id), "fast", "passed", 0.01,
                         error=1e-15, digits=15.0) for p in PACKS for st in p.paper.statements]
    out += [
        WitnessResult("verify/t.py::finding", FINDING, "property", "xfail", 0.2, ratio=3.4, detail="worst 3.4"),
        WitnessResult("verify/t.py::family", FINDING, "property", "passed", 0.2, ratio=0.8, detail="family"),
        WitnessResult("verify/t.py::broken", FAILING, "fast", "failed", 0.1, error=2e-3,
                      message="AssertionError: excess 0.5 > 0.4"),
        WitnessResult("verify/t.py::machinery", "(unmarked)", "other", "error", 0.0, message="fixture broke"),
    ]
    return out


def synthetic_runs() -> list[report.CampaignRun]:
    """PACK's first campaign failed after six examples (one not judged); its last campaign
    with an infinite ratio; by hand."""
    def result(c, ratios, **kw):
        judged = [r for r in ratios if r is not None]
        return fuzzing.Result(campaign=c.id, statement=c.statement, ratio_name=c.ratio_name, domain=c.domain,
                              judged=c.judged, threshold=c.threshold, seed=0, deep=False, database=None,
                              examples_requested=len(ratios), examples_tried=len(ratios),
                              valid_examples=len(judged), worst_ratio=max(judged), **kw)

    first, last = PACK.campaigns[0], PACK.campaigns[-1]
    failing = [0.1, None, 0.5, 0.0, 0.9, 2.5]
    wild = [0.3, 1.2, 0.7, math.inf]
    return [report.CampaignRun(PACK.id, result(first, failing, failed=True, shrunk_ratio=1.07, reproducer="1.07"),
                               failing),
            report.CampaignRun(PACK.id, result(last, wild, reproducer="inf"), wild)]


def qualified_ids(pack) -> list[str]:
    return [pack.paper.qualify(st.id) for st in pack.paper.statements]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A two-pack report from synthetic results and runs, PACK's real errata, PACK's fuzzing
    plot and OTHER's planted figures (one drawn, one raising, an empty fuzzing plot)."""
    out = tmp_path_factory.mktemp("report")
    runs = synthetic_runs()
    figures = [f for f in report.figures_of(PACK, runs) if f.name == report.FUZZ_FIGURE]
    figures += report.figures_of(OTHER, runs)
    drawn = report.draw_figures(figures, out, progress=False, seed=3)
    payload = report.assemble(PACKS, 1, synthetic_results(), runs=runs, figures=drawn,
                              errata={PACK.id: ERRATA, OTHER.id: []},
                              meta={"command": "test", "timestamp": "2026-01-01T00:00:00+00:00", "tier": "default",
                                    "git": report.git_state(), "versions": report.versions()})
    return out, payload, report.write(payload, out)


# ---------------------------------------------------------------------------------------
# The payload and report.json
# ---------------------------------------------------------------------------------------

def test_payload_has_a_section_per_paper_with_every_statement(built):
    _, payload, _ = built
    assert [p["id"] for p in payload["papers"]] == [PACK.id, OTHER.id]
    mine, other = payload["papers"]
    assert [r["id"] for r in mine["statements"]] == qualified_ids(PACK)
    assert [r["id"] for r in other["statements"]] == qualified_ids(OTHER)
    rows = {r["id"]: r for r in mine["statements"]}
    for st in PACK.paper.statements:
        row = rows[PACK.paper.qualify(st.id)]
        assert (row["ref"], row["kind"], row["provenance"]) == (st.ref, st.kind.value, st.provenance.describe())
        assert set(row["witnesses"]) == set(checkrun.WITNESSES)
    assert rows[FINDING]["status"] == "finding" and rows[FAILING]["status"] == "fails"
    # every OTHER statement has one passing fast witness: a claim holds, an empirical claim is supported
    assert {r["id"]: r["status"] for r in other["statements"]} == {
        OTHER.paper.qualify(st.id): "supported" if st.kind is Kind.EMPIRICAL else "holds"
        for st in OTHER.paper.statements}
    assert rows[FINDING]["tightest_ratio"]["value"] == 0.8 and rows[FINDING]["finding_ratio"]["value"] == 3.4
    if ERRATA:
        assert ERRATA[0].qualified in rows[FINDING]["errata"]
    first, last = PACK.campaigns[0], PACK.campaigns[-1]
    fuzzed = rows[PACK.paper.qualify(first.statement_id)]["fuzz"]
    assert fuzzed[0]["campaign"] == PACK.paper.qualify(first.id) and fuzzed[0]["failed"]
    assert rows[PACK.paper.qualify(last.statement_id)]["fuzz"][-1]["worst_ratio"] == "inf"
    assert [r["id"] for r in payload["other_statements"]] == ["(unmarked)"]
    assert [e["qualified"] for e in mine["errata"]] == [e.qualified for e in ERRATA] and other["errata"] == []
    s = payload["summary"]
    n = len(PACK.paper.statements) + len(OTHER.paper.statements) + 1
    assert (s["statements"], s["failed"], s["findings"], s["fuzz_counterexamples"], s["errata"]) == (
        n, 2, 1, 1, len(ERRATA))
    assert s["figures"] == {"ok": 2, "unavailable": 1, "failed": 1} and "FAILED" in s["verdict"]
    assert (mine["summary"]["failed"], other["summary"]["failed"]) == (1, 0)
    assert {f["nodeid"] for f in payload["failures"]} == {"verify/t.py::broken", "verify/t.py::machinery"}


def test_json_is_strict_and_complete(built):
    out, payload, _ = built

    def no_constants(name):
        raise ValueError(f"non-standard JSON constant {name}")

    data = json.loads((out / "report.json").read_text(), parse_constant=no_constants)
    assert data == json.loads(json.dumps(payload))
    assert {"schema", "generated", "summary", "papers", "other_statements", "failures", "witness_results"} <= set(data)
    fuzz = data["papers"][0]["fuzz"]
    assert fuzz[0]["ratios"] == [0.1, None, 0.5, 0.0, 0.9, 2.5] and fuzz[0]["outcome"] == "counterexample"
    assert data["generated"]["versions"]["numpy"] and data["generated"]["git"]["commit"]
    assert all(e["markdown"].startswith(f"#### {e['id']}. ") for e in data["papers"][0]["errata"])
    assert not list(out.rglob("*.tmp*"))


def test_figures_go_to_per_pack_folders_and_state_what_is_missing(built):
    _, payload, _ = built
    figs = {f["name"]: f for p in payload["papers"] for f in p["figures"]}
    assert list(figs) == [f"{PACK.id}:fuzz", "other:tiny", "other:broken", "other:fuzz"]
    assert figs[f"{PACK.id}:fuzz"]["files"] == [f"figures/{PACK.id}/fuzz_tightness.png",
                                               f"figures/{PACK.id}/fuzz_tightness.pdf"]
    assert figs["other:tiny"]["status"] == "ok" and figs["other:tiny"]["files"] == ["figures/other/tiny.png"]
    assert figs["other:broken"]["status"] == "failed" and "RuntimeError: the producer broke" in figs["other:broken"]["error"]
    assert figs["other:fuzz"]["status"] == "unavailable" and "no fuzz campaign" in figs["other:fuzz"]["error"]


def test_figure_names_are_chosen_by_qualified_or_bare_name():
    assert [f.name for f in report.figures_of(PACK)] == [f.name for f in PACK.figures] + ["fuzz"]
    assert report.select_figures(PACKS, None) is None
    assert report.select_figures(PACKS, ["fuzz"]) == {f"{PACK.id}:fuzz", "other:fuzz"}
    assert report.select_figures(PACKS, ["other:tiny"]) == {"other:tiny"}
    with pytest.raises(UsageError, match="unknown figure.*fig99.*known: .*other:tiny"):
        report.select_figures(PACKS, ["tiny", "fig99"])


# ---------------------------------------------------------------------------------------
# report.md
# ---------------------------------------------------------------------------------------

def test_markdown_has_a_section_per_paper_rows_errata_and_figures(built):
    out, payload, _ = built
    md = (out / "report.md").read_text()
    assert f"## {PACK.title} (`{PACK.id}`)" in md and "## Another paper (`other`)" in md
    table = [line for line in md.splitlines() if line.startswith("| `")]
    n_rows = sum(len(p["statements"]) for p in payload["papers"]) + len(payload["other_statements"])
    assert len(table) == n_rows + sum(len(p["fuzz"]) for p in payload["papers"])
    for sid in qualified_ids(PACK) + qualified_ids(OTHER):
        assert any(line.startswith(f"| `{sid}` |") for line in table), sid
    for e in ERRATA:
        assert f"#### {e.id}. {e.title}" in md
        for command in e.reproduce:
            assert f"  {command}\n" in md
    assert f"![{PACK.id}:fuzz](figures/{PACK.id}/fuzz_tightness.png)" in md
    assert "![other:tiny](figures/other/tiny.png)" in md
    assert "**Figure not available**: no fuzz campaign" in md and "**Figure failed**: RuntimeError" in md
    assert "FAILED" in md and "verify/t.py::broken" in md


# ---------------------------------------------------------------------------------------
# report.html
# ---------------------------------------------------------------------------------------

class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.imgs, self.links, self.ids, self.text = [], [], [], [], [], []
        self.article, self.articles = None, []

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
        if tag == "article":
            self.article = []

    def handle_endtag(self, tag):
        if tag == "article":
            self.articles.append("".join(self.article))
            self.article = None

    def handle_data(self, data):
        self.text.append(data)
        if self.article is not None:
            self.article.append(data)


def test_html_is_self_contained_and_complete(built):
    out, payload, _ = built
    page = _Page()
    page.feed((out / "report.html").read_text())
    assert page.rows == ([r["id"] for p in payload["papers"] for r in p["statements"]]
                         + [r["id"] for r in payload["other_statements"]])
    assert len(page.imgs) == 2 and all(src.startswith("data:image/png;base64,") for src in page.imgs)
    assert all(link.startswith("#") for link in page.links), page.links
    assert {link[1:] for link in page.links} <= set(page.ids)  # every anchor resolves, errata links too
    assert not [t for t, _ in page.tags if t in ("script", "link", "iframe", "object", "embed")]
    csp = [a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")
    assert {e.qualified for e in ERRATA} <= set(page.ids) and len(page.articles) == len(ERRATA)
    for text in page.articles:  # every formula was rendered, no TeX source is left
        assert "\\" not in text and "$" not in text, text[:300]
    text = "".join(page.text)
    assert "Figure other:fuzz not available" in text and "no fuzz campaign" in text
    assert "Figure other:broken failed" in text


def test_tex_and_markdown_rendering():
    assert tex_to_html(r"\kappa^2 R_{\mathbf u}^2\le\frac{1}{2m}") == "κ<sup>2</sup> R<sub><b>u</b></sub><sup>2</sup>≤1/(2m)"
    assert tex_to_html(r"\mathbb E_C[\mathcal L_C]\ne\sqrt{2\pi}") == "𝔼<sub>C</sub>[ℒ<sub>C</sub>]≠√(2π)"
    assert tex_to_html(r"\unknown{x}}<") == "unknownx&lt;"  # never raises, never leaks a backslash or tag
    assert md_inline("**Bold** and *em*, `a<b`, $x_1$ <b>") == (
        '<strong>Bold</strong> and <em>em</em>, <code>a&lt;b</code>, <span class="math">x<sub>1</sub></span> '
        "&lt;b&gt;")
    assert md_inline("$a_b$ and $c_d$") == ('<span class="math">a<sub>b</sub></span> and '
                                            '<span class="math">c<sub>d</sub></span>')  # no emphasis across
    table = md_block("| $C_1$ | 0.5 |\n|---|---|\n| 1 | $10^{-3}$ |\n")
    assert "<table>" in table and "<sup>-3</sup>" in table


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

def test_help_describes_outputs_figures_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["report", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("report.html", "report.json", "self-contained", "Exit status", "--deep", "--figures", "--paper",
                 f"{PACK.id}:fuzz"):
        assert word in text


@pytest.mark.parametrize("argv, message", [
    (["--paper", "no-such-paper"], "unknown paper 'no-such-paper'"),
    (["--figures", "fig99"], "unknown figure(s) fig99"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(checkrun, "run", lambda *a, **kw: pytest.fail("the witnesses must not run"))
    assert cli.main(["report", "--out", str(tmp_path / "r"), "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_invalid_errata_data_is_a_usage_error(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "errata.toml"
    bad.write_text('[[erratum]]\nid = "E1"\n', encoding="utf-8")
    broken = dataclasses.replace(PACK, paper=dataclasses.replace(PACK.paper, id="broken"), errata=bad, commands=())
    monkeypatch.setattr(checkrun, "run", lambda *a, **kw: pytest.fail("the witnesses must not run"))
    registry.register(broken)
    try:
        assert cli.main(["report", "--paper", "broken", "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    finally:
        registry.unregister("broken")
    err = capsys.readouterr().err
    assert f"{bad}: entry 1 (E1): missing required key(s)" in err and len(err.strip().splitlines()) == 1


def test_exit_2_and_nothing_written_when_the_witnesses_cannot_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(checkrun, "run", lambda *a, **kw: (4, []))
    assert cli.main(["report", "--paper", PACK.id, "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    assert not (tmp_path / "r" / "report.html").exists()
    assert "could not run the witnesses" in capsys.readouterr().err


def test_report_n_sets_the_witnesses_workers(tmp_path, monkeypatch):
    """``maskverify report -n N`` runs the witnesses in N processes, as ``check -n N`` does, and
    the reproducing command keeps it."""
    seen = []
    monkeypatch.setattr(checkrun, "run", lambda *a, **kw: seen.append(kw["workers"]) or (4, []))
    assert cli.main(["report", "--paper", PACK.id, "--out", str(tmp_path / "r"), "-n", "3", "--no-progress"]) == 2
    assert seen == [3]
    args = cli.build_parser().parse_args(["report", "--out", "r", "-n", "3"])
    assert " -n 3 " in report._command(args) + " "


def test_cli_writes_a_report_from_a_selection(tmp_path, monkeypatch, capsys):
    """The real pipeline on a small selection (one process: the witnesses run in-process, the
    LaTeX export, tested in test_latex_export.py, is recorded rather than run): exit 0, a row
    per statement, one real figure, the LaTeX asked for beside the report."""
    if "masking" not in registry.packs():
        pytest.skip("the selection below is the masking pack's")
    import theory.core.latex

    exported = []
    monkeypatch.setattr(checkrun, "default_workers", lambda: 1)
    monkeypatch.setattr(theory.core.latex, "export_all", lambda papers, out: exported.append((papers, out)) or [])
    out = tmp_path / "rep"
    assert cli.main(["report", "--paper", "masking", "--out", str(out), "-k", "lemma_d22", "--fuzz-examples", "0",
                     "--figures", "fig1a", "--no-progress"]) == 0
    data = json.loads((out / "report.json").read_text())
    pack = registry.get("masking")
    assert [p["id"] for p in data["papers"]] == ["masking"]
    assert [r["id"] for r in data["papers"][0]["statements"]] == qualified_ids(pack)
    assert data["summary"]["witness_tests"] >= 1 and data["papers"][0]["fuzz"] == []
    assert [(f["name"], f["status"]) for f in data["papers"][0]["figures"]] == [("masking:fig1a", "ok")]
    assert data["papers"][0]["figures"][0]["files"][0] == "figures/masking/fig1a.png"
    assert data["generated"]["command"].startswith("maskverify report --paper masking --out ")
    assert re.search(r"wrote .*report\.html", capsys.readouterr().out)
    assert exported == [([pack.paper], out / "latex")]


# ---------------------------------------------------------------------------------------
# Figures drawn from task records; the time of each phase
# ---------------------------------------------------------------------------------------

def _square(params):
    """A task of the execution layer (module level: importable by a worker)."""
    return {"square": params["x"] ** 2}


def _from_records(out_dir, quick, progress, seed=0, records=None):
    """A planted figure whose experiment is three tasks, run through the records it is given."""
    from numerics.core import execution

    got = execution.run(_square, [{"x": x} for x in range(3)], records.engine, store=records.store,
                        resume=records.resume, progress=False)
    return [atomic_write(out_dir / "squares.txt", json.dumps(got))]


def _records_pack(committed):
    return dataclasses.replace(OTHER, records=committed,
                               figures=(Figure("squares", "drawn from task records", _from_records, records=True),))


def test_a_figure_is_drawn_from_the_committed_records_of_this_code_version(tmp_path, monkeypatch):
    """First computed (its records written under the report's records/<pack>/), then, with those
    records committed as the pack's, drawn from them with their provenance (version, when, where)
    in the outcome, the terminal line and report.md; --rerun and another code version compute."""
    import platform
    import shutil

    from numerics.core import execution

    committed = tmp_path / "committed"
    [fig] = [f for f in report.figures_of(_records_pack(committed)) if f.name == "squares"]
    serial = execution.Engine(workers=0)
    first = report.draw_figures([fig], tmp_path / "r1", progress=False, engine=serial)[0]
    assert first.status == "ok", first.error
    assert (first.records["source"], first.records["computed"]) == ("computed", 3)
    shutil.copytree(tmp_path / "r1" / report.RECORDS_DIR / "other", committed)

    said = []
    second = report.draw_figures([fig], tmp_path / "r2", progress=False, engine=serial, say=said.append)[0]
    rec = second.records
    assert (rec["source"], rec["computed"], rec["committed"]) == ("stored records", 0, str(committed.resolve()))
    assert rec["stored"]["records"] == 3 and rec["stored"]["hosts"] == [platform.node()]
    assert rec["stored"]["versions"] == [execution.closure_version(_square)] and rec["stored"]["finished"]
    assert json.loads((tmp_path / "r2" / "figures" / "other" / "squares.txt").read_text()) == [
        {"square": 0}, {"square": 1}, {"square": 4}]
    line = report.records_line(rec)
    assert line.startswith("Drawn from 3 task records stored for this code version") and line in said[0]
    payload = report.assemble([OTHER], 0, [], figures=[second], errata={OTHER.id: []}, inventory=[])
    assert line in report.render_markdown(payload)

    rerun = report.draw_figures([fig], tmp_path / "r3", progress=False, engine=serial, rerun=True)[0]
    assert (rerun.records["source"], rerun.records["computed"], rerun.records["rerun"]) == ("computed", 3, True)
    monkeypatch.setattr(execution, "closure_version", lambda fn, within=None: "0.1.0+closure-edited")
    stale = report.draw_figures([fig], tmp_path / "r4", progress=False, engine=serial)[0]
    assert (stale.records["source"], stale.records["computed"]) == ("computed", 3)
    assert len(list(committed.glob("*.json"))) == 3  # a read-only store is never written


def test_a_pack_without_campaigns_has_no_fuzzing_figure():
    bare = dataclasses.replace(OTHER, campaigns=(), errata=ROOT / "no-such-errata.toml")
    assert [f.name for f in report.figures_of(bare)] == ["tiny", "broken"]


def test_the_report_says_each_phase_and_its_time_under_no_progress(tmp_path, monkeypatch, capsys):
    """``--no-progress`` turns the bars off, not the phases: one line per phase (witnesses,
    campaigns, each figure, figures, inventory, latex) with its time on stderr, and the report's
    three files say how long each took."""
    import theory.core.latex

    monkeypatch.setattr(checkrun, "run", lambda *a, **kw: (0, synthetic_results()[:3]))
    monkeypatch.setattr(checkrun, "inventory", lambda packs: [])
    monkeypatch.setattr(theory.core.latex, "export_all", lambda papers, out: [])
    out = tmp_path / "rep"
    assert cli.main(["report", "--paper", PACK.id, "--out", str(out), "--fuzz-examples", "0",
                     "--figures", "fig1a", "--no-progress"]) == 0
    err = capsys.readouterr().err
    for phase in ("witnesses", "campaigns", f"figure {PACK.id}:fig1a", "figures", "inventory", "latex"):
        assert re.search(rf"^maskverify report: {re.escape(phase)}: .* in \d+\.\d s", err, re.M), (phase, err)
    data = json.loads((out / "report.json").read_text())
    phases = data["generated"]["phases"]
    assert [p["phase"] for p in phases] == ["witnesses", "campaigns", "figures", "inventory", "latex"]
    assert [f["figure"] for f in phases[2]["figures"]] == [f"{PACK.id}:fig1a"]
    assert data["generated"]["elapsed_s"] == pytest.approx(sum(p["seconds"] for p in phases), abs=0.2)
    assert "## Time per phase" in (out / "report.md").read_text()
    assert 'id="phases"' in (out / "report.html").read_text()


def test_the_versions_name_each_packs_own_distribution(monkeypatch):
    """A pack installed from a distribution of its own (a user's paper) has its distribution's
    version among the report's versions; maskverify's own packs add nothing."""
    from importlib import metadata
    from types import SimpleNamespace

    eps = [SimpleNamespace(name="other", dist=SimpleNamespace(name="maskverify_other", version="1.2")),
           SimpleNamespace(name=PACK.id, dist=SimpleNamespace(name="maskverify", version="0.1.0")),
           SimpleNamespace(name="absent", dist=SimpleNamespace(name="maskverify_absent", version="9"))]
    monkeypatch.setattr(metadata, "entry_points", lambda group=None, **kw: eps if group == "maskverify.papers"
                        else [])
    got = report.versions([PACK, OTHER])
    assert got["maskverify_other"] == "1.2" and "maskverify_absent" not in got
    assert list(got).count("maskverify") == 1
