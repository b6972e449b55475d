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
  ``eigvalsh`` took 10 s with 2 threads per worker against 0.09 s with 1);
- collects every installed pack's witnesses, in this repository or in a distribution of its
  own, wherever the run collects this repository's ``verify/`` folder (``pytest verify/``, or the
  repository's ``testpaths``): a pack installed elsewhere (entry point ``maskverify.papers``) adds
  its ``verify_dir``; ``pytest -p maskverify`` with no path collects every pack's witnesses from any
  folder (xdist workers are given the same list by the controller);
- ends the terminal summary with one line per pack: its tests and their time in this run (the sum
  of the tests' durations; under ``-n N`` about that over N of wall time), so that a pack's author
  sees how much of the default tier's two minutes on two cores their pack uses.
"""
from __future__ import annotations

import os
import sys

import pytest

from verify.profiles import load_profile

_AUTO_WORKERS = pytest.StashKey[bool]()
_ARGS = pytest.StashKey[list]()  # the collection arguments this plugin set (passed on to xdist workers)
_OUTSIDE = pytest.StashKey[list]()  # (pack id, witness folder) of the outside packs it added

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
    """The header's lines: every core by default (when so), and per outside pack the folder its
    witnesses come from, since pytest names a test outside the root folder relative to the folder it
    was collected from (``test_s1_x.py::test_y``): the line says where that is, and the two ways to
    run one test from anywhere."""
    lines = []
    if config.stash.get(_AUTO_WORKERS, False):
        lines.append("maskverify: every core by default (pytest-xdist -n auto, no -n given); -n 0 runs serially")
    for pid, folder in config.stash.get(_OUTSIDE, []):
        lines.append(f"maskverify: pack {pid}'s witnesses from {folder} (its node ids are relative to that folder: "
                     f"pytest {folder}{os.sep}FILE::TEST, or pytest --pyargs MODULE -k TEST)")
    return lines or None


def pytest_configure(config):
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    load_profile()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch  # only in workers: a serial run keeps torch's own default

        torch.set_num_threads(1)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:  # an xdist worker collects what its controller chose
        if "maskverify_args" in workerinput:
            config.args[:] = list(workerinput["maskverify_args"])
        return
    chosen = _collection_args(config)
    if chosen is not None:
        config.args[:] = chosen
        config.stash[_ARGS] = chosen
    config.pluginmanager.register(_PackTimes(config), "maskverify-pack-times")


#: the repository whose ``verify/`` folder this plugin lives in
_REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_VERIFY = os.path.join(_REPOSITORY, "verify")


def _plugin_named(config) -> bool:
    """``-p maskverify`` (or ``-pmaskverify``) on the command line."""
    args = [str(a) for a in config.invocation_params.args]
    return any(a == "-pmaskverify" or (a == "-p" and b == "maskverify") for a, b in zip(args, args[1:] + [""]))


def _outside_packs(everything: bool = False) -> list[tuple[str, str]]:
    """(pack id, witness folder) of every installed pack outside this repository (``everything``:
    of every pack), from the entry points ``maskverify.papers``: a pack of this repository is not
    imported here (its folder is found through the repository's own collection).  A pack that
    fails to load is left out with a warning (``maskverify papers`` and the meta-tests name it)."""
    import importlib.util
    import warnings
    from importlib import metadata

    out = []
    for ep in sorted(metadata.entry_points(group="maskverify.papers"), key=lambda e: e.name):
        top = ep.value.split(":")[0].split(".")[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        origin = (spec.origin if spec is not None and spec.origin else
                  next(iter(spec.submodule_search_locations or ()), "") if spec is not None else "")
        inside = bool(origin) and os.path.abspath(origin).startswith(_REPOSITORY + os.sep)
        if inside and not everything:
            continue
        try:
            pack = ep.load()
            out.append((pack.paper.id, os.path.abspath(str(pack.verify_dir))))
        except Exception as exc:  # noqa: BLE001 -- named, not hidden, and the run goes on
            warnings.warn(f"maskverify: pack {ep.name!r} ({ep.value}) failed to load, its witnesses are not "
                          f"collected: {type(exc).__name__}: {exc}", stacklevel=1)
    return out


def _collection_args(config) -> list[str] | None:
    """The collection arguments with every installed pack's witness folder added, or None to
    leave them as they are: when the run collects this repository's ``verify/`` (a path argument
    or ``testpaths``), the outside packs' folders follow it; ``-p maskverify`` without a path
    argument collects every pack's witnesses."""
    args = list(config.args)
    named = _plugin_named(config) and config.args_source != pytest.Config.ArgsSource.ARGS
    here = [a for a in args if os.path.abspath(os.path.join(str(config.invocation_params.dir), a.split("::")[0]))
            == _VERIFY]
    if not named and not here:
        return None
    packs = _outside_packs(everything=named)
    if named:
        args = []
    seen = {os.path.abspath(os.path.join(str(config.invocation_params.dir), a.split("::")[0])) for a in args}
    added = [(pid, d) for pid, d in packs if d not in seen and os.path.isdir(d)]
    config.stash[_OUTSIDE] = [(pid, d) for pid, d in added if not d.startswith(_REPOSITORY + os.sep)]
    return args + [d for _pid, d in added] if added or named else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: a worker collects the arguments this plugin chose in the controller."""
    chosen = node.config.stash.get(_ARGS, None)
    if chosen is not None:
        node.workerinput["maskverify_args"] = list(chosen)


class _PackTimes:
    """Each test file's tests and time in one run (the controller's reports, xdist workers'
    included), and the terminal summary's line per pack; registered per run in
    ``pytest_configure``, so that an in-process ``pytest.main`` (``maskverify check``) keeps its own."""

    def __init__(self, config):
        self.config = config
        self.times: dict[str, list] = {}

    def pytest_runtest_logreport(self, report):
        # the location's path is relative to the root folder (a node id's, for a file outside it, is not)
        path = report.location[0] if getattr(report, "location", None) else report.nodeid.split("::")[0]
        entry = self.times.setdefault(path, [0, 0.0])
        entry[1] += float(getattr(report, "duration", 0.0) or 0.0)
        if report.when == "call" or (report.when == "setup" and not report.passed):
            entry[0] += 1

    def pytest_terminal_summary(self, terminalreporter):
        """One line per pack whose witnesses ran: tests, their summed time, and its share of the
        wall time under ``-n N``; then the tests of no pack."""
        config = self.config
        if not self.times:
            return
        per, other = pack_times(self.times, str(config.rootpath))
        if not per:
            return
        marks = config.option.markexpr or ""
        tier = ("default tier" if marks.replace(" ", "") == "notslowandnotgpu" else f"-m {marks!r}" if marks
                else "all tiers")
        workers = getattr(config.option, "numprocesses", None) or 0
        workers = workers if isinstance(workers, int) and workers > 1 else 1
        tr = terminalreporter
        tr.write_sep("-", f"maskverify: time per pack ({tier}; the sum of its tests' durations"
                          + (f", wall about that / {workers} workers" if workers > 1 else "") + ")")
        for pid, (n, secs) in per.items():
            tr.write_line(f"{pid}: {n} tests, {secs:.1f} s" + (f" (about {secs / workers:.1f} s of wall time)"
                                                              if workers > 1 else ""))
        if other[0]:
            tr.write_line(f"(not a pack's witnesses: {other[0]} tests, {other[1]:.1f} s)")


def _pack_of_file(path: str, outside: list[tuple[str, str]] | None) -> str | None:
    """The pack whose witnesses ``path`` (absolute) is: this repository's ``verify/<id>/``, or an
    outside pack's folder."""
    if path.startswith(_VERIFY + os.sep):
        rest = path[len(_VERIFY) + 1:].split(os.sep)
        return rest[0] if len(rest) > 1 else None
    for pid, folder in outside or ():
        if path == folder or path.startswith(folder + os.sep):
            return pid
    return None


def pack_times(times: dict, root: str) -> tuple[dict[str, list], list]:
    """``{pack id: [tests, seconds]}`` of a run's ``{file: [tests, seconds]}`` (node-id paths relative
    to ``root``), and [tests, seconds] of the files of no pack."""
    files = {os.path.normpath(os.path.join(root, f)): v for f, v in times.items()}
    outside = _outside_packs() if any(not p.startswith(_REPOSITORY + os.sep) for p in files) else None
    per, other = {}, [0, 0.0]
    for path, (n, secs) in files.items():
        pid = _pack_of_file(path, outside)
        slot = other if pid is None else per.setdefault(pid, [0, 0.0])
        slot[0] += n
        slot[1] += secs
    return dict(sorted(per.items())), other


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
