"""Hypothesis campaigns on the catalogue's inequalities: ``maskverify fuzz``.

A ``Campaign`` is one inequality lhs <= rhs of the catalogue (``theory/``'s statement id)
together with the domain its hypotheses allow (a Hypothesis strategy and a description of
it, recorded in every result), ``evaluate(example) -> (ratio, detail)`` with
ratio = lhs / rhs (> ``threshold`` means the inequality fails; ``None`` means the example
is outside what the campaign judges, e.g. the theorem's hypothesis fails or float64 does not
resolve the left side), and ``reproducer(example)``: a one-line Python expression that
recomputes the ratio from the library's public functions, copy-pastable anywhere the
package is installed.

``run`` drives a ``@given`` test over the campaign's strategy with ``target(ratio)`` (so that
Hypothesis pushes toward the tight region), keeps the worst ratio seen, and on the first
violation lets Hypothesis shrink to a minimal failing example.  A run without a seed uses the
example database ``.hypothesis/maskverify-fuzz`` (relative to the working directory), so a
campaign resumes: a failure once found, and the best examples found for ``target()``, are
replayed first.  A run with a seed (``hypothesis.seed``) is reproducible: the same examples
every time, and so, as Hypothesis does for ``@seed``, it neither reads nor writes the database.

Registered campaigns (``CAMPAIGNS``):

- ``thm.4.2``: Theorem 4.2, eq. (4), |E| <= m n (kappa^2 R_u^2 psi_max^2 + (kappa^2 R_u^2
  + kappa R_w) phi_max^2), float64 ``numerics.network.theorem_4_2`` at moderate kappa; only
  instances where float64 resolves E (|E| > its rounding estimate) are judged.  Known false
  (notes/errata.md, E4: w = 2, x = 1, y = -6, kappa = 1/2).
- ``thm.4.2@small-kappa``: the same bound at kappa in [1e-3, 1e-1], E from the mpmath
  reference ``numerics.reference_network.theorem_4_2`` (resolved however small), n, m, d <= 2.
- ``cor.5.3``: Corollary 5.3, E_C[L_C(W)] - 2 L(W) <= epsilon_1, labels free or interpolating.
- ``cor.5.4``: Corollary 5.4 with its O(.) constants hidden: the ratio is the smallest common
  constant that makes it hold on the example; no threshold, the maximum is reported.

The network domains come from ``numerics.instances.networks`` (Assumption 3.1 networks over
orders of magnitude).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.reporting import with_reporter

from .instances import networks

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


# ---------------------------------------------------------------------------------------
# Domains
# ---------------------------------------------------------------------------------------

def _net_strategy(max_n=3, max_m=3, max_d=3, scale=(-3.0, 3.0), kappa=(-1.5, 1.0)):
    """``numerics.instances.networks`` (labels within Theorem 4.2's B_y <= 3 sqrt(m) R_w) as a
    dict example of plain lists, with a description generated from the same parameters."""
    strat = networks(max_n=max_n, max_m=max_m, max_d=max_d, scale=scale, kappa=kappa,
                     label_bound=True).map(_net_dict)
    text = (f"Assumption 3.1 networks: n <= {max_n} inputs in the unit ball, pairwise non-parallel "
            f"(d = 1 forces n = 1), m <= {max_m} neurons, d <= {max_d}; W entries in +-[1e-3, 1] "
            f"times 10^e, e in [{scale[0]:g}, {scale[1]:g}]; a in {{+1, -1}}; kappa = 10^e, "
            f"e in [{kappa[0]:g}, {kappa[1]:g}] (kappa in [{10 ** kappa[0]:.3g}, {10 ** kappa[1]:.3g}]); "
            "labels y_i = u_i 3 sqrt(m) R_w, u_i in [-1, 1] (Theorem 4.2's hypothesis "
            "B_y <= 3 sqrt(m) R_w, its whole range)")
    return strat, text


def _net_dict(net) -> Example:
    W, a, X, y, kappa = net
    return {"W": np.asarray(W, float).tolist(), "a": np.asarray(a, float).tolist(),
            "X": np.asarray(X, float).tolist(), "y": np.asarray(y, float).tolist(),
            "kappa": float(kappa)}


def _args(ex: Example) -> tuple:
    return ex["W"], ex["a"], ex["X"], ex["y"], ex["kappa"]


def _call(module: str, func: str, ex: Example) -> str:
    """``__import__("numerics.M").M.func(W=..., a=..., X=..., y=..., kappa=...)``: exact
    (floats printed by repr round-trip), and an expression, so it evaluates anywhere."""
    kw = ", ".join(f"{k}={ex[k]!r}" for k in ("W", "a", "X", "y", "kappa"))
    return f'__import__("numerics.{module}").{module}.{func}({kw})'


def _shape(ex: Example) -> dict:
    return {"n": len(ex["X"]), "m": len(ex["W"]), "d": len(ex["W"][0])}


# ---------------------------------------------------------------------------------------
# thm.4.2: float64, moderate kappa
# ---------------------------------------------------------------------------------------

def _thm42_evaluate(ex: Example):
    from . import network as nw

    th = nw.theorem_4_2(*_args(ex))
    dfn = th.definition
    detail = {**_shape(ex), "E": th.E, "E_error": th.E_error, "bound": th.bound, "T1": th.T1, "T2": th.T2,
              "expected_loss": th.expected_loss, "phi_max": dfn.phi_max, "psi_max": dfn.psi_max,
              "R_w": dfn.R_w, "R_u": dfn.R_u, "B_y": dfn.B_y}
    if not th.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails (rounding at its edge)"}
    if not th.resolved:
        return None, {**detail, "skipped": "|E| below its float64 rounding estimate (see thm.4.2@small-kappa)"}
    return th.ratio, detail


def _thm42_reproducer(ex: Example) -> str:
    return _call("network", "theorem_4_2", ex) + ".ratio"


# ---------------------------------------------------------------------------------------
# thm.4.2@small-kappa: mpmath reference
# ---------------------------------------------------------------------------------------

SMALL_KAPPA_DPS = 20


def _thm42_small_evaluate(ex: Example):
    import mpmath

    from . import network as nw
    from . import reference_network as rn
    from .reference import LadderError

    dfn = nw.definition_4_1(ex["W"], ex["X"], ex["y"], ex["kappa"])
    if not dfn.B_y <= 3 * math.sqrt(len(ex["W"])) * dfn.R_w:
        return None, {**_shape(ex), "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails (rounding at its edge)"}
    try:
        ref = rn.theorem_4_2(*_args(ex), dps=SMALL_KAPPA_DPS)
    except LadderError as exc:
        # e.g. two equal neurons with opposite a: E is exactly 0 but computed as a sum of
        # cancelling terms, which no relative precision ladder can resolve
        return None, {**_shape(ex), "skipped": "reference unresolved: " + str(exc).splitlines()[0]}
    if ref.bound > 0:
        ratio = float(abs(ref.E) / ref.bound)
    else:
        ratio = 0.0 if ref.E == 0 else math.inf
    detail = {**_shape(ex), "E": mpmath.nstr(ref.E, 12), "bound": mpmath.nstr(ref.bound, 12),
              "phi_max": mpmath.nstr(ref.phi_max, 12), "psi_max": mpmath.nstr(ref.psi_max, 12),
              "R_w": float(ref.R_w), "R_u": float(ref.R_u), "dps": SMALL_KAPPA_DPS}
    return ratio, detail


def _thm42_small_reproducer(ex: Example) -> str:
    call = _call("reference_network", "theorem_4_2", ex)[:-1] + f", dps={SMALL_KAPPA_DPS})"
    return f"(lambda t: float(abs(t.E) / t.bound))({call})"


# ---------------------------------------------------------------------------------------
# cor.5.3 and cor.5.4
# ---------------------------------------------------------------------------------------

def _with_labels(pair) -> Example:
    """Labels drawn freely (as in Theorem 4.2's hypothesis) or set to the network's own
    outputs, L(W) = 0, where the excess E_C[L_C] - 2 L(W) is all variance and bias."""
    from . import network as nw

    ex, interpolate = pair
    if interpolate:
        ex = {**ex, "y": np.asarray(nw.output(ex["W"], ex["a"], ex["X"]), float).tolist()}
    return {**ex, "labels": "interpolating" if interpolate else "free"}


def _cor53_strategy(**kw):
    strat, text = _net_strategy(**kw)
    return (st.tuples(strat, st.booleans()).map(_with_labels),
            text + "; or labels set to the network's own outputs (L(W) = 0), half of the draws")


def _cor53_evaluate(ex: Example):
    from . import convergence as cv

    c = cv.corollary_5_3(*_args(ex))
    detail = {**_shape(ex), "labels": ex["labels"], "expected_loss": c.expected_loss, "clean_loss": c.clean_loss,
              "excess": c.excess, "eps1": c.eps1}
    if not c.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails"}
    return c.ratio, detail


def _cor53_reproducer(ex: Example) -> str:
    return _call("convergence", "corollary_5_3", ex) + ".ratio"


def _cor54_evaluate(ex: Example):
    from . import convergence as cv

    c = cv.corollary_5_4(*_args(ex))
    detail = {**_shape(ex), "labels": ex["labels"], "lhs_max": max(c.lhs), "A": c.A, "B": c.B, "C": c.C}
    if not c.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails"}
    return c.constant, detail


def _cor54_reproducer(ex: Example) -> str:
    return _call("convergence", "corollary_5_4", ex) + ".constant"


# ---------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------

def _registry() -> dict[str, Campaign]:
    thm, thm_text = _net_strategy(scale=(-3.0, 3.0), kappa=(-1.5, 1.0))
    thm_deep, thm_deep_text = _net_strategy(max_n=5, max_m=5, max_d=5, scale=(-6.0, 6.0), kappa=(-1.5, 2.0))
    small, small_text = _net_strategy(max_n=2, max_m=2, max_d=2, scale=(-3.0, 3.0), kappa=(-3.0, -1.0))
    cor, cor_text = _cor53_strategy(scale=(-3.0, 3.0), kappa=(-3.0, 1.0))
    cor_deep, cor_deep_text = _cor53_strategy(max_n=5, max_m=5, max_d=5, scale=(-6.0, 6.0), kappa=(-3.0, 2.0))
    campaigns = [
        Campaign(
            id="thm.4.2", statement="Theorem 4.2, eq. (4): |E| <= m n (kappa^2 R_u^2 psi_max^2 "
                                    "+ (kappa^2 R_u^2 + kappa R_w) phi_max^2)",
            ratio_name="|E|/bound", domain=thm_text + "; float64 numerics.network.theorem_4_2",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds and float64 resolves E (|E| > its rounding estimate)",
            strategy=thm, evaluate=_thm42_evaluate, reproducer=_thm42_reproducer, threshold=1.0, examples=200,
            deep_strategy=thm_deep, deep_domain=thm_deep_text + "; float64 numerics.network.theorem_4_2"),
        Campaign(
            id="thm.4.2@small-kappa", statement="Theorem 4.2, eq. (4) at small kappa (E and the bound "
                                                "exponentially small)",
            ratio_name="|E|/bound",
            domain=small_text + f"; E and the bound from the mpmath reference "
                                f"numerics.reference_network.theorem_4_2 at {SMALL_KAPPA_DPS} digits",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds (every E is resolved in mpmath)",
            strategy=small, evaluate=_thm42_small_evaluate, reproducer=_thm42_small_reproducer,
            threshold=1.0, examples=80),
        Campaign(
            id="cor.5.3", statement="Corollary 5.3: E_C[L_C(W)] <= 2 L(W) + epsilon_1",
            ratio_name="(E_C[L_C] - 2 L)/eps1", domain=cor_text + "; float64, E_C[L_C] exact",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds",
            strategy=cor, evaluate=_cor53_evaluate, reproducer=_cor53_reproducer, threshold=1.0, examples=200,
            deep_strategy=cor_deep, deep_domain=cor_deep_text + "; float64, E_C[L_C] exact"),
        Campaign(
            id="cor.5.4", statement="Corollary 5.4: ||E_C[grad_{w_r} L_C] - grad_{w_r} L|| <= O(A) + O(B) + O(C) "
                                    "(hidden constants)",
            ratio_name="needed common constant max_r lhs_r/(A + B + C)",
            domain=cor_text + "; float64, E_C[grad L_C] exact",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds",
            strategy=cor, evaluate=_cor54_evaluate, reproducer=_cor54_reproducer, threshold=None, examples=200,
            deep_strategy=cor_deep, deep_domain=cor_deep_text + "; float64, E_C[grad L_C] exact"),
    ]
    return {c.id: c for c in campaigns}


CAMPAIGNS: dict[str, Campaign] = _registry()


def describe_campaigns(width: int = 88) -> str:
    """One paragraph per campaign (statement, ratio, threshold, default examples, domain), for
    ``--help``."""
    import textwrap

    out = []
    for c in CAMPAIGNS.values():
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


def run(campaign_id: str, examples: int | None = None, seed: int | None = None, deep: bool = False,
        progress: bool = True, database: str | None = DATABASE_DIR,
        observe: Callable[[float | None, bool], None] | None = None) -> Result:
    """Fuzz one campaign: up to ``examples`` examples (default the campaign's, 10x with
    ``deep``, which also widens the domain where the campaign has a deep one).

    With ``seed`` the run is reproducible (``hypothesis.seed``: the same examples every time;
    no database, as Hypothesis does for seeded runs).  Without, Hypothesis draws at random and
    the run resumes from, and saves to, the example database ``database`` (None: none).
    ``observe(ratio, shrinking)``, if given, is called after every evaluation (ratio None for
    an example not judged; shrinking True while Hypothesis shrinks a failure): the per-example
    ratios that ``maskverify report`` plots.  Raises ``KeyError`` for an unknown id."""
    if campaign_id not in CAMPAIGNS:
        raise KeyError(f"unknown campaign {campaign_id!r}; known: {', '.join(CAMPAIGNS)}")
    c = CAMPAIGNS[campaign_id]
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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(to_json(result), fh, indent=2, allow_nan=False)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
