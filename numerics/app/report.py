"""``maskverify report``: the whole catalogue, the fuzz campaigns, the errata and the figures
in one document.

``build`` runs the verification catalogue (``checkrun.run``, the tests in ``verify/``, as
``maskverify check`` does; ``deep`` adds the slow tier), every fuzz campaign of
``numerics.core.fuzzing`` (seeded, recording the ratio of every example), draws the figures of
``figure_producers`` (the paper's Figs. 1 and 2 at reduced sizes, the fuzzing tightness plot,
and Figs. 3(a), 3(b) from ``numerics.masking.training`` and ``numerics.masking.fedavg`` when those exist) and
parses ``notes/errata.md`` (``parse_errata``).  It returns one JSON-able payload from which
``write`` makes three files, each written atomically:

- ``report.json``: the payload (every statement row, every witness result, the fuzz
  campaigns with their per-example ratios, the errata, the figures, package versions, the
  command, a UTC timestamp and the git commit);
- ``report.md``: the same for reading on a forge; figures are files under ``figures/``;
- ``report.html``: self-contained (``numerics.app.report_html``): figures as base64 PNG data
  URIs, inline CSS, no script, and a Content-Security-Policy that forbids loading anything
  from outside the file.

The exit status of ``maskverify report`` is 0 whenever the report was written, also when
statements fail (the report says so), and 2 when pytest could not run the catalogue.
"""
from __future__ import annotations

import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import checkrun
from numerics.core.cliargs import count

PAPER = "Convergence Analysis of Two-Layer Neural Networks under Gaussian Input Masking"
SCHEMA = "maskverify-report/1"
ROOT = Path(__file__).resolve().parents[1]
ERRATA = ROOT / "notes" / "errata.md"
FIGURES_DIR = "figures"
BAD = ("failed", "error", "xpass")
PACKAGES = ("maskverify", "numpy", "scipy", "sympy", "mpmath", "python-flint", "hypothesis", "pytest",
            "torch", "matplotlib", "tqdm")


class CatalogueError(RuntimeError):
    """pytest could not run the catalogue (interrupted, internal or usage error)."""


# ---------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sizes:
    """How much work the report's figures and fuzz campaigns do.

    ``samples``: Monte Carlo masks per point of Figs. 1(b) and 2 (the paper's script: 200000);
    ``points``: values of z in [-2.1, 2.1] for Figs. 1(a) and 2 (paper: 400);
    ``fuzz_examples``: examples per fuzz campaign (None: each campaign's default, 10x deep);
    ``seed``: the seed of the Monte Carlo and of every fuzz campaign.
    """

    samples: int = 20_000
    points: int = 161
    fuzz_examples: int | None = None
    seed: int = 0

    def __post_init__(self):
        if self.samples < 2:
            raise ValueError(f"samples must be >= 2, got {self.samples}")
        if self.points < 2:
            raise ValueError(f"points must be >= 2, got {self.points}")
        if self.fuzz_examples is not None and self.fuzz_examples < 1:
            raise ValueError(f"fuzz_examples must be >= 1, got {self.fuzz_examples}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")


QUICK = Sizes()
"""The default: Figs. 1-2 at a tenth of the paper's masks, every campaign at its default size."""
FULL = Sizes(samples=200_000, points=400)
"""The paper's sizes for Figs. 1-2 (``--full-figures``)."""


# ---------------------------------------------------------------------------------------
# Errata
# ---------------------------------------------------------------------------------------

_HEADING = re.compile(r"^##\s+(E\d+)\s*[.:]?\s*(.*?)\s*$")
_BULLET = re.compile(r"^[-*]\s+\*\*(.+?)\*\*\s*(.*)$")
_CODE = re.compile(r"`([^`\n]+)`")
_SHELL = ("pytest", "maskverify", "python", "make", "bash")


@dataclass(frozen=True)
class Reproducer:
    """One reproducer command: ``kind`` "shell" (it starts with pytest, maskverify, python ...)
    or "python" (an expression with a call, to evaluate with the package imported)."""

    kind: str
    command: str


@dataclass(frozen=True)
class Erratum:
    """One entry of ``notes/errata.md``: ``## E<n>. title`` followed by ``- **Label**: text``
    bullets (``sections``, in order).  ``statement`` is the "Paper" bullet, ``wrong`` the
    "Wrong" one, ``counterexample`` the first bullet whose label mentions a counterexample,
    ``reproduce`` the "Reproduce" bullet and ``reproducers`` the commands quoted in it;
    ``statements``: the catalogue ids the entry quotes in backticks.  A missing bullet is None
    (or empty)."""

    id: str
    title: str
    sections: tuple[tuple[str, str], ...]
    statement: str | None
    wrong: str | None
    counterexample: str | None
    reproduce: str | None
    reproducers: tuple[Reproducer, ...]
    statements: tuple[str, ...]


def _section(sections, test: Callable[[str], bool]) -> str | None:
    return next((text for label, text in sections if test(label.lower())), None)


def _reproducers(text: str | None) -> tuple[Reproducer, ...]:
    if not text:
        return ()
    out = []
    for code in _CODE.findall(text):
        code = code.strip()
        if code.split()[0] in _SHELL:
            out.append(Reproducer("shell", code))
        elif "(" in code:  # a bare name (a test id, a module) is a pointer, not a command
            out.append(Reproducer("python", code))
    return tuple(out)


def _mentions(text: str, statement_ids: Iterable[str]) -> tuple[str, ...]:
    """Catalogue ids quoted in backticks, alone or with a ``:part`` suffix, in order."""
    known = set(statement_ids)
    found = []
    for code in _CODE.findall(text):
        sid = code.strip().split(":")[0]
        if sid in known and sid not in found:
            found.append(sid)
    return tuple(found)


def _entry(eid: str, title: str, lines: list[str], statement_ids) -> Erratum:
    sections: list[list[str]] = []
    for line in lines:
        m = _BULLET.match(line)
        if m:
            label, rest = m.group(1).strip().rstrip(":"), m.group(2)
            sections.append([label, rest[1:].lstrip() if rest.startswith(":") else rest])
        elif not sections:
            if line.strip():
                sections.append(["Text", line.strip()])
        else:
            body = line[2:] if line.startswith("  ") else line
            sections[-1][1] += "\n" + body.rstrip()
    secs = tuple((label, text.strip()) for label, text in sections)
    reproduce = _section(secs, lambda lab: lab.startswith("reproduc"))
    everything = title + "\n" + "\n".join(text for _, text in secs)
    return Erratum(
        id=eid, title=title, sections=secs,
        statement=_section(secs, lambda lab: lab.startswith("paper")),
        wrong=_section(secs, lambda lab: lab.startswith("wrong")),
        counterexample=_section(secs, lambda lab: "counterexample" in lab),
        reproduce=reproduce, reproducers=_reproducers(reproduce),
        statements=_mentions(everything, statement_ids))


def parse_errata(text: str, statement_ids: Iterable[str] = ()) -> list[Erratum]:
    """The entries of an errata file in Markdown: each starts at a heading ``## E<n>. title``
    and runs to the next ``##`` heading (text before the first entry is ignored).  Within an
    entry, a bullet ``- **Label**`` (optionally followed by ``(context)`` and ``:``) at the
    start of a line begins a section, indented lines continue it (tables included), and text
    before the first bullet becomes a section "Text".  Line endings may be LF or CRLF."""
    ids = tuple(statement_ids)
    entries: list[Erratum] = []
    current: tuple[str, str, list[str]] | None = None
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw.startswith("## ") or raw.startswith("##\t"):
            if current is not None:
                entries.append(_entry(*current, ids))
            m = _HEADING.match(raw)
            current = (m.group(1), m.group(2), []) if m else None
        elif current is not None:
            current[2].append(raw)
    if current is not None:
        entries.append(_entry(*current, ids))
    return entries


def erratum_json(e: Erratum) -> dict:
    d = asdict(e)
    d["sections"] = [{"label": label, "text": text} for label, text in e.sections]
    return d


# ---------------------------------------------------------------------------------------
# Fuzz campaigns
# ---------------------------------------------------------------------------------------

@dataclass
class CampaignRun:
    """A fuzz campaign's result and the ratio of every example it tried while searching, in
    order (None: the example was not judged; shrinking steps are not included)."""

    result: object  # fuzzing.Result
    ratios: list[float | None] = field(default_factory=list)


def run_campaigns(sizes: Sizes = QUICK, *, deep: bool = False, ids: Sequence[str] | None = None,
                  progress: bool = True) -> list[CampaignRun]:
    """Run the fuzz campaigns ``ids`` (default all of ``fuzzing.CAMPAIGNS``) seeded with
    ``sizes.seed`` (reproducible, no example database), ``sizes.fuzz_examples`` examples each,
    ``deep`` widening the domain as ``maskverify fuzz --deep`` does; records every ratio."""
    from numerics.core import fuzzing

    runs = []
    for cid in (list(fuzzing.CAMPAIGNS) if ids is None else ids):
        ratios: list[float | None] = []

        def observe(ratio, shrinking, ratios=ratios):
            if not shrinking:
                ratios.append(ratio)

        result = fuzzing.run(cid, examples=sizes.fuzz_examples, seed=sizes.seed, deep=deep, progress=progress,
                             observe=observe)
        runs.append(CampaignRun(result, ratios))
    return runs


def _finite(v):
    """JSON-safe floats: non-finite become the strings 'inf', '-inf', 'nan' (as fuzzing does)."""
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def campaign_json(run: CampaignRun) -> dict:
    from numerics.core import fuzzing

    d = fuzzing.to_json(run.result)
    d["ratios"] = [None if r is None else _finite(float(r)) for r in run.ratios]
    d["outcome"] = ("error" if run.result.error else "counterexample" if run.result.failed
                    else "no threshold" if run.result.threshold is None else "no counterexample")
    return d


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------

class ProducerUnavailable(Exception):
    """A figure's producer has nothing to draw (e.g. no fuzz campaign was run)."""


@dataclass(frozen=True)
class FigureProducer:
    """One figure of the report: ``produce(out_dir, quick) -> [paths of PNG/PDF/... files]``.
    ``quick`` asks for a reduced run (the default report); producers that take their sizes
    from ``Sizes`` ignore it."""

    name: str
    caption: str
    produce: Callable[[Path, bool], list[Path]]


def _training_figure(which: str, progress: bool, out_dir: Path, quick: bool) -> list[Path]:
    """Fig. 3(a) (``numerics.masking.fig3a.reproduce_fig3a``) or 3(b) (``numerics.masking.fedavg.reproduce_fig3b``)."""
    if which == "fig3a":
        from numerics.masking.fig3a import reproduce_fig3a as produce
    else:
        from numerics.masking.fedavg import reproduce_fig3b as produce
    return [Path(p) for p in produce(out_dir, quick=quick, progress=progress)]


def _paper_figure(which: str, sizes: Sizes, progress: bool, out_dir: Path, quick: bool) -> list[Path]:
    """Draw ``numerics.masking.figures``' Fig. 1(a), 1(b) or 2 (both panels, one Monte Carlo) at
    ``sizes`` and save each panel (PNG, PDF, CSV, JSON); ``quick`` plays no part."""
    from tqdm import tqdm

    from numerics.masking import figures

    work = {"fig1a": 0, "fig1b": sizes.samples * len(figures.KAPPAS_1B), "fig2": sizes.samples * sizes.points}[which]
    with tqdm(total=work, unit="relu", unit_scale=True, disable=not progress or work == 0, leave=False,
              desc=f"{which} Monte Carlo") as bar:
        if which == "fig1a":
            panels = [figures.fig1a(sizes.points)]
        elif which == "fig1b":
            panels = [figures.fig1b(sizes.samples, sizes.seed, bar)]
        else:
            panels = list(figures.fig2(sizes.samples, sizes.seed, sizes.points, bar))
    return [p for panel in panels for p in figures.save(panel, out_dir)]


def _save_figure(fig, out_dir: Path, name: str) -> list[Path]:
    paths = []
    for fmt in ("png", "pdf"):
        path = out_dir / f"{name}.{fmt}"
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=path.name + ".", suffix=".tmp")
        os.close(fd)
        try:
            fig.savefig(tmp, format=fmt, dpi=120)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        paths.append(path)
    return paths


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
        ax.set_title(f"{r.campaign}: worst {worst} ({outcome})\n{r.valid_examples} judged of {r.examples_tried} "
                     "tried" + (f"; not drawn: {', '.join(hidden)}" if hidden else ""), fontsize=8)
        ax.set_xlabel("example (search order)", fontsize=8)
        ax.set_ylabel(r.ratio_name, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    return fig


def _fuzz_producer(runs, out_dir, quick):
    if not runs:
        raise ProducerUnavailable("no fuzz campaign was run (--fuzz-examples 0)")
    return _save_figure(fuzz_figure(runs), out_dir, "fuzz_tightness")


def figure_producers(sizes: Sizes = QUICK, runs: Sequence[CampaignRun] = (), *,
                     progress: bool = True) -> list[FigureProducer]:
    """The report's figures, in order: Figs. 1(a), 1(b), 2(a)+(b) at ``sizes``; the fuzzing
    tightness plot of ``runs`` (unavailable without runs); Figs. 3(a) and 3(b) from
    ``numerics.masking.fig3a`` and ``numerics.masking.fedavg``."""
    mc = f"{sizes.samples} masks per point, seed {sizes.seed}"
    return [
        FigureProducer("fig1a", "Fig. 1(a): the paper's proxy σ̂ = z Φ(z/κ) (solid) and the exact smoothed ReLU "
                                "σ̃ = E_c[ReLU] (dashed) at ‖w⊙x‖ = 1 for κ ∈ {0.01, 0.1, 0.2, 0.5, 1}; ReLU "
                                f"dotted ({sizes.points} points, no Monte Carlo).",
                       partial(_paper_figure, "fig1a", sizes, progress)),
        FigureProducer("fig1b", "Fig. 1(b): σ̂, σ̃ and a Monte Carlo over raw masks as κ varies at wᵀx = 0.77, "
                                "‖w⊙x‖ = 1; lower panel MC − theory with its z-test. The Monte Carlo "
                                f"matches σ̃; the proxy σ̂ is rejected once κ is not small (erratum E6). ({mc})",
                       partial(_paper_figure, "fig1b", sizes, progress)),
        FigureProducer("fig2", "Fig. 2(a), 2(b): at κ = 0.2 the exact σ̃ (a) and the proxy σ̂ (b) against one "
                               "Monte Carlo over z; the proxy misses s φ(z/s), 0.0798 at z = 0 (Remark 4.4). "
                               f"({sizes.points} points, {mc})",
                       partial(_paper_figure, "fig2", sizes, progress)),
        FigureProducer("fuzz", "Fuzzing tightness: for every campaign of `maskverify fuzz`, the ratio lhs/rhs of "
                               "each judged example in search order (Hypothesis pushes it up with target()), its "
                               "running maximum, the failure threshold, and the shrunk counterexample where the "
                               f"inequality failed (seed {sizes.seed}).",
                       partial(_fuzz_producer, list(runs))),
        FigureProducer("fig3a", "Fig. 3(a): clean loss L(W_k) of masked gradient descent, eq. (1), per κ "
                                "(mean over mask seeds, band min–max), the expected dynamics on the exact "
                                "E_C[∇L_C] dashed (quick run only), the rate (1 − ηλ₀/2)^k L(W₀) of Theorems "
                                "5.2/5.6 dotted; right: the paired excess floor(κ) − floor(0) with 95% intervals "
                                "and its fitted power of κ (maskverify train; quick: n = 60, d = 10, m = 20, "
                                "300 steps; full: the paper's n = 500, d = 20, m = 100, 2000 steps).",
                       partial(_training_figure, "fig3a", progress)),
        FigureProducer("fig3b", "Fig. 3(b): FedAvg over a fading channel (each worker's inputs masked by "
                                "c ~ N(1, κ²I) per step): clean loss against rounds and against total gradient "
                                "steps, per κ and number of local steps (maskverify train --workers; our "
                                "settings, the paper gives none).",
                       partial(_training_figure, "fig3b", progress)),
    ]


@dataclass
class FigureOutcome:
    """What a producer gave: ``status`` "ok" (``files``), "unavailable" (its module or function
    does not exist: ``error`` says which) or "failed" (it raised: ``error``)."""

    name: str
    caption: str
    status: str
    files: list[str]
    error: str | None
    seconds: float


def draw_figures(producers: Sequence[FigureProducer], out_dir: Path, *, quick: bool = True,
                 progress: bool = True) -> list[FigureOutcome]:
    """Call every producer with ``out_dir/figures`` (created); files are recorded relative to
    ``out_dir``.  A producer that is unavailable or raises is recorded, never hidden."""
    from tqdm import tqdm

    fig_dir = Path(out_dir) / FIGURES_DIR
    fig_dir.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for p in tqdm(producers, desc="figures", unit="fig", disable=not progress, leave=False):
        t0 = time.perf_counter()
        files, error, status = [], None, "ok"
        try:
            files = [_relative(Path(f), Path(out_dir)) for f in p.produce(fig_dir, quick)]
        except ProducerUnavailable as exc:
            status, error = "unavailable", str(exc)
        except Exception as exc:  # a producer's bug is reported in the figure's place
            status = "failed"
            error = f"{type(exc).__name__}: {exc}\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
        outcomes.append(FigureOutcome(p.name, p.caption, status, files, error, time.perf_counter() - t0))
    return outcomes


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it lies inside it (POSIX form), else absolute."""
    path = path if path.is_absolute() else Path.cwd() / path
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


# ---------------------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------------------

def status(row: checkrun.Row) -> str:
    """'fails' (a witness failed, errored or an expected failure passed), 'finding' (only
    passes and recorded findings, i.e. an erratum), 'holds' (only passes), 'not run'."""
    counts = Counter()
    for c in row.cells.values():
        counts.update(c)
    if any(counts.get(o) for o in BAD):
        return "fails"
    if counts.get("xfail"):
        return "finding"
    return "holds" if counts.get("passed") else "not run"


def _ratio_at(results: list, outcome: str) -> dict | None:
    """The largest ratio recorded by tests with ``outcome``, with the test and its detail."""
    best = None
    for r in results:
        if r.outcome == outcome and r.ratio is not None and (best is None or r.ratio > best.ratio):
            best = r
    return None if best is None else {"value": _finite(best.ratio), "test": best.nodeid, "detail": best.detail}


def statement_rows(results: list, runs: Sequence[CampaignRun], errata: Sequence[Erratum]) -> list[dict]:
    """One dict per statement (``checkrun.table``: every catalogue statement, in paper order,
    then any statement only the results name): id, paper reference, title, kind, status,
    each witness's cell and outcome counts, worst relative error, fewest digits, the largest
    ratio recorded by a passing test ("tightest") and by a recorded finding, the fuzz
    campaigns of the statement, and the errata that quote it."""
    from theory.masking.catalogue import CATALOGUE

    out = []
    for row in checkrun.table(results):
        st = CATALOGUE.get(row.statement)
        mine = [r for r in results if r.statement == row.statement]
        out.append({
            "id": row.statement, "ref": row.ref,
            "title": st.title if st else None, "kind": st.kind.value if st else None,
            "status": status(row),
            "witnesses": {w: {"cell": row.cell(w), "counts": dict(row.cells.get(w, {}))} for w in checkrun.WITNESSES},
            "worst_rel_err": _finite(row.error), "digits": _finite(row.digits),
            "tightest_ratio": _ratio_at(mine, "passed"), "finding_ratio": _ratio_at(mine, "xfail"),
            "fuzz": [{"campaign": run.result.campaign, "worst_ratio": _finite(run.result.worst_ratio),
                      "threshold": run.result.threshold, "failed": run.result.failed,
                      "error": run.result.error is not None}
                     for run in runs if run.result.campaign.split("@")[0] == row.statement],
            "errata": [e.id for e in errata if row.statement in e.statements],
        })
    return out


def summary(code: int, results: list, rows: list[dict], campaigns: list[dict], errata: list,
            figures: list[FigureOutcome]) -> dict:
    """Counts for the report's head: statements by status, witness tests by outcome (a test
    witnessing several statements counts once), fuzz campaigns, errata, figures; and a
    one-line verdict."""
    tests = list({r.nodeid: r for r in results}.values())
    outcomes = Counter(r.outcome for r in tests)
    by_status = Counter(r["status"] for r in rows)
    failed = sum(outcomes[o] for o in BAD)
    s = {
        "statements": len(rows), "statements_by_status": {k: by_status.get(k, 0)
                                                         for k in ("holds", "finding", "fails", "not run")},
        "witness_tests": len(tests), "passed": outcomes["passed"], "failed": failed,
        "findings": outcomes["xfail"], "skipped": outcomes["skipped"],
        "errata": len(errata),
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

def versions() -> dict:
    """Python, the platform, and the installed versions of the packages the suite uses."""
    from importlib import metadata

    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
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

def assemble(code: int, results: list, *, runs: Sequence[CampaignRun] = (), figures: Sequence[FigureOutcome] = (),
             errata: Sequence[Erratum] = (), meta: dict | None = None) -> dict:
    """The report's payload (what ``report.json`` holds and the Markdown and HTML render)
    from a catalogue run's pytest exit code and ``WitnessResult`` list, the fuzz runs, the
    figure outcomes, the errata and provenance ``meta`` (command, timestamp, ...)."""
    campaigns = [campaign_json(r) for r in runs]
    rows = statement_rows(results, runs, errata)
    failures = [{"nodeid": r.nodeid, "statement": r.statement, "witness": r.witness, "outcome": r.outcome,
                 "message": r.message} for r in results if r.outcome in BAD]
    return {
        "schema": SCHEMA, "paper": PAPER,
        "generated": dict(meta or {}),
        "summary": summary(code, results, rows, campaigns, list(errata), list(figures)),
        "statements": rows,
        "failures": failures,
        "witness_results": [{k: _finite(v) for k, v in asdict(r).items()} for r in results],
        "fuzz": campaigns,
        "errata": [erratum_json(e) for e in errata],
        "figures": [asdict(f) for f in figures],
    }


def build(out_dir, *, deep: bool = False, select: str | None = None, sizes: Sizes = QUICK, quick: bool = True,
          campaigns: Sequence[str] | None = None, figures: Sequence[str] | None = None, errata_path: Path = ERRATA,
          command: str | None = None, progress: bool = True) -> dict:
    """Run the catalogue (``checkrun.run(deep, select)``), the fuzz campaigns (``campaigns``:
    ids, default all, an empty list for none), draw the figures (``figures``: producer names,
    default all) into ``out_dir/figures`` and parse ``errata_path``; return the payload.
    Raises ``CatalogueError`` when pytest could not run the catalogue (exit code 2, 3 or 4)."""
    t0 = time.perf_counter()
    started = datetime.now(timezone.utc)
    code, results = checkrun.run(deep=deep, select=select, progress=progress)
    if code in (2, 3, 4):
        raise CatalogueError(f"pytest could not run the catalogue (exit code {code})")
    runs = run_campaigns(sizes, deep=deep, ids=campaigns, progress=progress)
    producers = [p for p in figure_producers(sizes, runs, progress=progress) if figures is None or p.name in figures]
    drawn = draw_figures(producers, Path(out_dir), quick=quick, progress=progress)
    from theory.masking.catalogue import CATALOGUE

    errata_file = Path(errata_path)
    errata = parse_errata(errata_file.read_text(encoding="utf-8"), CATALOGUE) if errata_file.exists() else []
    meta = {"timestamp": started.isoformat(timespec="seconds"), "command": command,
            "tier": "deep" if deep else "default", "select": select, "sizes": asdict(sizes), "quick_figures": quick,
            "errata_file": str(errata_file) if errata_file.exists() else f"{errata_file} (missing)",
            "git": git_state(), "versions": versions(), "elapsed_s": round(time.perf_counter() - t0, 1)}
    return assemble(code, results, runs=runs, figures=drawn, errata=errata, meta=meta)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then ``os.replace`` it there (with the
    permissions a plain ``open`` would give, not mkstemp's 0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(payload: dict, out_dir) -> list[Path]:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``out_dir`` atomically;
    the figures' files must already be there (``draw_figures``)."""
    from .report_html import render_html

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.json", out / "report.md", out / "report.html"]
    _atomic_write(paths[0], json.dumps(payload, indent=1, allow_nan=False, ensure_ascii=False) + "\n")
    _atomic_write(paths[1], render_markdown(payload))
    _atomic_write(paths[2], render_html(payload, out))
    return paths


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


def summary_lines(payload: dict) -> list[str]:
    """The summary as plain sentences (the Markdown head and the terminal)."""
    s, g = payload["summary"], payload["generated"]
    by = s["statements_by_status"]
    figs = s["figures"]
    return [
        f"Verdict: {s['verdict']}.",
        f"{s['statements']} statements: {by['holds']} hold in every witness, {by['finding']} have recorded "
        f"findings (errata), {by['fails']} fail, {by['not run']} not run.",
        f"{s['witness_tests']} witness tests ({g.get('tier', '?')} tier): {s['passed']} passed, {s['failed']} failed, "
        f"{s['findings']} recorded findings, {s['skipped']} skipped; pytest exit code {s['pytest_exit_code']}.",
        f"{s['fuzz_campaigns']} fuzz campaigns: {s['fuzz_counterexamples']} found a counterexample, "
        f"{s['fuzz_errors']} raised an error.",
        f"{s['errata']} errata entries. Figures: {figs['ok']} drawn, {figs['unavailable']} not available, "
        f"{figs['failed']} failed.",
    ]


def _ratio(r: dict | None) -> str:
    return "-" if r is None else fmt(r["value"], ".3g")


def _fuzz_cell(row: dict) -> str:
    parts = []
    for f in row["fuzz"]:
        tag = "error" if f["error"] else "FAILS" if f["failed"] else "ok"
        parts.append(f"{f['campaign']}: {fmt(f['worst_ratio'], '.3g')} ({tag})")
    return "; ".join(parts) or "-"


def render_markdown(payload: dict) -> str:
    """``report.md``: summary, the statement table, failures, fuzz campaigns, errata (with
    their reproducers), figures (as files under ``figures/``) and provenance."""
    g = payload["generated"]
    L = ["# maskverify report", "", f"*{payload['paper']}*", "",
         f"Generated {g.get('timestamp', '?')} by `{g.get('command') or 'numerics.app.report.build'}`"
         + (f" at commit `{g['git']['commit'][:12]}`{' (with local changes)' if g['git'].get('dirty') else ''}"
            if g.get("git") else "") + ".", "", "## Summary", ""]
    L += [f"- {line}" for line in summary_lines(payload)]
    L += ["", "## Statements", "",
          "One row per statement of the catalogue. A witness cell reads `ok N` (N tests passed), `FAIL k/N`, "
          "`finding N` (an expected failure recorded in the errata: the paper is wrong there) or `-` (no such "
          "witness). *Tightest ratio*: the largest ratio a passing test recorded (for a bound, lhs/rhs; for a "
          "Monte Carlo, |z| over its bound); *finding ratio*: the same over recorded findings; *fuzz*: the "
          "worst ratio of the statement's fuzz campaigns.", ""]
    head = ["statement", "paper reference", "kind", "status", *checkrun.WITNESSES, "worst rel. err", "digits",
            "tightest ratio", "finding ratio", "fuzz", "errata"]
    L += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in payload["statements"]:
        cells = [f"`{r['id']}`", r["ref"], r["kind"] or "-", r["status"],
                 *(r["witnesses"][w]["cell"] for w in checkrun.WITNESSES),
                 fmt(r["worst_rel_err"], ".1e"), fmt(r["digits"], ".1f"), _ratio(r["tightest_ratio"]),
                 _ratio(r["finding_ratio"]), _fuzz_cell(r), ", ".join(r["errata"]) or "-"]
        L.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    L += ["", "## Failures", ""]
    if payload["failures"]:
        for f in payload["failures"]:
            L.append(f"- **{f['outcome'].upper()}** `{f['nodeid']}` ({f['statement']}, {f['witness']}): "
                     f"{f['message'] or ''}")
    else:
        L.append("No witness test failed.")
    L += ["", "## Fuzz campaigns", "",
          "| campaign | statement | tried | judged | worst ratio | threshold | outcome |", "|---|---|---|---|---|---|---|"]
    for c in payload["fuzz"]:
        L.append("| " + " | ".join(_cell(x) for x in (
            f"`{c['campaign']}`", c["statement"], c["examples_tried"], c["valid_examples"],
            fmt(c["worst_ratio"], ".4g"), fmt(c["threshold"], "g"), c["outcome"])) + " |")
    for c in payload["fuzz"]:
        if c["error"]:
            L += ["", f"`{c['campaign']}` raised on an example of its domain: {c['error'].splitlines()[0]}"]
        if c["reproducer"]:
            L += ["", f"`{c['campaign']}` reproducer ({'counterexample' if c['failed'] else 'worst example'}):",
                  "", "```python", c["reproducer"], "```"]
    if not payload["fuzz"]:
        L.append("| (no campaign was run) | | | | | | |")
    L += ["", "## Errata", "", "Parsed from `notes/errata.md`.", ""]
    for e in payload["errata"]:
        L += [f"### {e['id']}. {e['title']}", ""]
        for label, key in (("Statement (paper)", "statement"), ("What is wrong", "wrong"),
                           ("Counterexample", "counterexample")):
            if e[key]:
                L.append(f"- **{label}**: " + e[key].replace("\n", "\n  "))
        if e["statements"]:
            L.append("- **Catalogue statements**: " + ", ".join(f"`{s}`" for s in e["statements"]))
        if e["reproducers"]:
            L += ["- **Reproduce**:", ""]
            for rep in e["reproducers"]:
                L += [f"  ```{'bash' if rep['kind'] == 'shell' else 'python'}", f"  {rep['command']}", "  ```"]
        else:
            L.append("- **Reproduce**: " + (e["reproduce"] or "no reproducer given").replace("\n", " "))
        L.append("")
    L += ["## Figures", ""]
    for f in payload["figures"]:
        L += [f"### {f['name']}", "", f["caption"], ""]
        if f["status"] == "ok":
            for path in f["files"]:
                L.append(f"![{f['name']}]({path})" if path.endswith((".png", ".svg")) else f"- [{path}]({path})")
            L.append("")
        else:
            first = (f["error"] or "").splitlines()[0] if f["error"] else ""
            L += [f"> **Figure {'not available' if f['status'] == 'unavailable' else 'failed'}**: {first}", ""]
    L += ["## Provenance", "", f"- command: `{g.get('command')}`", f"- timestamp (UTC): {g.get('timestamp')}",
          f"- git: {g.get('git')}", f"- tier: {g.get('tier')}; -k: {g.get('select')}; sizes: {g.get('sizes')}; "
          f"quick figures: {g.get('quick_figures')}", f"- elapsed: {g.get('elapsed_s')} s",
          "- versions: " + ", ".join(f"{k} {v}" for k, v in (g.get("versions") or {}).items())]
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

def add_subcommand(sub) -> None:
    """Register ``maskverify report`` on the CLI's subparsers."""
    import argparse

    p = sub.add_parser(
        "report", help="run everything and write report.md, a self-contained report.html and report.json",
        description="Run the whole verification catalogue (as 'maskverify check' does), every fuzz campaign\n"
                    "(seeded), redraw the figures, parse notes/errata.md, and write one report in three\n"
                    "forms: report.md, report.html (self-contained: figures embedded as PNG data URIs, no\n"
                    "external CSS, scripts or fonts) and report.json (machine-readable).",
        epilog=(
            "Contents: a summary (statements by status, witness tests passed/failed/findings, fuzz\n"
            "counterexamples, errata); one row per catalogue statement (paper reference, kind, each\n"
            "witness's outcome, worst relative error, digits, the tightest ratio a passing test\n"
            "recorded, the ratio of recorded findings, the worst ratio of its fuzz campaigns, the\n"
            "errata that quote it); the failing tests; the fuzz campaigns with reproducers; the\n"
            "errata (statement, what is wrong, counterexample, reproducer commands); the figures:\n"
            "Figs. 1(a), 1(b), 2(a)+(b) (at --samples/--points), the fuzzing tightness plot (ratio\n"
            "of every example per campaign), Figs. 3(a), 3(b) (from numerics.masking.training and\n"
            "numerics.masking.fedavg; where a producer does not exist yet, the report says so in its place);\n"
            "provenance (command, UTC timestamp, git commit, package versions).\n\n"
            "Files, in DIR: report.md, report.html, report.json, and figures/ (PNG, PDF, and for\n"
            "Figs. 1-2 their CSV and JSON data).  Every file is written atomically.\n\n"
            "Time: the default tier takes a few minutes on 2 cores (mostly the catalogue); --deep\n"
            "adds the slow tier and runs the fuzz campaigns deep (10x examples, wider domains).\n\n"
            "Exit status: 0 when the report was written, also when statements fail (the report\n"
            "says so); 2 when pytest could not run the catalogue (nothing is written).\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="DIR", default="maskverify-report",
                   help="output directory, created if missing (default ./maskverify-report)")
    p.add_argument("--deep", action="store_true",
                   help="include the slow tier of the catalogue and run the fuzz campaigns deep (long)")
    p.add_argument("-k", metavar="EXPR", help="only catalogue tests matching this pytest -k expression")
    p.add_argument("--samples", metavar="N", type=count(2), default=None,
                   help=f"Monte Carlo masks per point for Figs. 1(b), 2 (default {QUICK.samples}; "
                        f"{FULL.samples} with --full-figures)")
    p.add_argument("--points", metavar="P", type=count(2), default=None,
                   help=f"points of z for Figs. 1(a), 2 (default {QUICK.points}; {FULL.points} with --full-figures)")
    p.add_argument("--fuzz-examples", metavar="N", type=count(0), default=None,
                   help="examples per fuzz campaign (default: each campaign's own; 0 skips fuzzing)")
    p.add_argument("--seed", metavar="S", type=count(0), default=0,
                   help="seed of the figures' Monte Carlo and of the fuzz campaigns (default 0)")
    names = [f.name for f in figure_producers()]

    def figure_names(text: str) -> list[str]:
        chosen = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in chosen if n not in names]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(names)}")
        return chosen

    p.add_argument("--figures", metavar="NAMES", type=figure_names, default=None,
                   help=f"only these figures, comma-separated (default all: {','.join(names)})")
    p.add_argument("--full-figures", action="store_true",
                   help="the paper's sizes: Figs. 1-2 at 200000 masks and 400 points, Fig. 3 not quick")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def _command(args) -> str:
    """The command line that reproduces this report."""
    parts = ["maskverify", "report", "--out", str(args.out)]
    if args.deep:
        parts.append("--deep")
    if args.k:
        parts += ["-k", repr(args.k)]
    for flag, value in (("--samples", args.samples), ("--points", args.points),
                        ("--fuzz-examples", args.fuzz_examples)):
        if value is not None:
            parts += [flag, str(value)]
    parts += ["--seed", str(args.seed)]
    if args.figures is not None:
        parts += ["--figures", ",".join(args.figures)]
    if args.full_figures:
        parts.append("--full-figures")
    return " ".join(parts)


def _latex(out_dir: Path) -> list[Path]:
    """The LaTeX export beside the report (``maskverify latex``), and formulas.pdf when a TeX
    engine is installed (else a message says what to install)."""
    from theory.core.latex import MASTER, export

    from .latex_cmd import compile_pdf, find_engine, no_engine_message

    export(out_dir)
    paths = [out_dir / MASTER]
    if find_engine() is None:
        print(no_engine_message().replace("maskverify latex --pdf", "maskverify report: no formulas.pdf"))
        return paths
    try:
        paths.append(compile_pdf(out_dir / MASTER))
    except RuntimeError as exc:
        print(f"maskverify report: formulas.pdf did not compile:\n{exc}", file=sys.stderr)
    return paths


def run(args) -> int:
    """``maskverify report``: build, write (with the LaTeX export and its PDF), print the
    summary; 0 written, 2 catalogue not run."""
    base = FULL if args.full_figures else QUICK
    sizes = Sizes(samples=args.samples or base.samples, points=args.points or base.points,
                  fuzz_examples=args.fuzz_examples or None, seed=args.seed)
    try:
        payload = build(args.out, deep=args.deep, select=args.k, sizes=sizes, quick=not args.full_figures,
                        campaigns=[] if args.fuzz_examples == 0 else None, figures=args.figures,
                        command=_command(args),
                        progress=not args.no_progress)
    except CatalogueError as exc:
        print(f"maskverify report: {exc}; no report written", file=sys.stderr)
        return 2
    paths = write(payload, args.out) + _latex(Path(args.out) / "latex")
    print("\n".join(summary_lines(payload)))
    for f in payload["figures"]:
        if f["status"] != "ok":
            print(f"figure {f['name']}: {f['status']}: {(f['error'] or '').splitlines()[0]}")
    for path in paths:
        print(f"wrote {path}")
    return 0
