"""The maskverify pytest plugin (entry point ``pytest11: maskverify``), loaded in every pytest
process of the environment, xdist workers included, so that any pack's witnesses -- in this
repository or in another distribution -- run the same way:

- registers the markers ``statement(id, ...)`` (the statement a test witnesses; short ids
  inside a pack), ``witness(kind)``, ``slow``, ``gpu`` and ``property``, which it also puts on
  every ``@given`` test (a test that runs a Hypothesis campaign inside its body carries it
  itself): ``bench/deep_profile.py`` runs them all under the ``deep`` profile;
- loads the Hypothesis profile named by ``MASKVERIFY_PROFILE`` (``verify.profiles``);
- provides the ``record`` fixture, with which a witness records its measured figures, and
  ``one_torch_thread`` (one torch thread for the test, restored after; for modules of small
  products, where threads only add contention, also outside xdist);
- copies each test's statement and witness markers into its report's ``user_properties``,
  so that ``maskverify check`` can tabulate results that come back from xdist workers;
- gives each xdist worker one torch thread: ``-n auto`` already runs one worker per core,
  and two threads per worker oversubscribe the cores (measured under load: a 500 x 500
  ``eigvalsh`` took 10 s with 2 threads per worker against 0.09 s with 1).
"""
from __future__ import annotations

import os

import pytest

from verify.profiles import load_profile

MARKERS = (
    "slow: high precision references and large Monte Carlo (run with -m slow)",
    "gpu: needs a CUDA device",
    "statement(id, ...): the catalogue statements a test witnesses (short ids inside its pack)",
    "reading(id, refutes=False): the reading of a reconstructed statement a test witnesses (refutes=True: "
    "the test passes by exhibiting that reading's counterexample)",
    "witness(kind): which witness a test is (symbolic, reference, certified, fast, montecarlo, property, "
    "dynamics, latex)",
    "property: runs Hypothesis (set on @given tests by the plugin, by hand on tests with a campaign inside); "
    "python bench/deep_profile.py runs them all under the deep profile",
)


def pytest_configure(config):
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    load_profile()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch  # only in workers: a serial run keeps torch's own default

        torch.set_num_threads(1)


@pytest.hookimpl(tryfirst=True)  # before -m selects by markers
def pytest_collection_modifyitems(items):
    from hypothesis import is_hypothesis_test

    for item in items:
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker("property")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    for m in item.iter_markers("statement"):
        if not m.args or m.kwargs or not all(isinstance(a, str) and a for a in m.args):
            raise pytest.UsageError(f"{item.nodeid}: statement(...) takes one or more statement ids, got "
                                    f"{m.args!r} {m.kwargs!r}")
    ids = tuple(dict.fromkeys(a for m in item.iter_markers("statement") for a in m.args))
    wi = item.get_closest_marker("witness")
    if ids and wi:
        item.user_properties.append(("statements", ids))
        item.user_properties.append(("witness", wi.args[0]))
    rd = item.get_closest_marker("reading")
    if rd is not None:
        if len(rd.args) != 1 or set(rd.kwargs) - {"refutes"}:
            raise pytest.UsageError(f"{item.nodeid}: reading(id, refutes=False) takes one reading id")
        item.user_properties.append(("reading", (rd.args[0], bool(rd.kwargs.get("refutes", False)))))


@pytest.fixture
def one_torch_thread():
    """Run the test with one torch thread and restore the previous count afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


#: the test item running in this process (pytest runs one at a time; each xdist worker is a process)
_running: list = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


@pytest.fixture(scope="session")
def record():
    """Record a witness's measured figures for the check table.

    ``record(error=..., digits=..., ratio=..., detail=..., judged=...)``; repeated calls keep
    the worst error (largest), the fewest digits and the largest ratio, and add up ``judged``:
    the number of points (examples, times along a flow) at which the witness actually judged
    the claim.  A dynamics or campaign witness records it; one that passed with ``judged=0``
    (every point skipped or unresolved) judged nothing and does not count as evidence.

    Session-scoped, it writes to the test running when it is called, so that a Hypothesis
    ``@given`` test may take it without the ``function_scoped_fixture`` health check (and
    without suppressing it, which would replace the profile's suppressions): call it once per
    example, ``record(error=err, judged=1)``, and the test's row holds the worst example's
    error and the number of examples judged.
    """
    def _record(*, error=None, digits=None, ratio=None, detail=None, judged=None):
        if not _running:
            raise RuntimeError("record(...) was called outside a running test")
        node = _running[-1]
        props = dict(node.user_properties)
        if judged is not None:
            if int(judged) < 0:
                raise ValueError(f"judged must be >= 0, got {judged}")
            props["judged"] = props.get("judged", 0) + int(judged)
        if error is not None:
            props["error"] = max(float(error), props.get("error", float("-inf")))
        if digits is not None:
            props["digits"] = min(float(digits), props.get("digits", float("inf")))
        if ratio is not None:
            props["ratio"] = max(float(ratio), props.get("ratio", float("-inf")))
        if detail is not None:
            props["detail"] = str(detail)
        node.user_properties[:] = list(props.items())

    return _record
