"""Hypothesis campaigns on a pack's inequalities: the runner behind ``maskverify fuzz``.

A ``Campaign`` is one inequality lhs <= rhs of a pack's catalogue (its statement id)
together with the domain its hypotheses allow (a Hypothesis strategy and a description of
it, recorded in every result), ``evaluate(example) -> (ratio, detail)`` with
ratio = lhs / rhs (> ``threshold`` means the inequality fails; ``None`` means the example
is outside what the campaign judges, e.g. the theorem's hypothesis fails or float64 does not
resolve the left side), and ``reproducer(example)``: a one-line Python expression that
recomputes the ratio from the library's public functions, copy-pastable anywhere the
package is installed.  Packs declare their campaigns (``PaperPack.campaigns``).

``run`` drives a ``@given`` test over the campaign's strategy with ``target(ratio)`` (so that
Hypothesis pushes toward the tight region), keeps the worst ratio seen, and on the first
violation lets Hypothesis shrink to a minimal failing example.  A run without a seed uses the
example database ``.hypothesis/maskverify-fuzz`` (relative to the working directory), so a
campaign resumes: a failure once found, and the best examples found for ``target()``, are
replayed first.  A run with a seed (``hypothesis.seed``) is reproducible: the same examples
every time, and so, as Hypothesis does for ``@seed``, it neither reads nor writes the database.
"""
from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.reporting import with_reporter

from theory.core.io import write_json as write_json_file

from . import interrupts

#: the most examples one run (``run``, ``split``) takes: ~1e6 CPU-seconds at the fastest campaigns'
#: ~1 ms an example; a larger count is no search anyone can wait for (10^23 grew memory at 47 MB/s)
MAX_EXAMPLES = 10**9
#: the most tasks ``split`` makes of one campaign (each a record in the store)
MAX_TASKS = 100_000

DATABASE_DIR = ".hypothesis/maskverify-fuzz"
"""The example database, relative to the working directory (campaigns resume from it)."""

Example = dict[str, Any]


@dataclass(frozen=True)
class Campaign:
    """One inequality of the catalogue and the domain it is fuzzed over.

    ``evaluate(example) -> (ratio, detail)``: ratio = lhs / rhs, or ``None`` where the example
    is not judged (why in ``detail["skipped"]``); ``threshold``: the ratio above which the
    inequality fails, ``None`` for a statement with hidden constants (its largest ratio is
    reported, never called a failure).  Examples are dicts of plain floats and lists (JSON as
    they are); ``reproducer(example)`` is a one-line expression that evaluates to the ratio.
    ``recorded``: for each erratum of the pack that covers this campaign (its id, ``E4``), whether a
    counterexample is the failure that erratum records (``errata.covering``); a counterexample no
    predicate claims is a new failure.
    """

    id: str
    statement: str
    ratio_name: str
    domain: str
    judged: str
    strategy: st.SearchStrategy
    evaluate: Callable[[Example], tuple[float | None, dict]]
    reproducer: Callable[[Example], str]
    threshold: float | None = 1.0
    examples: int = 200
    deep_strategy: st.SearchStrategy | None = None
    deep_domain: str | None = None
    recorded: Mapping[str, Callable[[Example], bool]] = field(default_factory=dict, hash=False, compare=False)

    @property
    def statement_id(self) -> str:
        """The short id of the statement fuzzed: the campaign id up to any ``@variant``."""
        return self.id.split("@")[0]


@dataclass
class Result:
    """What one campaign run found.  ``examples_tried`` counts the examples evaluated while
    searching (``shrink_steps`` those evaluated while shrinking a failure); ``valid_examples``
    those judged.  On failure ``shrunk_counterexample`` is Hypothesis's minimal failing
    example and ``reproducer`` recomputes its ratio; otherwise ``reproducer`` is that of the
    worst example.  ``error``: an exception the evaluation raised on an example of the domain
    (a bug, reported with ``error_example``), which ends the run."""

    campaign: str
    statement: str
    ratio_name: str
    domain: str
    judged: str
    threshold: float | None
    seed: int | None
    deep: bool
    database: str | None
    examples_requested: int
    examples_tried: int = 0
    valid_examples: int = 0
    shrink_steps: int = 0
    worst_ratio: float | None = None
    worst_example: Example | None = None
    worst_detail: dict | None = None
    worst_reproducer: str | None = None
    failed: bool = False
    shrunk_counterexample: Example | None = None
    shrunk_ratio: float | None = None
    shrunk_detail: dict | None = None
    reproducer: str | None = None
    error: str | None = None
    error_example: Example | None = None
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def describe_campaigns(campaigns, width: int = 88) -> str:
    """One paragraph per campaign (statement, ratio, threshold, default examples, domain), for
    ``--help``."""
    import textwrap

    out = []
    for c in campaigns:
        thr = (f"fails when the ratio > {c.threshold:g}" if c.threshold is not None
               else "no threshold (hidden constants): the largest value is reported, never a failure")
        text = (f"{c.statement}. Ratio {c.ratio_name}; {thr}; default {c.examples} examples. "
                f"Judged when {c.judged}. Domain: {c.domain}."
                + (" --deep widens it." if c.deep_strategy is not None else ""))
        out.append(f"  {c.id}\n" + textwrap.fill(text, width, initial_indent=" " * 6, subsequent_indent=" " * 6))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------------------

class _Violation(Exception):
    """Raised inside the Hypothesis test when ratio > threshold: Hypothesis then shrinks."""


class _EvaluationError(Exception):
    pass


_TARGET_CAP = 1e300  # target() needs a finite observation


def run(c: Campaign, examples: int | None = None, seed: int | None = None, deep: bool = False,
        progress: bool = True, database: str | None = DATABASE_DIR,
        observe: Callable[[float | None, bool], None] | None = None) -> Result:
    """Fuzz one campaign: up to ``examples`` examples (default the campaign's, 10x with
    ``deep``, which also widens the domain where the campaign has a deep one).

    With ``seed`` the run is reproducible (``hypothesis.seed``: the same examples every time;
    no database, as Hypothesis does for seeded runs).  Without, Hypothesis draws at random and
    the run resumes from, and saves to, the example database ``database`` (None: none).
    ``observe(ratio, shrinking)``, if given, is called after every evaluation (ratio None for
    an example not judged; shrinking True while Hypothesis shrinks a failure): the per-example
    ratios that ``maskverify report`` plots."""
    if examples is None:
        examples = c.examples * (10 if deep else 1)
    if examples < 1:
        raise ValueError(f"examples must be >= 1, got {examples}")
    if seed is not None:
        database = None  # hypothesis.seed turns the database off: a seeded run depends on the seed alone
    strategy, domain = (c.deep_strategy, c.deep_domain) if deep and c.deep_strategy is not None else (c.strategy, c.domain)
    res = Result(campaign=c.id, statement=c.statement, ratio_name=c.ratio_name, domain=domain, judged=c.judged,
                 threshold=c.threshold, seed=seed, deep=deep, database=database, examples_requested=examples)
    if deep and c.deep_strategy is None:
        res.notes.append("no wider deep domain for this campaign: --deep only raises the example count")

    from tqdm import tqdm

    bar = tqdm(total=examples, unit="ex", desc=f"fuzz {c.id}", disable=not progress, leave=False, dynamic_ncols=True)
    state = {"failing": None, "error": None}

    def body(ex):
        interrupts.check()  # a Ctrl-C that a callback swallowed stops the run here
        shrinking = state["failing"] is not None or state["error"] is not None
        if shrinking:
            res.shrink_steps += 1
        else:
            res.examples_tried += 1
            bar.update(1)
        try:
            ratio, detail = c.evaluate(ex)
        except Exception as exc:  # a crash on an example of the domain: a bug, shrunk and reported
            state["error"] = (ex, f"{type(exc).__name__}: {exc}")
            raise _EvaluationError from exc
        if observe is not None:
            observe(ratio, shrinking)
        if ratio is None:
            return
        if not shrinking:
            res.valid_examples += 1
        target(max(-_TARGET_CAP, min(_TARGET_CAP, ratio)) if not math.isnan(ratio) else _TARGET_CAP)
        if res.worst_ratio is None or ratio > res.worst_ratio or math.isnan(ratio):
            res.worst_ratio, res.worst_example, res.worst_detail = ratio, ex, detail
            bar.set_postfix_str(f"worst {c.ratio_name} = {ratio:.4g}", refresh=False)
        if c.threshold is not None and not ratio <= c.threshold:  # NaN fails too
            state["failing"] = (ex, ratio, detail)
            if not shrinking:
                bar.set_description(f"fuzz {c.id}: shrinking a failure")
            raise _Violation

    test = settings(
        max_examples=examples, derandomize=False, deadline=None, print_blob=False,
        report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        database=DirectoryBasedExampleDatabase(database) if database is not None else None,
    )(given(strategy)(body))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    # distinct per campaign and domain, so a saved failure is replayed on its own condition
    test._hypothesis_internal_database_key = f"maskverify-fuzz:{c.id}:{'deep' if deep else 'default'}".encode()

    t0 = time.perf_counter()
    try:
        with with_reporter(lambda *_: None):  # the result, not Hypothesis's report, is the output
            test()
    except _Violation:
        # Hypothesis replays the minimal failing example last: that is state["failing"]
        ex, ratio, detail = state["failing"]
        res.failed = True
        res.shrunk_counterexample, res.shrunk_ratio, res.shrunk_detail = ex, ratio, detail
        res.reproducer = c.reproducer(ex)
    except _EvaluationError:
        ex, msg = state["error"]
        res.error, res.error_example = msg, ex
        res.reproducer = c.reproducer(ex)
    finally:
        bar.close()
        res.elapsed_s = time.perf_counter() - t0
    if res.worst_example is not None:
        res.worst_reproducer = c.reproducer(res.worst_example)
        if res.reproducer is None:
            res.reproducer = res.worst_reproducer
    return res


# ---------------------------------------------------------------------------------------
# A campaign as tasks (numerics.core.execution): seeds x example budgets
# ---------------------------------------------------------------------------------------

def split(campaign: str, examples: int, chunk: int, seed: int | None, deep: bool,
          database: str | None) -> list[dict]:
    """The tasks of a campaign of ``examples`` examples: ceil(examples / chunk) tasks of ``chunk``
    examples (the last one the rest); task i has seed ``seed + i`` (``--seed S+i --examples n_i``
    reproduces it alone), or no seed, every task then sharing the example database ``database``.
    The split depends on these numbers only, never on the number of workers."""
    if examples < 1 or chunk < 1:
        raise ValueError(f"examples and chunk must be >= 1, got {examples}, {chunk}")
    if examples > MAX_EXAMPLES or -(-examples // chunk) > MAX_TASKS:
        raise ValueError(f"{examples:,} examples in tasks of {chunk:,}: at most {MAX_EXAMPLES:,} examples and "
                         f"{MAX_TASKS:,} tasks (a larger --chunk)")
    sizes = [min(chunk, examples - start) for start in range(0, examples, chunk)]
    return [{"campaign": campaign, "task": i, "examples": n, "seed": None if seed is None else seed + i,
             "deep": deep, "database": None if seed is not None else database} for i, n in enumerate(sizes)]


def _ratio(v):
    """A ratio from its JSON form (non-finite floats are the strings of ``_jsonable``)."""
    return float(v) if isinstance(v, str) else v


def merge(parts: list[dict]) -> Result:
    """One ``Result`` from the JSON results of a campaign's tasks (in task order): counts summed,
    the worst ratio the largest (NaN worst; the first task's on a tie), the shrunk counterexample
    and an evaluation error those of the first task that found one, times summed (compute
    seconds, not wall time)."""
    first = parts[0]
    res = Result(campaign=first["campaign"], statement=first["statement"], ratio_name=first["ratio_name"],
                 domain=first["domain"], judged=first["judged"], threshold=first["threshold"], seed=first["seed"],
                 deep=first["deep"], database=first["database"],
                 examples_requested=sum(p["examples_requested"] for p in parts))
    for p in parts:
        res.examples_tried += p["examples_tried"]
        res.valid_examples += p["valid_examples"]
        res.shrink_steps += p["shrink_steps"]
        res.elapsed_s += p["elapsed_s"]
        ratio = _ratio(p["worst_ratio"])
        if ratio is not None and (res.worst_ratio is None or ratio > res.worst_ratio
                                  or (math.isnan(ratio) and not math.isnan(res.worst_ratio))):
            res.worst_ratio, res.worst_example = ratio, p["worst_example"]
            res.worst_detail, res.worst_reproducer = p["worst_detail"], p["worst_reproducer"]
        if p["failed"] and not res.failed:
            res.failed, res.shrunk_counterexample = True, p["shrunk_counterexample"]
            res.shrunk_ratio, res.shrunk_detail = _ratio(p["shrunk_ratio"]), p["shrunk_detail"]
            res.reproducer = p["reproducer"]
        if p["error"] is not None and res.error is None:
            res.error, res.error_example = p["error"], p["error_example"]
            if not res.failed:
                res.reproducer = p["reproducer"]
        res.notes += [n for n in p["notes"] if n not in res.notes]
    if res.reproducer is None:
        res.reproducer = res.worst_reproducer
    if len(parts) > 1:
        seeds = "no seeds (every task shares the example database)" if res.seed is None else (
            f"seeds {res.seed}..{res.seed + len(parts) - 1}")
        res.notes.append(f"{len(parts)} tasks of up to {parts[0]['examples_requested']} examples, {seeds}; "
                         "task i alone: --seed S+i --examples its count")
    return res


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------

def _jsonable(v):
    """Plain JSON: numpy scalars to floats, non-finite floats to the strings 'inf', '-inf', 'nan'."""
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if math.isfinite(v) else repr(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def to_json(result: Result) -> dict:
    return _jsonable(asdict(result))


def write_json(path: str | os.PathLike, result: Result) -> None:
    """Write ``to_json(result)`` atomically (a temporary file in the same directory, then
    ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_file(path, to_json(result))


def _fmt(x) -> str:
    return "none" if x is None else f"{x:.6g}"


def format_result(r: Result) -> str:
    """The human-readable report ``maskverify fuzz`` prints."""
    dump = lambda v: json.dumps(_jsonable(v), allow_nan=False)  # noqa: E731
    lines = [f"campaign {r.campaign}: {r.statement}",
             f"domain: {r.domain}",
             (f"seed {r.seed} (reproducible; no example database)" if r.seed is not None else
              "no seed: random draws" + (f", example database {r.database} (replayed first, then updated)"
                                         if r.database else ", no example database"))
             + ("; deep" if r.deep else ""),
             f"examples tried: {r.examples_tried} of {r.examples_requested}; valid (judged): {r.valid_examples}"
             f" -- judged when {r.judged}"
             + (f"; {r.shrink_steps} more while shrinking" if r.shrink_steps else ""),
             f"time: {r.elapsed_s:.1f} s"]
    lines += [f"note: {n}" for n in r.notes]
    thr = "no threshold (hidden constants)" if r.threshold is None else f"fails above {r.threshold:g}"
    if r.worst_ratio is None:
        lines.append(f"worst {r.ratio_name}: none (no example was judged)")
    else:
        lines.append(f"worst {r.ratio_name} = {r.worst_ratio:.6g} ({thr}) at {dump(r.worst_example)}")
        lines.append(f"  detail: {dump(r.worst_detail)}")
        lines.append(f"  reproduce (a Python expression = the ratio): {r.worst_reproducer}")
    if r.error is not None:
        lines.append(f"ERROR: the evaluation raised {r.error} on an example of the domain (shrunk):")
        lines.append(dump(r.error_example))
        lines.append(f"reproducer: {r.reproducer}")
    elif r.failed:
        lines.append(f"FAILED: {r.statement} is violated; shrunk counterexample "
                     f"({r.ratio_name} = {_fmt(r.shrunk_ratio)} > {r.threshold:g}):")
        lines.append(dump(r.shrunk_counterexample))
        lines.append(f"  detail: {dump(r.shrunk_detail)}")
        lines.append(f"reproducer: {r.reproducer}")
    elif r.threshold is None:
        lines.append(f"no failure threshold: largest {r.ratio_name} found {_fmt(r.worst_ratio)}")
    else:
        lines.append(f"no counterexample in {r.examples_tried} examples (worst {r.ratio_name} {_fmt(r.worst_ratio)})")
    return "\n".join(lines)
