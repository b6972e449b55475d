"""``maskverify report``: for every selected paper pack, its statements, fuzz campaigns, errata
and figures in one document.

The report knows packs only through the registry (``numerics.core.registry``): ``build`` runs
the packs' witnesses (``checkrun.run``, as ``maskverify check`` does; ``deep`` adds the slow
tier), every fuzz campaign of every pack (``fuzzing.run``, seeded, recording the ratio of every
example), draws each pack's figures (``PaperPack.figures``, into ``figures/<pack>/``) and the
fuzzing tightness plot of its campaigns, and loads its errata (``numerics.core.errata.load``).
It returns one JSON-able payload from which ``write`` makes three files, each written
atomically (``theory.core.io.atomic_write``):

- ``report.json``: the payload (per paper: statement rows with qualified ids and provenance,
  fuzz campaigns with their per-example ratios, errata, figures; every witness result, the
  failures, package versions, the command, a UTC timestamp and the git commit);
- ``report.md``: the same for reading on a forge; figures are files under ``figures/``;
- ``report.html``: self-contained (``numerics.app.report_html``).

The exit status of ``maskverify report`` is 0 whenever the report was written, also when
statements fail (the report says so), 2 on bad input (an unknown paper or figure, invalid
errata data) and when pytest could not run the witnesses.
"""
from __future__ import annotations

import contextlib
import json
import math
import platform
import subprocess
import sys
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Callable, Sequence

from numerics.core import errata as errata_data
from numerics.core import cliargs, execution, sources
from numerics.core.cliargs import UsageError, add_paper_argument, count, papers
from theory.core.io import atomic_write

from . import checkrun, coverage, verdicts
from .report_notes import STATEMENTS_NOTE, records_line

SCHEMA = "maskverify-report/2"
ROOT = Path(__file__).resolve().parents[2]
FIGURES_DIR = "figures"
FUZZ_FIGURE = "fuzz"
BAD = ("failed", "error", "xpass")
PACKAGES = ("maskverify", "numpy", "scipy", "sympy", "mpmath", "python-flint", "hypothesis", "pytest",
            "torch", "matplotlib", "markdown-it-py", "tqdm")


class CatalogueError(RuntimeError):
    """pytest could not run the witnesses (interrupted, internal or usage error)."""


def _finite(v):
    """JSON-safe floats: non-finite become the strings 'inf', '-inf', 'nan' (as fuzzing does)."""
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _in_pack(pack, qualified: str) -> bool:
    return qualified.startswith(pack.id + ":")


# ---------------------------------------------------------------------------------------
# Fuzz campaigns
# ---------------------------------------------------------------------------------------

@dataclass
class CampaignRun:
    """A pack's fuzz campaign result and the ratio of every example it tried while searching,
    in order (None: the example was not judged; shrinking steps are not included)."""

    pack: str
    result: object  # fuzzing.Result
    ratios: list[float | None] = field(default_factory=list)
    campaign: object = None  # the fuzzing.Campaign run, whose ``recorded`` predicates the verdict asks

    @property
    def qualified(self) -> str:
        return f"{self.pack}:{self.result.campaign}"


def run_campaigns(packs, *, examples: int | None = None, seed: int = 0, deep: bool = False,
                  progress: bool = True) -> list[CampaignRun]:
    """Run every campaign of ``packs`` seeded with ``seed`` (reproducible, no example database),
    ``examples`` examples each (None: each campaign's default, 10x deep), ``deep`` widening
    the domain as ``maskverify fuzz --deep`` does; records every ratio for the tightness plot."""
    from numerics.core import fuzzing

    runs = []
    for pack in packs:
        for campaign in pack.campaigns:
            ratios: list[float | None] = []

            def observe(ratio, shrinking, ratios=ratios):
                if not shrinking:
                    ratios.append(ratio)

            result = fuzzing.run(campaign, examples=examples, seed=seed, deep=deep, progress=progress,
                                 observe=observe)
            runs.append(CampaignRun(pack.id, result, ratios, campaign))
    return runs


def campaign_json(run: CampaignRun) -> dict:
    """A campaign's ``fuzzing.to_json`` with its qualified id, its paper, every ratio and a
    one-word outcome."""
    from numerics.core import fuzzing

    d = fuzzing.to_json(run.result)
    d["campaign"], d["paper"] = run.qualified, run.pack
    d["ratios"] = [None if r is None else _finite(float(r)) for r in run.ratios]
    d["outcome"] = ("error" if run.result.error else "counterexample" if run.result.failed
                    else "no threshold" if run.result.threshold is None else "no counterexample")
    return d


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------

class FigureUnavailable(Exception):
    """A figure has nothing to draw (the fuzzing plot when no campaign was run)."""


@dataclass(frozen=True)
class ReportFigure:
    """One figure of the report: a pack's ``Figure`` or its fuzzing plot.
    ``produce(out_dir, quick, progress, seed=...) -> [paths]`` (PNG first); ``records``: it also
    takes ``records=`` (``Figure.records``), drawn from ``committed`` (the pack's
    ``PaperPack.records``) where stored."""

    pack: str
    name: str
    caption: str
    produce: Callable[..., list[Path]]
    records: bool = False
    committed: Path | None = None

    @property
    def qualified(self) -> str:
        return f"{self.pack}:{self.name}"


FUZZ_PLOT_RANGE = 1e-6
"""The fuzzing plot's log axis spans this factor below each campaign's largest ratio."""


def fuzz_figure(runs: Sequence[CampaignRun]):
    """The fuzzing tightness plot: per campaign, the ratio of every judged example in search
    order (log scale; dots, those below ``FUZZ_PLOT_RANGE`` x the largest drawn at that floor),
    its running maximum (line), the failure threshold (dashed red) and the shrunk
    counterexample (star) where one was found.  Returns a matplotlib Figure."""
    import numpy as np
    from matplotlib.figure import Figure

    cols = 2 if len(runs) > 1 else 1
    rows = max(1, math.ceil(len(runs) / cols))
    fig = Figure(figsize=(6 * cols, 3.6 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False).ravel())
    for ax in axes[len(runs):]:
        ax.set_visible(False)
    for ax, run in zip(axes, runs):
        r = run.result
        idx = np.array([i for i, v in enumerate(run.ratios) if v is not None], dtype=float)
        val = np.array([v for v in run.ratios if v is not None], dtype=float)
        shown = np.isfinite(val) & (val > 0)
        if shown.any():
            floor = val[shown].max() * FUZZ_PLOT_RANGE
            low = shown & (val < floor)
            ax.plot(idx[shown & ~low], val[shown & ~low], ".", ms=3, color="C0", alpha=0.6, label="judged example")
            if low.any():
                ax.plot(idx[low], np.full(int(low.sum()), floor), "v", ms=3, color="0.6",
                        label=f"below {FUZZ_PLOT_RANGE:g} x max (drawn at the floor)")
            ax.plot(idx[shown], np.maximum.accumulate(val[shown]), "-", color="C1", lw=1.2, label="running max")
            ax.set_yscale("log")
        if r.threshold is not None:
            ax.axhline(r.threshold, color="C3", ls="--", lw=1, label=f"threshold {r.threshold:g}")
        if r.failed and r.shrunk_ratio is not None and math.isfinite(r.shrunk_ratio) and r.shrunk_ratio > 0:
            ax.plot([len(run.ratios)], [r.shrunk_ratio], "*", ms=12, color="C3",
                    label=f"shrunk counterexample ({r.shrunk_ratio:.3g})")
        worst = "none" if r.worst_ratio is None else f"{r.worst_ratio:.3g}"
        outcome = ("ERROR: " + r.error.split("\n")[0][:60] if r.error else "counterexample" if r.failed
                   else "no threshold" if r.threshold is None else "no counterexample")
        hidden = [f"{n} {what}" for n, what in ((int((val <= 0).sum()), "ratios <= 0"),
                                                  (int((~np.isfinite(val)).sum()), "non-finite")) if n]
        ax.set_title(f"{run.qualified}: worst {worst} ({outcome})\n{r.valid_examples} judged of "
                     f"{r.examples_tried} tried" + (f"; not drawn: {', '.join(hidden)}" if hidden else ""), fontsize=8)
        ax.set_xlabel("example (search order)", fontsize=8)
        ax.set_ylabel(r.ratio_name, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    return fig


def _fuzz_plot(runs: Sequence[CampaignRun], out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """Save the tightness plot of ``runs`` as PNG and PDF; ``quick``, ``progress`` and ``seed``
    play no part (the runs are done)."""
    if not runs:
        raise FigureUnavailable("no fuzz campaign was run (--fuzz-examples 0, or the paper has none)")
    fig = fuzz_figure(runs)
    return [atomic_write(out_dir / f"fuzz_tightness.{fmt}", lambda tmp, fmt=fmt: fig.savefig(tmp, format=fmt, dpi=120))
            for fmt in ("png", "pdf")]


def figures_of(pack, runs: Sequence[CampaignRun] = ()) -> list[ReportFigure]:
    """The report's figures of ``pack``: its own (``PaperPack.figures``) in order, then the
    fuzzing tightness plot of its campaigns among ``runs``."""
    mine = [r for r in runs if r.pack == pack.id]
    caption = ("Fuzzing tightness: for every campaign of the paper, the ratio lhs/rhs of each judged example "
               "in search order (Hypothesis pushes it up with target()), its running maximum, the failure "
               "threshold, and the shrunk counterexample where the inequality failed.")
    own = [ReportFigure(pack.id, f.name, f.caption, f.produce, getattr(f, "records", False),
                        getattr(pack, "records", None)) for f in pack.figures]
    if not pack.campaigns:  # no campaign, no tightness plot (rather than a 'not available' one)
        return own
    return own + [ReportFigure(pack.id, FUZZ_FIGURE, caption, partial(_fuzz_plot, mine))]


def select_figures(packs, names: Sequence[str] | None) -> set[str] | None:
    """The qualified names that ``names`` choose among the figures of ``packs`` (None: all):
    ``pack:name``, or a bare ``name`` for that figure of every pack that has it.  A name no
    selected pack has is a ``UsageError``."""
    if names is None:
        return None
    known = [f for p in packs for f in figures_of(p)]
    chosen, unknown = set(), []
    for name in names:
        hits = {f.qualified for f in known if name in (f.qualified, f.name)}
        if not hits:
            unknown.append(name)
        chosen |= hits
    if unknown:
        raise UsageError(f"unknown figure(s) {', '.join(unknown)}; known: "
                         + ", ".join(f.qualified for f in known))
    return chosen


@dataclass
class FigureOutcome:
    """What a figure's producer gave: ``status`` "ok" (``files``, relative to the report's
    folder), "unavailable" (nothing to draw: ``error`` says why) or "failed" (it raised:
    ``error``); ``records``: for a figure drawn from task records, where they came from
    (``execution.Records.summary``: stored for this code version and committed, or computed)."""

    paper: str
    name: str
    caption: str
    status: str
    files: list[str]
    error: str | None
    seconds: float
    records: dict | None = None


RECORDS_DIR = "records"
"""Where a report writes the task records it computes (``records/<pack>/``, an execution store):
what to copy into a pack's ``PaperPack.records`` folder to refresh the committed ones."""


def draw_figures(figures: Sequence[ReportFigure], out_dir, *, quick: bool = True, progress: bool = True,
                 seed: int = 0, rerun: bool = False, say: Callable[[str], None] | None = None,
                 engine=None) -> list[FigureOutcome]:
    """Call every figure's producer with ``out_dir/figures/<pack>`` (created); a producer
    that has nothing to draw or raises is recorded in the figure's place, never hidden.  A
    figure with ``records`` is given an ``execution.Records`` that reads the pack's committed
    records (unless ``rerun``) and writes what it computes under ``out_dir/records/<pack>``
    (``engine``: where those tasks run, default a local cluster started only if one is needed).
    ``say`` is told one line per figure as it is done, with its time."""
    from tqdm import tqdm

    out = Path(out_dir)
    outcomes = []
    for f in tqdm(figures, desc="figures", unit="fig", disable=not progress, leave=False):
        fig_dir = out / FIGURES_DIR / f.pack
        fig_dir.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        files, error, status, rec = [], None, "ok", None
        try:
            kw = {}
            if f.records:
                rec = execution.Records.for_report(out / RECORDS_DIR / f.pack, f.committed, rerun=rerun,
                                                   engine=engine)
                kw["records"] = rec
            files = [_relative(Path(p), out) for p in f.produce(fig_dir, quick, progress, seed=seed, **kw)]
        except FigureUnavailable as exc:
            status, error = "unavailable", str(exc)
        except Exception as exc:  # a producer's bug is reported in the figure's place
            status = "failed"
            error = f"{type(exc).__name__}: {exc}\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
        summary = rec.summary() if rec is not None else None
        outcomes.append(FigureOutcome(f.pack, f.qualified, f.caption, status, files, error,
                                      time.perf_counter() - t0, summary))
        if say is not None:
            how = records_line(summary)
            say(f"figure {f.qualified}: {status} in {outcomes[-1].seconds:.1f} s" + (f"; {how}" if how else ""))
    return outcomes


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it lies inside it (POSIX form), else absolute."""
    path = path if path.is_absolute() else Path.cwd() / path
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


# ---------------------------------------------------------------------------------------
# Statements and errata
# ---------------------------------------------------------------------------------------

def _ratio_at(results: list, outcome: str) -> dict | None:
    """The largest ratio recorded by tests with ``outcome``, with the test and its detail."""
    best = None
    for r in results:
        if r.outcome == outcome and r.ratio is not None and (best is None or r.ratio > best.ratio):
            best = r
    return None if best is None else {"value": _finite(best.ratio), "test": best.nodeid, "detail": best.detail}


def _row_json(row: checkrun.Row, pack, results: list, runs: Sequence[CampaignRun], found: Sequence) -> dict:
    """One statement row: qualified id, reference, title, kind, provenance, status, each
    witness's cell and counts, worst relative error, fewest digits, the largest ratio of a
    passing test ("tightest") and of a recorded finding, its fuzz campaigns, its errata."""
    short = pack.paper.short(row.statement) if pack is not None else None
    st = pack.paper.catalogue.get(short) if pack is not None else None
    mine = [r for r in results if r.statement == row.statement]
    return {
        "id": row.statement, "ref": row.ref, "provenance": row.provenance,
        "title": st.title if st else None, "kind": st.kind.value if st else None,
        **row.verdict.as_json(),
        "witnesses": {w: {"cell": row.cell(w), "counts": dict(row.cells.get(w, {}))} for w in checkrun.WITNESSES},
        "worst_rel_err": _finite(row.error), "digits": _finite(row.digits),
        "tightest_ratio": _ratio_at(mine, "passed"), "finding_ratio": _ratio_at(mine, "xfail"),
        "fuzz": [{"campaign": run.qualified, "worst_ratio": _finite(run.result.worst_ratio),
                  "threshold": run.result.threshold, "failed": run.result.failed,
                  "error": run.result.error is not None}
                 for run in runs if pack is not None and run.pack == pack.id
                 and run.result.campaign.split("@")[0] == short],
        "errata": [e.qualified for e in found if short in e.statements],
    }


def erratum_json(e: errata_data.Erratum, pack=None) -> dict:
    """An erratum's fields, its qualified id and its Markdown (``entry_markdown``, level 4: the
    report's heading depth, its reproducers run from where ``pack`` lives: ``errata.runs_from``),
    which report.md and report.html show."""
    return {**asdict(e), "qualified": e.qualified,
            "markdown": errata_data.entry_markdown(e, level=4, where=errata_data.runs_from(pack))}


def summary(code: int, results: list, rows: list[dict], campaigns: list[dict], n_errata: int,
            figures: list[FigureOutcome]) -> dict:
    """Counts for a report's or a paper's head: statements by status, witness tests by
    outcome (a test witnessing several statements counts once), fuzz campaigns, errata,
    figures; and a one-line verdict."""
    tests = list({r.nodeid: r for r in results}.values())
    outcomes = Counter(r.outcome for r in tests)
    failed = sum(outcomes[o] for o in BAD)
    s = {
        "statements": len(rows), "statements_by_status": verdicts.counts(r["status"] for r in rows),
        "witness_tests": len(tests), "passed": outcomes["passed"], "failed": failed,
        "findings": outcomes["xfail"], "skipped": outcomes["skipped"],
        "errata": n_errata,
        "fuzz_campaigns": len(campaigns),
        "fuzz_counterexamples": sum(c["outcome"] == "counterexample" for c in campaigns),
        "fuzz_errors": sum(c["outcome"] == "error" for c in campaigns),
        "figures": {k: sum(f.status == k for f in figures) for k in ("ok", "unavailable", "failed")},
        "pytest_exit_code": code,
    }
    if failed:
        verdict = f"{failed} witness test{'s' * (failed != 1)} FAILED (listed under Failures)"
    elif not tests:
        verdict = "no witness test ran"
    else:
        verdict = "every witness test passed or recorded a known finding"
    s["verdict"] = verdict
    return s


# ---------------------------------------------------------------------------------------
# Provenance
# ---------------------------------------------------------------------------------------

def versions(packs=()) -> dict:
    """Python, the platform, the installed versions of the packages the suite uses, and of the
    distribution of every pack of ``packs`` that is not maskverify's own (a user's paper)."""
    from importlib import metadata

    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    ids = {p.id for p in packs}
    for ep in metadata.entry_points(group="maskverify.papers"):
        dist = getattr(ep, "dist", None)
        if ep.name in ids and dist is not None and dist.name not in out:
            out[dist.name] = dist.version
    return out


def git_state(root: Path = ROOT) -> dict | None:
    """The checkout's commit and whether tracked files differ from it; None outside git."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return {"commit": head.stdout.strip(),
                "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None}
    except (OSError, subprocess.SubprocessError):
        return None


# ---------------------------------------------------------------------------------------
# Build and write
# ---------------------------------------------------------------------------------------

def assemble(packs, code: int, results: list, *, runs: Sequence[CampaignRun] = (),
             figures: Sequence[FigureOutcome] = (), errata: dict | None = None, meta: dict | None = None,
             deep: bool = False, inventory: list | None = None) -> dict:
    """The report's payload (what ``report.json`` holds and the Markdown and HTML render) from
    the packs, a witness run's pytest exit code and ``WitnessResult`` list, the fuzz runs, the
    figure outcomes, the errata (``{pack id: [Erratum]}``) and provenance ``meta``.  Each
    statement's verdict is ``verdicts.judge``'s (``checkrun.judge_rows``: ``deep`` says the slow
    tier ran; ``inventory``, the witnesses of every tier, is collected when None).

    One section per pack (its statements in paper order, campaigns, errata, figures, its own
    summary); statements the results name outside every pack (e.g. a failing machinery test)
    are listed under ``other_statements``."""
    errata = errata or {}
    rows = checkrun.table(results, packs)
    checkrun.judge_rows(rows, results, packs, deep=deep, items=inventory,
                        errata={p.id: errata.get(p.id, []) for p in packs}, runs=runs)
    papers_out, placed = [], set()
    for pack in packs:
        found = errata.get(pack.id, [])
        mine = [r for r in results if _in_pack(pack, r.statement)]
        pack_rows = [_row_json(row, pack, mine, runs, found) for row in rows if _in_pack(pack, row.statement)]
        placed |= {r["id"] for r in pack_rows}
        campaigns = [campaign_json(r) for r in runs if r.pack == pack.id]
        figs = [f for f in figures if f.paper == pack.id]
        cov = coverage.from_statement_rows(pack, pack_rows)
        papers_out.append({
            "id": pack.id, "title": pack.title, "authors": list(pack.paper.authors),
            "reference": pack.paper.reference,
            "summary": {**summary(code, mine, pack_rows, campaigns, len(found), figs), "coverage": cov["counts"]},
            "coverage": cov,
            "statements": pack_rows, "fuzz": campaigns,
            "errata": [erratum_json(e, pack) for e in found], "figures": [asdict(f) for f in figs],
        })
    others = [_row_json(row, None, results, (), ()) for row in rows if row.statement not in placed]
    all_rows = [r for p in papers_out for r in p["statements"]] + others
    failures = [{"nodeid": r.nodeid, "statement": r.statement, "witness": r.witness, "outcome": r.outcome,
                 "message": r.message} for r in results if r.outcome in BAD]
    return {
        "schema": SCHEMA,
        "generated": dict(meta or {}),
        "summary": {**summary(code, results, all_rows, [c for p in papers_out for c in p["fuzz"]],
                              sum(len(p["errata"]) for p in papers_out), list(figures)),
                    "coverage": coverage.total(p["coverage"] for p in papers_out)},
        "papers": papers_out,
        "other_statements": others,
        "failures": failures,
        "witness_results": [{k: _finite(v) for k, v in asdict(r).items()} for r in results],
    }


def say(line: str) -> None:
    """One line of the report's progress on stderr, whatever ``--no-progress`` says (bars are
    what it turns off): each phase when it starts and, with its time, when it ends."""
    print(f"maskverify report: {line}", file=sys.stderr, flush=True)


class Phases:
    """The report's phases and how long each took: ``with phases("witnesses"): ...`` says the
    phase's start and end (``say``) and records ``{"phase", "seconds"}`` plus what the block adds
    to ``detail``."""

    def __init__(self, tell: Callable[[str], None] | None = say):
        self.done: list[dict] = []
        self.tell = tell or (lambda line: None)

    @contextlib.contextmanager
    def __call__(self, name: str, start: str | None = None):
        detail: dict = {}
        self.tell(start or f"{name}...")
        t0 = time.perf_counter()
        try:
            yield detail
        finally:
            secs = time.perf_counter() - t0
            self.done.append({"phase": name, "seconds": round(secs, 1), **detail})
            self.tell(f"{name}: {detail.get('line', 'done')} in {secs:.1f} s")

    def add(self, name: str, seconds: float, **detail) -> None:
        self.done.append({"phase": name, "seconds": round(seconds, 1), **detail})


def build(packs, out_dir, *, deep: bool = False, select: str | None = None, fuzz_examples: int | None = None,
          seed: int = 0, quick: bool = True, figures: set[str] | None = None, errata: dict | None = None,
          command: str | None = None, progress: bool = True, workers: int | None = None, rerun: bool = False,
          phases: Phases | None = None) -> dict:
    """Load the packs' errata unless given (``{pack id: [Erratum]}``; first, so that invalid
    data is a ``ValueError`` before any long run), run their witnesses (``checkrun.run(packs, deep, select)``), their fuzz campaigns
    (``fuzz_examples`` each, None the campaigns' defaults, 0 none; seeded with ``seed``), draw
    their figures (``figures``: qualified names, None all; ``quick`` the reduced sizes) into
    ``out_dir/figures/<pack>``; return the payload.  ``workers``: the witnesses' worker
    processes (None: ``checkrun``'s default, every core).  ``rerun``: figures drawn from task
    records (``Figure.records``) recompute every task instead of taking the pack's committed
    records.  ``phases`` records each phase's time (and says it as it goes: ``say``); the payload
    holds them as ``generated.phases``.  Raises ``CatalogueError`` when pytest could not run the
    witnesses (exit code 2, 3 or 4)."""
    t0 = time.perf_counter()
    started = datetime.now(timezone.utc)
    phases = Phases() if phases is None else phases
    found = errata if errata is not None else {pack.id: errata_data.load(pack) for pack in packs}
    with phases("witnesses", "witnesses: running every pack's " + ("tiers" if deep else "default tier")
                + " (pytest)...") as d:
        code, results = checkrun.run(packs, deep=deep, select=select, progress=progress, workers=workers)
        tests = len({r.nodeid for r in results})
        d.update(line=f"{tests} witness tests, pytest exit code {code}", tests=tests)
    if code in (2, 3, 4):
        raise CatalogueError(f"pytest could not run the witnesses (exit code {code})")
    with phases("campaigns", "campaigns: running every pack's fuzz campaigns...") as d:
        runs = [] if fuzz_examples == 0 else run_campaigns(packs, examples=fuzz_examples, seed=seed, deep=deep,
                                                           progress=progress)
        d.update(line=f"{len(runs)} fuzz campaigns", campaigns=len(runs))
    chosen = [f for pack in packs for f in figures_of(pack, runs) if figures is None or f.qualified in figures]
    if rerun:  # a rerun computes every task afresh: no record of an earlier report in this folder either
        import shutil

        shutil.rmtree(Path(out_dir) / RECORDS_DIR, ignore_errors=True)
    with phases("figures", f"figures: drawing {len(chosen)}...") as d, execution.Engine(quiet=not progress) as engine:
        drawn = draw_figures(chosen, out_dir, quick=quick, progress=progress, seed=seed, rerun=rerun,
                             say=phases.tell, engine=engine)
        d.update(line=f"{sum(f.status == 'ok' for f in drawn)} of {len(drawn)} drawn",
                 figures=[{"figure": f.name, "seconds": round(f.seconds, 1), "status": f.status,
                           "source": (f.records or {}).get("source")} for f in drawn])
    with phases("inventory", "inventory: collecting the other tiers' witnesses (for the verdicts)...") as d:
        inventory = checkrun.inventory(packs)
        d.update(line=f"{len(inventory)} witness entries")
    meta = {"timestamp": started.isoformat(timespec="seconds"), "command": command,
            "papers": [p.id for p in packs], "tier": "deep" if deep else "default", "select": select,
            "fuzz_examples": fuzz_examples, "seed": seed, "quick_figures": quick, "rerun": rerun,
            "git": git_state(), "versions": versions(packs), "elapsed_s": round(time.perf_counter() - t0, 1),
            "phases": phases.done}
    return assemble(packs, code, results, runs=runs, figures=drawn, errata=found, meta=meta, deep=deep,
                    inventory=inventory)


def write(payload: dict, out_dir) -> list[Path]:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``out_dir`` atomically;
    the figures' files must already be there (``draw_figures``)."""
    from .report_html import render_html

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [atomic_write(out / "report.json", json.dumps(payload, indent=1, allow_nan=False, ensure_ascii=False)
                         + "\n"),
            atomic_write(out / "report.md", render_markdown(payload)),
            atomic_write(out / "report.html", render_html(payload, out))]


# ---------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------

def fmt(v, spec: str) -> str:
    """A number for the tables: '-' for None, the string as is for 'inf'/'nan'."""
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return format(v, spec)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_lines(s: dict, tier: str | None = None) -> list[str]:
    """A summary (``summary``) as plain sentences (the Markdown and the terminal)."""
    by, figs = s["statements_by_status"], s["figures"]
    return [
        f"Verdict: {s['verdict']}.",
        f"{s['statements']} statements: " + ", ".join(f"{n} {k}" for k, n in by.items() if n) + ".",
        f"{s['witness_tests']} witness tests ({tier or '?'} tier): {s['passed']} passed, {s['failed']} failed, "
        f"{s['findings']} recorded findings, {s['skipped']} skipped; pytest exit code {s['pytest_exit_code']}.",
        f"{s['fuzz_campaigns']} fuzz campaigns: {s['fuzz_counterexamples']} found a counterexample, "
        f"{s['fuzz_errors']} raised an error.",
        f"{s['errata']} errata entries. Figures: {figs['ok']} drawn, {figs['unavailable']} not available, "
        f"{figs['failed']} failed.",
        "Coverage: " + (sources.line(s["coverage"]) if s.get("coverage") else "no source index") + ".",
    ]


def phases_line(phases: list[dict]) -> str:
    """'witnesses 141.2 s, campaigns 60.1 s, figures 52.0 s, ...; 260.3 s in all'."""
    if not phases:
        return "not recorded"
    total = sum(p["seconds"] for p in phases)
    return ", ".join(f"{p['phase']} {p['seconds']:.1f} s" for p in phases) + f"; {total:.1f} s in all"


def _phases_markdown(g: dict) -> list[str]:
    """The report's time per phase, each figure's under the figures phase (with how it was made)."""
    phases = g.get("phases") or []
    if not phases:
        return []
    L = ["## Time per phase", "", "| phase | seconds | detail |", "|---|---|---|"]
    for p in phases:
        L.append(f"| {p['phase']} | {p['seconds']:.1f} | {_cell(p.get('line', ''))} |")
        for f in p.get("figures", ()):
            how = f" ({f['source']})" if f.get("source") else ""
            L.append(f"| &nbsp;&nbsp;`{f['figure']}` | {f['seconds']:.1f} | {f['status']}{how} |")
    L += ["", f"In all {sum(p['seconds'] for p in phases):.1f} s.", ""]
    return L


def _ratio(r: dict | None) -> str:
    return "-" if r is None else fmt(r["value"], ".3g")


def _fuzz_cell(row: dict) -> str:
    parts = []
    for f in row["fuzz"]:
        tag = "error" if f["error"] else "FAILS" if f["failed"] else "ok"
        parts.append(f"{f['campaign']}: {fmt(f['worst_ratio'], '.3g')} ({tag})")
    return "; ".join(parts) or "-"


def _statement_table(rows: list[dict]) -> list[str]:
    head = ["statement", "paper reference", "provenance", "kind", "status", *checkrun.WITNESSES,
            "worst rel. err", "digits", "tightest ratio", "finding ratio", "fuzz", "errata"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        status = r["status"] if r["status"] in verdicts.POSITIVE else f"{r['status']}: {r['reason']}"
        if r.get("readings"):
            status += "; readings: " + ", ".join(f"{x['id']} {x['outcome']}" for x in r["readings"])
        cells = [f"`{r['id']}`", r["ref"], r["provenance"], r["kind"] or "-", status,
                 *(r["witnesses"][w]["cell"] for w in checkrun.WITNESSES),
                 fmt(r["worst_rel_err"], ".1e"), fmt(r["digits"], ".1f"), _ratio(r["tightest_ratio"]),
                 _ratio(r["finding_ratio"]), _fuzz_cell(r), ", ".join(r["errata"]) or "-"]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return out


def _coverage_markdown(cov: dict) -> list[str]:
    """A paper's coverage: its line, then every result not carried by a holding statement, grouped
    by bucket (not carried first), each with where it stands, its quote and why."""
    L = ["### Coverage of the paper", "", cov["line"] + ".", ""]
    for b in coverage.LISTED:
        mine = [r for r in cov["results"] if r["bucket"] == b]
        if not mine:
            continue
        L += [f"**{b.capitalize()}** ({len(mine)}):", "", "| result | section | quote | why |", "|---|---|---|---|"]
        L += ["| " + " | ".join(_cell(x) for x in (
            coverage.printed(r), r["section"], r["quote"], r["detail"])) + " |"
            for r in mine]
        L.append("")
    return L


def _paper_markdown(p: dict, tier: str | None, own_summary: bool) -> list[str]:
    """One paper's section of report.md; its summary only when the report has several papers."""
    L = [f"## {p['title']} (`{p['id']}`)", "", f"{', '.join(p['authors'])}; {p['reference']}.", ""]
    if own_summary:
        L += [f"- {line}" for line in summary_lines(p["summary"], tier)] + [""]
    L += _coverage_markdown(p["coverage"])
    L += ["### Statements", "", STATEMENTS_NOTE, "", *_statement_table(p["statements"])]
    L += ["", "### Fuzz campaigns", ""]
    if p["fuzz"]:
        L += ["| campaign | statement | tried | judged | worst ratio | threshold | outcome |",
              "|---|---|---|---|---|---|---|"]
        for c in p["fuzz"]:
            L.append("| " + " | ".join(_cell(x) for x in (
                f"`{c['campaign']}`", c["statement"], c["examples_tried"], c["valid_examples"],
                fmt(c["worst_ratio"], ".4g"), fmt(c["threshold"], "g"), c["outcome"])) + " |")
        for c in p["fuzz"]:
            if c["error"]:
                L += ["", f"`{c['campaign']}` raised on an example of its domain: {c['error'].splitlines()[0]}"]
            if c["reproducer"]:
                L += ["", f"`{c['campaign']}` reproducer ({'counterexample' if c['failed'] else 'worst example'}):",
                      "", "```python", c["reproducer"], "```"]
    else:
        L.append("No campaign was run.")
    L += ["", "### Errata", ""]
    L += [e["markdown"] for e in p["errata"]] or ["No errata recorded.", ""]
    L += ["### Figures", ""]
    for f in p["figures"]:
        L += [f"#### {f['name']}", "", f["caption"], ""]
        if f["status"] == "ok":
            for path in f["files"]:
                L.append(f"![{f['name']}]({path})" if path.endswith((".png", ".svg")) else f"- [{path}]({path})")
            L.append("")
        if f.get("records"):
            L += [f"*{records_line(f['records'])}*", ""]
        else:
            first = (f["error"] or "").splitlines()[0] if f["error"] else ""
            L += [f"> **Figure {'not available' if f['status'] == 'unavailable' else 'failed'}**: {first}", ""]
    return L


def render_markdown(payload: dict) -> str:
    """``report.md``: the overall summary and failures, then per paper its summary, statement
    table, fuzz campaigns (with reproducers), errata, figures (files under ``figures/``); any
    statement outside every paper; provenance."""
    g = payload["generated"]
    L = ["# maskverify report", ""]
    L += [f"- *{p['title']}* (`{p['id']}`): {', '.join(p['authors'])}; {p['reference']}" for p in payload["papers"]]
    L += ["", f"Generated {g.get('timestamp', '?')} by `{g.get('command') or 'numerics.app.report.build'}`"
          + (f" at commit `{g['git']['commit'][:12]}`{' (with local changes)' if g['git'].get('dirty') else ''}"
             if g.get("git") else "") + ".", "", "## Summary", ""]
    L += [f"- {line}" for line in summary_lines(payload["summary"], g.get("tier"))]
    L += ["", "## Failures", ""]
    if payload["failures"]:
        for f in payload["failures"]:
            L.append(f"- **{f['outcome'].upper()}** `{f['nodeid']}` ({f['statement']}, {f['witness']}): "
                     f"{f['message'] or ''}")
    else:
        L.append("No witness test failed.")
    L.append("")
    for p in payload["papers"]:
        L += _paper_markdown(p, g.get("tier"), len(payload["papers"]) > 1)
    if payload["other_statements"]:
        L += ["## Other statements", "", "Statements the witness results name outside every paper.", "",
              *_statement_table(payload["other_statements"]), ""]
    L += _phases_markdown(g)
    L += ["## Provenance", "", f"- command: `{g.get('command')}`", f"- timestamp (UTC): {g.get('timestamp')}",
          f"- git: {g.get('git')}", f"- papers: {', '.join(g.get('papers') or [])}",
          f"- tier: {g.get('tier')}; -k: {g.get('select')}; fuzz examples: {g.get('fuzz_examples')}; "
          f"seed: {g.get('seed')}; quick figures: {g.get('quick_figures')}", f"- elapsed: {g.get('elapsed_s')} s",
          "- versions: " + ", ".join(f"{k} {v}" for k, v in (g.get("versions") or {}).items())]
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

def add_subcommand(sub) -> None:
    """Register ``maskverify report`` on the CLI's subparsers."""
    import argparse

    from numerics.core import registry

    known = ", ".join(f.qualified for p in registry.select(None) for f in figures_of(p)) or "none"
    p = sub.add_parser(
        "report", help="run everything and write report.md, a self-contained report.html and report.json",
        description="For every paper pack (or those --paper names): run its witnesses (as 'maskverify check'\n"
                    "does), its fuzz campaigns (seeded), draw its figures, load its errata, and write one\n"
                    "report in three forms: report.md, report.html (self-contained: figures embedded as PNG\n"
                    "data URIs, no external CSS, scripts or fonts) and report.json (machine-readable).",
        epilog=(
            "Contents: a summary and the failing tests; per paper, its summary, one row per statement\n"
            "(qualified id, paper reference, provenance, kind, each witness's outcome, worst relative\n"
            "error, digits, the tightest ratio a passing test recorded, the ratio of recorded findings,\n"
            "the worst ratio of its fuzz campaigns, the errata that name it), its fuzz campaigns with\n"
            "reproducers, its errata (from its errata data), and its figures: the pack's own and the\n"
            "fuzzing tightness plot (ratio of every example per campaign); provenance (command, UTC\n"
            "timestamp, git commit, package versions).  Beside it, latex/: every pack's LaTeX\n"
            "(fragments and document under latex/<pack>/, a master document for all).\n\n"
            f"Figures (--figures takes these names, or a bare name for every paper that has it):\n  {known}\n\n"
            "Files, in DIR: report.md, report.html, report.json, figures/<pack>/ (PNG, PDF and the\n"
            "figures' data), latex/.  Every file is written atomically.\n\n"
            "Time: the default tier takes a few minutes on 2 cores (mostly the witnesses); --deep adds\n"
            "the slow tier and runs the fuzz campaigns deep (10x examples, wider domains); the\n"
            "figures are drawn at reduced sizes unless --full-figures.  Figures whose runs are tasks\n"
            "(PaperPack.records; the masking pack's Fig. 3(a) and Section 6) are drawn from the task\n"
            "records the pack commits where they are stored for this code version (the report says\n"
            "when and where they were computed); what is not stored is computed and written under\n"
            "DIR/records/<pack>/; --rerun computes everything.  One line per phase, with its time, is\n"
            "printed on stderr (also with --no-progress), and the report gives the time per phase.\n\n"
            "Exit status: 0 when the report was written, also when statements fail (the report says\n"
            "so); 2 on bad input (unknown paper or figure, invalid errata data) or when pytest could\n"
            "not run the witnesses (nothing is written).\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_paper_argument(p)
    p.add_argument("--out", metavar="DIR", default="maskverify-report", type=cliargs.output("dir"),
                   help="output directory, created if missing (default ./maskverify-report)")
    p.add_argument("--deep", action="store_true",
                   help="include the slow tier of the witnesses and run the fuzz campaigns deep (long)")
    p.add_argument("-k", metavar="EXPR", type=checkrun.k_expression,
                   help="only witness tests matching this pytest -k expression")
    p.add_argument("-n", "--workers", metavar="N", default=None,
                   type=count(1, execution.max_local_workers, "8 per core, 512 MiB each"),
                   help=f"worker processes of the witnesses (pytest-xdist; default every core: "
                        f"{checkrun.default_workers()})")
    p.add_argument("--fuzz-examples", metavar="N", type=count(0), default=None,
                   help="examples per fuzz campaign (default: each campaign's own; 0 skips fuzzing)")
    p.add_argument("--seed", metavar="S", type=count(0), default=0,
                   help="seed of the figures and of the fuzz campaigns (default 0)")
    p.add_argument("--figures", metavar="NAMES", default=None,
                   help="only these figures, comma-separated (default all; see below)")
    p.add_argument("--full-figures", action="store_true", help="the figures at the papers' sizes (slow)")
    p.add_argument("--rerun", action="store_true",
                   help="recompute the figures drawn from task records (Section 6's runs, ...) instead of taking "
                        "the records each pack commits for this code version; the records computed are "
                        "written under DIR/records/<pack>/")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars (one line per phase, with its time, is still printed on stderr)")
    p.set_defaults(func=run)


def _command(args) -> str:
    """The command line that reproduces this report."""
    parts = ["maskverify", "report"]
    for pid in args.paper or ():
        parts += ["--paper", pid]
    parts += ["--out", str(args.out)]
    if args.deep:
        parts.append("--deep")
    if args.k:
        parts += ["-k", repr(args.k)]
    if args.workers is not None:
        parts += ["-n", str(args.workers)]
    if args.fuzz_examples is not None:
        parts += ["--fuzz-examples", str(args.fuzz_examples)]
    parts += ["--seed", str(args.seed)]
    if args.figures is not None:
        parts += ["--figures", args.figures]
    if args.full_figures:
        parts.append("--full-figures")
    if getattr(args, "rerun", False):
        parts.append("--rerun")
    return " ".join(parts)


def _latex(out_dir: Path, packs) -> list[Path]:
    """The LaTeX export beside the report (``theory.core.latex.export_all``: each pack's
    fragments and document in ``<pack>/``, the master document for all), and its PDF when
    ``latex_cmd`` offers a compiler and a TeX engine is installed (else a message says so)."""
    from theory.core.latex import MASTER, export_all

    paths = export_all([p.paper for p in packs], out_dir)
    try:
        from .latex_cmd import compile_pdf, find_engine
    except ImportError:  # latex_cmd is being reworked; the .tex files are written all the same
        return paths
    if find_engine() is None:
        print(f"maskverify report: no TeX engine (latexmk or pdflatex) on PATH, so no PDF of {MASTER} "
              "(maskverify latex --help says what to install)")
        return paths
    try:
        paths.append(compile_pdf(out_dir / MASTER))
    except RuntimeError as exc:
        print(f"maskverify report: {MASTER} did not compile:\n{exc}", file=sys.stderr)
    return paths


def run(args) -> int:
    """``maskverify report``: check the input, build, write (with the LaTeX export), print the
    summary; 0 written, 2 the witnesses could not run.  Bad input is a ``UsageError``."""
    packs = papers(args)
    names = None if args.figures is None else [n.strip() for n in args.figures.split(",") if n.strip()]
    chosen = select_figures(packs, names)
    try:
        found = {pack.id: errata_data.load(pack) for pack in packs}
    except ValueError as exc:  # a pack's errata data is invalid: the message names file and entry
        raise UsageError(str(exc)) from None
    phases = Phases()
    try:
        payload = build(packs, args.out, deep=args.deep, select=args.k, fuzz_examples=args.fuzz_examples,
                        seed=args.seed, quick=not args.full_figures, figures=chosen, errata=found,
                        command=_command(args), progress=not args.no_progress, workers=args.workers,
                        rerun=getattr(args, "rerun", False), phases=phases)
    except CatalogueError as exc:
        print(f"maskverify report: {exc}; no report written", file=sys.stderr)
        return 2
    with phases("latex", "latex: exporting every pack's formulas...") as d:
        latex = _latex(Path(args.out) / "latex", packs)
        d.update(line=f"{len(latex)} files")
    payload["generated"]["elapsed_s"] = round(sum(p["seconds"] for p in phases.done), 1)
    written = write(payload, args.out)
    print("\n".join(summary_lines(payload["summary"], payload["generated"]["tier"])))
    print("Time: " + phases_line(payload["generated"]["phases"]) + ".")
    for p in payload["papers"]:
        for f in p["figures"]:
            if f["status"] != "ok":
                print(f"figure {f['name']}: {f['status']}: {(f['error'] or '').splitlines()[0]}")
    for path in written:
        print(f"wrote {path}")
    print(f"wrote {len(latex)} LaTeX files under {Path(args.out) / 'latex'}")
    return 0
