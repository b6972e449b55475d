"""The pytest plugin (``verify.plugin``) as a pack's witnesses meet it, in a pytest run of its own
on planted test files: ``statement("a", "b")`` puts both ids into the report's
``user_properties`` (what ``maskverify check`` tabulates), ``statement()`` without an id is
refused (the test errors), and a Hypothesis ``@given`` test may take the ``record`` fixture
under the dev profile with its health checks live: the report holds the worst example's error
and the number of examples judged (a control test with a function-scoped fixture still fails
the ``function_scoped_fixture`` health check, so the check was not suppressed)."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PLANTED = '''
import pytest
from hypothesis import given, strategies as st

CALLS = []


@pytest.mark.statement("lemma.a", "lemma.b")
@pytest.mark.witness("reference")
def test_two_ids(record):
    record(error=1e-3)


@pytest.mark.statement()
@pytest.mark.witness("reference")
def test_no_id():
    pass


@pytest.mark.statement("lemma.a")
@pytest.mark.witness("property")
@given(st.floats(-1e6, 1e6))
def test_property_records(record, x):
    CALLS.append(x)
    record(error=abs(x) * 1e-20, judged=1)
    with open("calls.txt", "w") as fh:
        fh.write(f"{len(CALLS)} {max(abs(c) for c in CALLS) * 1e-20!r}")


@given(st.floats(-1, 1))
def test_control_function_scoped_fixture(tmp_path, x):
    pass
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{test name: (outcome, {property: value}, longrepr)} of one run of the planted file."""
    where = tmp_path_factory.mktemp("planted")
    (where / "test_planted.py").write_text(PLANTED)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "MASKVERIFY_PROFILE": "dev"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--junitxml=out.xml",
                          "-p", "no:xdist", "test_planted.py"], cwd=where, capture_output=True, text=True, env=env,
                         timeout=300)
    out = {}
    for case in ET.parse(where / "out.xml").getroot().iter("testcase"):
        failed = case.find("failure") if case.find("failure") is not None else case.find("error")
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        out[case.get("name")] = ("passed" if failed is None else failed.tag,
                                 props, "" if failed is None else (failed.get("message") or "") + (failed.text or ""))
    return out, run, where


def test_a_test_witnessing_two_statements_records_both(results):
    out, run, _ = results
    outcome, props, _ = out["test_two_ids"]
    assert outcome == "passed", run.stdout
    assert ast.literal_eval(props["statements"]) == ("lemma.a", "lemma.b") and props["witness"] == "reference"
    assert float(props["error"]) == 1e-3


def test_statement_without_an_id_is_refused(results):
    out, _, _ = results
    outcome, props, text = out["test_no_id"]
    assert outcome == "error" and "statement(...) takes one or more statement ids" in text
    assert "statements" not in props


def test_a_hypothesis_test_takes_record_with_the_health_checks_live(results):
    out, run, where = results
    outcome, props, _ = out["test_property_records"]
    assert outcome == "passed", run.stdout
    calls, worst = (where / "calls.txt").read_text().split()
    assert int(calls) > 1 and int(props["judged"]) == int(calls)  # one per example run
    assert float(props["error"]) == float(worst)  # the worst example's
    outcome, _, text = out["test_control_function_scoped_fixture"]
    assert outcome in ("failure", "error") and "function-scoped fixture 'tmp_path'" in text
