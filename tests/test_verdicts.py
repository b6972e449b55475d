"""Verdicts say no more than was checked (DESIGN.md, "Verdicts"; ``numerics.app.verdicts``).

- ``judge`` gives each status exactly where its rule says, and a pass that judged nothing
  (``judged=0``, a ratio of exactly 0, a campaign with no judged example) is no evidence;
- a campaign's counterexample is a finding only where an erratum covers it (names the campaign,
  and the campaign's predicate claims the example); a reading's refutation that broke, and a
  failed self-check, fail the statement;
- a planted pack run through the real pipeline (pytest, the plugin, ``checkrun``): a statement
  whose only witness is the LaTeX round trip, one whose only witness is a self-check of the
  suite (``witness("selfcheck")``), and one whose rate check judged nothing, are *not* reported
  ``holds``; the plugin reports the judged-nothing pass as skipped;
- every statement of every registered pack that has no evidential witness in any tier says
  why (``Statement.not_checked``) or where it is checked (``checked_in``).
"""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
import sympy as sp

from numerics.app import checkrun, verdicts
from numerics.app.checkrun import WitnessResult
from numerics.core import errata as errata_data
from numerics.core import registry
from numerics.core.pack import PaperPack
from theory.core.pack import Paper
from theory.core.statement import Equation, Kind, Reading, Statement, reconstructed


def _st(sid="s", kind=Kind.IDENTITY, **kw) -> Statement:
    x = sp.Symbol("x")
    return Statement(sid, "eq. (1)", "a planted statement", kind, (), (Equation("main", x, x),), **kw)


def _r(outcome="passed", witness="fast", **kw) -> WitnessResult:
    return WitnessResult(f"verify/t.py::{witness}_{outcome}", "p:s", witness, outcome, 0.0, **kw)


@dataclasses.dataclass
class _Result:  # the fields of fuzzing.Result that a verdict reads
    error: str | None = None
    failed: bool = False
    threshold: float | None = 1.0
    valid_examples: int = 10
    worst_ratio: float = 0.5
    shrunk_counterexample: dict | None = None


@dataclasses.dataclass
class _Run:
    result: _Result
    qualified: str = "p:s"
    campaign: object = None


# ---------------------------------------------------------------------------------------
# The rules, one status at a time
# ---------------------------------------------------------------------------------------

def test_latex_alone_is_not_evidence():
    v = verdicts.judge(_st(), [_r(witness="latex")])
    assert v.status == "not checked" and "LaTeX" in v.reason


@pytest.mark.parametrize("witness", [w for w in verdicts.EVIDENTIAL if w != "campaign"])
def test_one_evidential_pass_holds(witness):
    assert verdicts.judge(_st(), [_r(witness=witness), _r(witness="latex")]).status == "holds"


def test_empirical_claims_are_supported_or_not():
    assert verdicts.judge(_st(kind=Kind.EMPIRICAL), [_r(witness="montecarlo")]).status == "supported"
    assert verdicts.judge(_st(kind=Kind.EMPIRICAL), [_r(witness="montecarlo")], errata=["p:E1"]).status \
        == "not supported"
    # a witness that passes by reproducing a measured "not supported" is no support
    mixed = [_r(witness="dynamics", supported=True), _r(witness="dynamics", supported=False, detail="CI [-0.01, 0.02]")]
    v = verdicts.judge(_st(kind=Kind.EMPIRICAL), mixed)
    assert v.status == "not supported" and "CI [-0.01, 0.02]" in v.evidence[0]


@pytest.mark.parametrize("bad", ["failed", "error", "xpass"])
def test_a_failed_evidential_witness_fails_the_statement_even_beside_passes(bad):
    v = verdicts.judge(_st(), [_r(), _r(bad, witness="reference")], errata=["p:E1"])
    assert v.status == "fails" and any(bad in e for e in v.evidence)


def test_a_failed_latex_round_trip_is_not_a_verdict_on_the_claim():
    assert verdicts.judge(_st(), [_r(), _r("failed", witness="latex")]).status == "holds"


def test_findings_come_from_the_errata_or_a_strict_xfail():
    assert verdicts.judge(_st(), [_r()], errata=["p:E1"]).status == "finding"
    assert verdicts.judge(_st(), [_r(), _r("xfail", witness="property")]).status == "finding"
    # the erratum is data: it stands in a tier whose run holds no xfail of it
    assert verdicts.judge(_st(), [], errata=["p:E1"]).status == "finding"


@pytest.mark.parametrize("vacuous", [dict(judged=0), dict(ratio=0.0)])
def test_a_pass_that_judged_nothing_is_no_evidence(vacuous):
    v = verdicts.judge(_st(), [_r(witness="dynamics", **vacuous)])
    assert v.status == "not checked" and "judged nothing" in v.reason
    # ... also where another tier has a real witness: then it says where
    v = verdicts.judge(_st(), [_r(witness="dynamics", **vacuous)],
                       elsewhere=[verdicts.Elsewhere("slow tier", "verify/t.py::slow")])
    assert v.status == "not checked in this tier" and "slow tier" in v.reason


def test_a_zero_ratio_of_a_reference_is_exact_agreement_not_vacuity():
    assert verdicts.judge(_st(), [_r(witness="reference", ratio=0.0)]).status == "holds"


def test_a_judged_count_makes_a_zero_ratio_evidence():
    """A ratio 0 with points judged is a real judgement (e.g. a bound of an identity that is exact)."""
    assert verdicts.judge(_st(), [_r(witness="dynamics", ratio=0.0, judged=5)]).status == "holds"


def test_campaigns_enter_the_status():
    st = _st()
    assert verdicts.judge(st, [], campaigns=[_Run(_Result())]).status == "holds"
    assert verdicts.judge(st, [_r()], campaigns=[_Run(_Result(failed=True))]).status == "fails"
    assert verdicts.judge(st, [_r()], campaigns=[_Run(_Result(error="boom"))]).status == "fails"
    for empty in (_Result(valid_examples=0), _Result(worst_ratio=0.0), _Result(threshold=None)):
        assert verdicts.judge(st, [], campaigns=[_Run(empty)]).status == "not checked"


def _covering_erratum(campaign="s", eid="E1"):
    return errata_data.Erratum(pack="p", id=eid, title="t", statements=("s",), paper="p", wrong="w",
                               covers=(errata_data.Cover(campaign, "those with x > 0"),))


@dataclasses.dataclass
class _Campaign:  # the fields of fuzzing.Campaign that a verdict reads
    id: str = "s"
    recorded: dict = dataclasses.field(default_factory=lambda: {"E1": lambda ex: ex["x"] > 0})


def _counterexample(x):
    return _Run(_Result(failed=True, shrunk_counterexample={"x": x}), campaign=_Campaign())


def test_a_campaign_counterexample_is_a_finding_only_where_an_erratum_covers_it():
    """An erratum names the campaign whose counterexamples it records and which ones (the campaign's
    predicate): there the status is ``finding``; a counterexample outside it is a new failure."""
    st, e = _st(), _covering_erratum()
    v = verdicts.judge(st, [_r()], campaigns=[_counterexample(1.0)], errata=[e])
    assert v.status == "finding" and "recorded by p:E1" in v.evidence[0]
    v = verdicts.judge(st, [_r()], campaigns=[_counterexample(-1.0)], errata=[e])
    assert v.status == "fails" and "no erratum covers" in v.evidence[0]
    # an erratum of the statement that does not name this campaign covers none of its counterexamples
    assert verdicts.judge(st, [_r()], campaigns=[_counterexample(1.0)],
                          errata=[_covering_erratum(campaign="s@other")]).status == "fails"
    # nor does an erratum given only by its id, or a run that carries no campaign
    assert verdicts.judge(st, [_r()], campaigns=[_counterexample(1.0)], errata=["p:E1"]).status == "fails"
    assert verdicts.judge(st, [_r()], campaigns=[_Run(_Result(failed=True))], errata=[e]).status == "fails"


def test_a_predicate_that_raises_covers_nothing():
    def broken(ex):
        raise ZeroDivisionError
    run = _Run(_Result(failed=True, shrunk_counterexample={"x": 1.0}), campaign=_Campaign(recorded={"E1": broken}))
    assert verdicts.judge(_st(), [], campaigns=[run], errata=[_covering_erratum()]).status == "fails"


def test_not_checked_gives_the_recorded_reason_or_says_there_is_none():
    assert verdicts.judge(_st(not_checked="needs D ~ 1e6"), []).reason == "needs D ~ 1e6"
    assert "no reason recorded" in verdicts.judge(_st(), []).reason
    v = verdicts.judge(_st(checked_in="maskverify train --kappa 2"), [])
    assert v.status == "not checked in this tier" and "maskverify train --kappa 2" in v.reason


def test_readings_report_the_strongest_holding_and_the_weakest_failing():
    readings = (Reading("weak", "for some C1", 1), Reading("mid", "for C1 = 4", 2),
                Reading("strong", "for all C1 >= 1", 3), Reading("open", "unchecked", 4))
    st = _st(provenance=reconstructed("Lemma 9", words="'for C1 large'", readings=readings))
    results = [_r(reading=("weak", False)), _r(reading=("mid", False)),
               _r(witness="reference", reading=("strong", True))]
    v = verdicts.judge(st, results)
    assert [r["outcome"] for r in v.readings] == ["holds", "holds", "refuted", "not checked"]
    assert (v.strongest_holding, v.weakest_failing) == ("mid", "strong")
    assert v.status == "holds"  # the refutation of a stronger reading is no failure of the claim checked


@pytest.mark.parametrize("bad", ["failed", "error"])
def test_a_refutation_that_broke_fails_the_statement(bad):
    """A test that should exhibit a reading's counterexample and broke is a broken witness: the
    statement does not hold on the strength of its other witnesses."""
    st = _st(provenance=reconstructed("Lemma 9", readings=(Reading("weak", "some C1", 1), Reading("strong", "all C1", 2))))
    v = verdicts.judge(st, [_r(reading=("weak", False)), _r(bad, witness="reference", reading=("strong", True))])
    assert v.status == "fails" and [r["outcome"] for r in v.readings] == ["holds", "fails"]


def test_a_self_check_alone_is_no_evidence_and_a_broken_one_fails():
    """A self-check (a reference against a certified ball, a table against its definition) vouches for
    the suite's witnesses, never for the claim; when one fails no witness of the statement stands."""
    v = verdicts.judge(_st(), [_r(witness="selfcheck")])
    assert v.status == "not checked" and "self-checks" in v.reason
    assert verdicts.judge(_st(), [_r(witness="selfcheck"), _r()]).status == "holds"
    v = verdicts.judge(_st(), [_r(), _r("failed", witness="selfcheck")])
    assert v.status == "fails" and "self-check" in v.reason
    assert "selfcheck" not in verdicts.EVIDENTIAL and "selfcheck" in checkrun.WITNESSES


def test_a_self_checks_figures_are_not_the_statements():
    row = checkrun.Row("p:s", "eq. (1)")
    row.add(_r(witness="selfcheck", error=1e-3, ratio=0.9))
    row.add(_r(witness="reference", error=1e-15))
    assert (row.error, row.ratio) == (1e-15, None) and row.cell("selfcheck") == "ok 1"


def test_a_refutation_alone_is_no_evidence_for_the_statement():
    st = _st(provenance=reconstructed("Lemma 9", readings=(Reading("strong", "all C1", 2),)))
    assert verdicts.judge(st, [_r(reading=("strong", True))]).status == "not checked"


def test_counts_name_every_status_and_reject_unknown_ones():
    c = verdicts.counts(["holds", "holds", "finding"])
    assert list(c) == list(verdicts.STATUSES) and c["holds"] == 2 and c["finding"] == 1 and sum(c.values()) == 3
    with pytest.raises(ValueError):
        verdicts.counts(["hold"])


# ---------------------------------------------------------------------------------------
# A planted pack through the real pipeline
# ---------------------------------------------------------------------------------------

PLANTED = '''
    import pytest

    @pytest.mark.statement("latex_only")
    @pytest.mark.witness("latex")
    def test_round_trip():
        assert True

    @pytest.mark.statement("vacuous_rate")
    @pytest.mark.witness("dynamics")
    def test_rate_with_nothing_resolved(record):
        resolved = [t for t in (0.5, 1.0) if False]  # every L_t below the integrator's error
        record(ratio=0.0, judged=len(resolved))
        assert all(r <= 1 for r in resolved)

    @pytest.mark.statement("zero_ratio")
    @pytest.mark.witness("dynamics")
    def test_rate_whose_ratios_are_all_zero(record):
        record(ratio=0.0)

    @pytest.mark.statement("real", "also_real")
    @pytest.mark.witness("reference")
    def test_a_real_witness(record):
        record(ratio=0.5, judged=3)
        assert 0.5 <= 1

    @pytest.mark.statement("selfcheck_only")
    @pytest.mark.witness("selfcheck")
    def test_reference_against_its_table(record):
        record(error=1e-16, judged=4)

    @pytest.mark.slow
    @pytest.mark.statement("slow_only")
    @pytest.mark.witness("montecarlo")
    def test_slow():
        assert True
'''


@pytest.fixture
def planted(tmp_path, monkeypatch):
    vdir = tmp_path / "verify" / "planted"
    vdir.mkdir(parents=True)
    (vdir / "test_planted.py").write_text(textwrap.dedent(PLANTED))
    ids = ("latex_only", "vacuous_rate", "zero_ratio", "real", "also_real", "selfcheck_only", "slow_only", "nothing")
    paper = Paper("planted", "A planted paper", ("A. Author",), "arXiv 0000.00000",
                  tuple(_st(i) for i in ids))
    monkeypatch.chdir(tmp_path)
    return PaperPack(paper, vdir, tmp_path / "errata.toml")


def test_planted_latex_only_and_vacuous_statements_are_not_reported_as_holding(planted):
    _code, results = checkrun.run([planted], progress=False, workers=1)
    by_test = {r.nodeid.split("::")[-1]: r.outcome for r in results}
    assert by_test["test_rate_with_nothing_resolved"] == "skipped"  # the plugin: judged nothing
    assert by_test["test_a_real_witness"] == "passed" and "test_slow" not in by_test
    rows = checkrun.table(results, [planted])
    checkrun.judge_rows(rows, results, [planted])
    status = {row.statement.split(":")[1]: row.verdict.status for row in rows}
    assert status == {"latex_only": "not checked", "vacuous_rate": "not checked", "zero_ratio": "not checked",
                      "real": "holds", "also_real": "holds", "selfcheck_only": "not checked",
                      "slow_only": "not checked in this tier", "nothing": "not checked"}
    table = checkrun.format_table(rows)
    assert "planted:slow_only: not checked in this tier" in table and "slow tier" in table
    assert checkrun.status_line(rows) == "8 statements: 2 holds, 1 not checked in this tier, 5 not checked"


# ---------------------------------------------------------------------------------------
# The registered packs' data
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def inventory():
    return checkrun.inventory(registry.select(None))


@pytest.mark.parametrize("pack", registry.select(None), ids=lambda p: p.id)
def test_every_statement_without_an_evidential_witness_says_why(pack, inventory):
    """A statement with no evidential witness in any tier, no campaign and no declared command
    must carry ``not_checked``; ``not_checked`` on a statement that has a witness is stale."""
    have = {st for st, wi, _tier, _node in inventory if wi in verdicts.EVIDENTIAL}
    fuzzed = {pack.paper.qualify(c.statement_id) for c in pack.campaigns}
    silent, stale = [], []
    for st in pack.paper.statements:
        q = pack.paper.qualify(st.id)
        checked = q in have or q in fuzzed or bool(st.checked_in)
        if not checked and not st.not_checked:
            silent.append(q)
        if checked and st.not_checked:
            stale.append(q)
    assert not silent, f"no evidential witness and no reason (Statement.not_checked): {silent}"
    assert not stale, f"not_checked given although a witness exists: {stale}"


def test_the_inventory_knows_the_tiers(inventory):
    """Node ids run from where their pack lives (``numerics.core.nodeids``): a pack of this
    repository's under ``verify/`` from its root, an installed distribution's as an importable
    module (``pytest --pyargs``), whatever else is installed beside them."""
    from numerics.core import nodeids

    tiers = {tier for _st, _wi, tier, _node in inventory}
    assert {"default tier", "slow tier"} <= tiers
    inside = {p.id for p in registry.select(None) if nodeids.in_repository(p.verify_dir)}
    for st, _wi, _tier, node in inventory:
        if st.split(":")[0] in inside:
            assert Path(node.split("::")[0]).parts[0] == "verify", node
        else:
            assert nodeids.is_module_id(node), node


def test_the_campaign_command_a_reason_names_is_a_command_line():
    """'not checked in this tier' names ``maskverify fuzz ID``: it must parse as the CLI's own."""
    from numerics.app import cli

    pack = next(p for p in registry.select(None) if p.campaigns)
    qid = pack.paper.qualify(pack.campaigns[0].id)
    (where,) = checkrun.elsewhere([], qid.split("@")[0], {"default tier"}, [qid])
    argv = where.what.split()[1:]
    assert argv[0] == "fuzz" and cli.build_parser().parse_args(argv).func is not None
