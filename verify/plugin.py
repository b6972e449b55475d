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
- runs ``pytest`` as typed on every core (``-n auto``) when no ``-n`` is given, and says so in
  its header line (``-n 0``: serial);
- gives each xdist worker one torch thread: ``-n auto`` already runs one worker per core,
  and two threads per worker oversubscribe the cores (measured under load: a 500 x 500
  ``eigvalsh`` took 10 s with 2 threads per worker against 0.09 s with 1).
"""
from __future__ import annotations

import os
import sys

import pytest

from verify.profiles import load_profile

_AUTO_WORKERS = pytest.StashKey[bool]()

MARKERS = (
    "slow: high precision references and large Monte Carlo (run with -m slow)",
    "gpu: needs a CUDA device",
    "statement(id, ...): the catalogue statements a test witnesses (short ids inside its pack)",
    "reading(id, refutes=False): the reading of a reconstructed statement a test witnesses (refutes=True: "
    "the test passes by exhibiting that reading's counterexample)",
    "witness(kind): which witness a test is (symbolic, reference, certified, fast, montecarlo, property, "
    "dynamics: evidence for the claim; latex: the export; selfcheck: a test of the suite's own references or "
    "tables, never evidence)",
    "property: runs Hypothesis (set on @given tests by the plugin, by hand on tests with a campaign inside); "
    "python bench/deep_profile.py runs them all under the deep profile",
)


#: options that mean the user chose whether pytest-xdist runs (``--dist`` alone does not: the
#: repository's addopts name a ``--dist`` mode, which takes effect only with ``-n``)
_XDIST_CHOSEN = ("-n", "--numprocesses", "--tx", "--collect-only", "--co", "--pdb", "--trace")


def _typed_by_a_user(early_config) -> bool:
    """True for ``pytest ...`` / ``python -m pytest ...`` typed on a command line: not an
    in-process ``pytest.main()`` (checkrun, mutmut), not a worker or a subprocess of one."""
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get("MASKVERIFY_NO_AUTO_WORKERS"):
        return False
    prog = os.path.basename(sys.argv[0]) if sys.argv else ""
    return prog in ("pytest", "py.test", "__main__.py") and list(early_config.invocation_params.args) == sys.argv[1:]


def pytest_load_initial_conftests(early_config, parser, args):
    """``pytest`` as a user types it runs on every core (pytest-xdist ``-n auto``) unless the
    command line or the addopts say how to distribute (``-n 0`` for a serial run); the header
    line says so.  Runs from code (``pytest.main``), inside xdist workers, or with
    ``MASKVERIFY_NO_AUTO_WORKERS=1`` are left as they are."""
    given = any(a == opt or a.startswith(opt + "=") or (opt == "-n" and a.startswith("-n") and len(a) > 2)
                for a in args for opt in _XDIST_CHOSEN)
    blocked = any(a in ("no:xdist", "-pno:xdist") for a in args)
    if given or blocked or not _typed_by_a_user(early_config):
        return
    try:
        import xdist  # noqa: F401
    except ImportError:
        return
    args[:0] = ["-n", "auto"]
    early_config.stash[_AUTO_WORKERS] = True


def pytest_report_header(config):
    if config.stash.get(_AUTO_WORKERS, False):
        return ["maskverify: every core by default (pytest-xdist -n auto, no -n given); -n 0 runs serially"]
    return None


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that passed having recorded ``judged=0`` judged nothing: it is reported as
    skipped ("not checked: judged nothing"), so that neither pytest's summary nor a verdict
    counts it as a pass (DESIGN.md, "Verdicts")."""
    report = yield
    if call.when == "call" and report.passed and dict(item.user_properties).get("judged", None) == 0:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           "Skipped: not checked: the witness judged nothing (it recorded judged=0)")
    return report


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
    ``supported``: for a witness of an empirical claim that passes by reproducing the measured
    verdict, whether that verdict supports the claim (``False``: the test passed because the
    claim was *not* supported at the sizes run; the status is then "not supported"); repeated
    calls keep the conjunction.

    Session-scoped, it writes to the test running when it is called, so that a Hypothesis
    ``@given`` test may take it without the ``function_scoped_fixture`` health check (and
    without suppressing it, which would replace the profile's suppressions): call it once per
    example, ``record(error=err, judged=1)``, and the test's row holds the worst example's
    error and the number of examples judged.
    """
    def _record(*, error=None, digits=None, ratio=None, detail=None, judged=None, supported=None):
        if not _running:
            raise RuntimeError("record(...) was called outside a running test")
        node = _running[-1]
        props = dict(node.user_properties)
        if supported is not None:
            props["supported"] = bool(supported) and props.get("supported", True)
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
