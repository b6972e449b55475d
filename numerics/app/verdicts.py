"""A statement's verdict from the evidence that was gathered for it, for every pack.

DESIGN.md, "Verdicts": every witness kind but ``latex`` and ``selfcheck`` is *evidential*; the
LaTeX round trip checks the export, not the claim, and a self-check checks the suite itself (a
reference against a certified ball or another rule, a precomputed table against its definition):
it vouches for a witness, never for the paper.  ``judge`` folds one statement's witness results (this
tier's pytest run), its fuzz campaign outcomes (when they were run), its recorded errata and
the inventory of witnesses in other tiers into one ``Verdict``:

============================  ===============================================================
status                        when
============================  ===============================================================
``fails``                     an evidential witness failed or errored (a reading's refutation
                              included), or a strict xfail passed, or a campaign found a
                              counterexample no erratum covers (``errata.covering``: the entry
                              names the campaign and its predicate claims the example), or a
                              self-check of the statement's witnesses failed (then no witness
                              of it can be trusted)
``finding``                   the pack's errata record a finding for the statement (or a strict
                              xfail recorded one) and nothing failed
``not supported``             the same for an empirical claim (``Kind.EMPIRICAL``), or a witness
                              that passed by measuring the claim *not* supported
                              (``record(supported=False)``)
``holds``                     an evidential witness passed and judged something; nothing failed;
                              no finding
``supported``                 the same for an empirical claim
``not checked in this tier``  no evidential witness judged anything here, but one exists in
                              another tier, a campaign or a declared command (``checked_in``)
``not checked``               none exists; the reason is ``Statement.not_checked``
============================  ===============================================================

A pass that judged nothing is not evidence: one that recorded ``judged=0``, or whose
recorded ratio is exactly 0 (a bound never approached because nothing was resolved), or a
campaign that judged no example or whose worst ratio is 0.  Tests that refute a reading of a
reconstructed statement (``reading(id, refutes=True)``) feed the readings summary only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

EVIDENTIAL = ("symbolic", "reference", "certified", "fast", "montecarlo", "property", "dynamics", "campaign")
PRESENTATIONAL = ("latex",)
#: tests of the suite's own references and tables: they vouch for a witness, not for a claim
SELF_CHECKS = ("selfcheck",)
BAD = ("failed", "error", "xpass")
#: every status, in the order the summaries count them
STATUSES = ("holds", "supported", "finding", "not supported", "fails", "not checked in this tier", "not checked")
#: statuses that say the statement's claim stood up to an evidential witness
POSITIVE = ("holds", "supported")


@dataclass(frozen=True)
class Elsewhere:
    """An evidential witness outside this run: a test of another tier, or a campaign."""

    where: str  # "slow tier", "gpu tier", "campaign"
    what: str   # a node id, or the command that runs the campaign


@dataclass
class Verdict:
    status: str
    reason: str
    evidence: list[str] = field(default_factory=list)  # the witnesses that decided it
    readings: list[dict] = field(default_factory=list)
    strongest_holding: str | None = None
    weakest_failing: str | None = None

    def as_json(self) -> dict:
        return {"status": self.status, "reason": self.reason, "evidence": self.evidence, "readings": self.readings,
                "strongest_reading_holding": self.strongest_holding,
                "weakest_reading_failing": self.weakest_failing}


#: witnesses along a trajectory or over a search, whose ratio 0 means nothing was resolved
#: unless they say how many points they judged (a reference's ratio 0 is exact agreement)
RATE_WITNESSES = ("dynamics", "campaign")


def vacuous(result) -> bool:
    """True when a passing result judged nothing: ``judged`` recorded as 0, or -- for a dynamics
    or campaign witness that recorded no ``judged`` -- a ratio of exactly 0 (DESIGN.md: "every
    ratio 0 because nothing was resolved")."""
    judged = getattr(result, "judged", None)
    if judged is not None:
        return judged == 0
    return result.witness in RATE_WITNESSES and result.ratio is not None and result.ratio == 0


def _refutes(result) -> bool:
    return bool(result.reading and result.reading[1])


def _campaign_outcome(run) -> str:
    """'counterexample', 'error', 'judged nothing', 'no threshold' or 'passed' for a
    ``report.CampaignRun``-like object (``result`` a ``fuzzing.Result``)."""
    r = run.result
    if r.error is not None:
        return "error"
    if r.failed:
        return "counterexample"
    if r.threshold is None:
        return "no threshold"
    if not r.valid_examples or r.worst_ratio == 0:
        return "judged nothing"
    return "passed"


def _readings(statement, results: Sequence) -> tuple[list[dict], str | None, str | None]:
    """Per reading of a reconstructed statement: what it asserts, its strength and its outcome
    ('holds', 'refuted', 'fails', 'not checked'); the strongest that holds, the weakest refuted."""
    readings = getattr(getattr(statement, "provenance", None), "readings", ()) or ()
    out = []
    for rd in sorted(readings, key=lambda r: r.strength):
        mine = [r for r in results if r.reading and r.reading[0] == rd.id]
        support = [r for r in mine if not _refutes(r)]
        refute = [r for r in mine if _refutes(r)]
        if any(r.outcome in BAD for r in mine):
            outcome = "fails"  # a witness of the reading itself broke: neither shown nor refuted
        elif any(r.outcome == "passed" and not vacuous(r) for r in refute):
            outcome = "refuted"
        elif any(r.outcome == "passed" and not vacuous(r) for r in support):
            outcome = "holds"
        elif any(r.outcome == "xfail" for r in support):
            outcome = "refuted"  # a strict xfail holding the reading: its erratum is the counterexample
        else:
            outcome = "not checked"
        out.append({"id": rd.id, "asserts": rd.asserts, "strength": rd.strength, "outcome": outcome,
                    "tests": sorted({r.nodeid for r in mine})})
    holding = [r for r in out if r["outcome"] == "holds"]
    failing = [r for r in out if r["outcome"] == "refuted"]
    strongest = max(holding, key=lambda r: r["strength"])["id"] if holding else None
    weakest = min(failing, key=lambda r: r["strength"])["id"] if failing else None
    return out, strongest, weakest


def _covering(run, errata) -> list:
    """The errata that record the counterexample of ``run`` (a ``report.CampaignRun``): those whose
    ``covers`` names its campaign and whose predicate claims the shrunk example
    (``numerics.core.errata.covering``); [] for a run that carries no campaign."""
    from numerics.core.errata import covering

    campaign = getattr(run, "campaign", None)
    if campaign is None:
        return []
    return covering(errata, campaign, run.result.shrunk_counterexample)


def _where(where: str, what: list[str]) -> str:
    """One place that checks a statement, as a command to type from where its pack lives: 'slow
    tier: pytest 'NODE' -m slow (+2 more)' (``pytest --pyargs 'MODULE::TEST'`` for a
    distribution's test: ``numerics.core.nodeids``), a campaign's ``maskverify fuzz`` line, or the
    declared ``checked_in``."""
    more = f" (+{len(what) - 1} more)" if len(what) > 1 else ""
    if where == "declared":
        return what[0]
    if where == "campaign":
        return f"campaign: {what[0]}{more}"
    marker = where.split()[0]  # "slow tier" -> -m slow
    from numerics.core.nodeids import command  # 'pytest --pyargs ...' for a distribution's test

    return f"{where}: {command(what[0], '-m', marker)}{more}"


def judge(statement, results: Sequence, *, errata: Iterable = (), campaigns: Sequence = (),
          elsewhere: Sequence[Elsewhere] = (), tier: str = "default") -> Verdict:
    """The verdict on ``statement`` (a ``theory.core.statement.Statement``, or None for an id
    outside every catalogue) from this tier's ``results`` (``checkrun.WitnessResult``s naming
    it), its recorded ``errata``, the ``campaigns`` that were run for it (``report.CampaignRun``)
    and the evidential witnesses it has ``elsewhere`` (other tiers, campaigns not run)."""
    from theory.core.statement import Kind

    empirical = statement is not None and statement.kind is Kind.EMPIRICAL
    readings, strongest, weakest = _readings(statement, results)
    verdict = Verdict("not checked", "", readings=readings, strongest_holding=strongest, weakest_failing=weakest)
    claim = [r for r in results if r.witness in EVIDENTIAL and not _refutes(r)]
    errata = list(errata)

    # a reading's refutation that broke is a broken witness too (not merely an unrefuted reading)
    bad = [r for r in results if r.witness in EVIDENTIAL and r.outcome in BAD]
    broken_checks = [r for r in results if r.witness in SELF_CHECKS and r.outcome in BAD]
    runs = [(run, _campaign_outcome(run)) for run in campaigns]
    covered = {id(run): _covering(run, errata) for run, o in runs if o == "counterexample"}
    bad_runs = [run for run, o in runs if o == "error" or (o == "counterexample" and not covered[id(run)])]
    if bad or bad_runs or broken_checks:
        verdict.status = "fails"
        verdict.evidence = [f"{r.witness} {r.outcome}: {r.nodeid}" for r in bad]
        verdict.evidence += [f"campaign {run.qualified}: " + ("counterexample no erratum covers" if o == "counterexample"
                                                               else o) for run, o in runs if run in bad_runs]
        verdict.evidence += [f"self-check {r.outcome}: {r.nodeid}" for r in broken_checks]
        parts = [f"{len(bad) + len(bad_runs)} evidential witness(es) failed"] if bad or bad_runs else []
        if broken_checks:
            parts.append(f"{len(broken_checks)} self-check(s) of its witnesses failed")
        verdict.reason = "; ".join(parts)
        return verdict

    recorded = [r for r in claim if r.outcome == "xfail"]
    found_by_campaign = [run for run, o in runs if o == "counterexample"]
    if errata or recorded or found_by_campaign:
        verdict.status = "not supported" if empirical else "finding"
        ids = [getattr(e, "qualified", str(e)) for e in errata]
        verdict.evidence = [f"{r.witness} recorded finding: {r.nodeid}" for r in recorded]
        verdict.evidence += [f"campaign {run.qualified}: counterexample recorded by "
                             + ", ".join(e.qualified for e in covered[id(run)]) for run in found_by_campaign]
        verdict.reason = ("recorded in " + ", ".join(ids)) if ids else "a strict xfail recorded the finding"
        return verdict

    passes = [r for r in claim if r.outcome == "passed" and not vacuous(r)]
    run_passes = [run for run, o in runs if o == "passed"]
    unsupported = [r for r in passes if r.supported is False]
    if empirical and unsupported:
        verdict.status = "not supported"
        verdict.evidence = [f"{r.witness}: {r.nodeid}" + (f" ({r.detail})" if r.detail else "") for r in unsupported]
        verdict.reason = "measured: the claim's test did not support it at the sizes run"
        return verdict
    if passes or run_passes:
        verdict.status = "supported" if empirical else "holds"
        kinds = sorted({r.witness for r in passes} | ({"campaign"} if run_passes else set()))
        verdict.evidence = [f"{r.witness}: {r.nodeid}" + (f" ({r.detail})" if r.detail else "") for r in passes]
        verdict.evidence += [f"campaign {run.qualified}: no counterexample in {run.result.valid_examples} "
                             f"examples, worst ratio {run.result.worst_ratio:.4g}" for run in run_passes]
        verdict.reason = f"passed: {', '.join(kinds)}"
        return verdict

    empty = [r for r in claim if r.outcome == "passed" and vacuous(r)] + [run for run, o in runs if o == "judged nothing"]
    notes = [f"{len(empty)} evidential witness(es) judged nothing"] if empty else []
    presentational = [r for r in results if r.witness in PRESENTATIONAL and r.outcome == "passed"]
    if presentational:
        notes.append("only the LaTeX export was checked")
    if any(r.witness in SELF_CHECKS and r.outcome == "passed" for r in results):
        notes.append("only self-checks of the suite's references ran, which are no evidence for the claim")
    elsewhere = list(elsewhere)
    if statement is not None and statement.checked_in:
        elsewhere.append(Elsewhere("declared", statement.checked_in))
    if elsewhere:
        verdict.status = "not checked in this tier"
        places: dict[str, list[str]] = {}
        for e in elsewhere:
            places.setdefault(e.where, []).append(e.what)
        verdict.evidence = [f"{w}: {x}" for w, xs in places.items() for x in xs]
        said = "; ".join(_where(w, xs) for w, xs in places.items())
        verdict.reason = f"no evidential witness ran in the {tier} tier; checked by: {said}"
    else:
        verdict.status = "not checked"
        verdict.reason = (statement.not_checked if statement is not None and statement.not_checked
                          else "no evidential witness exists (no reason recorded)")
    if notes:
        verdict.reason += " (" + "; ".join(notes) + ")"
    return verdict


def counts(verdicts: Iterable[str]) -> dict[str, int]:
    """``{status: number}`` over every status, zeros included, in ``STATUSES`` order."""
    verdicts = list(verdicts)
    unknown = set(verdicts) - set(STATUSES)
    if unknown:
        raise ValueError(f"unknown statuses {sorted(unknown)}")
    return {s: verdicts.count(s) for s in STATUSES}
