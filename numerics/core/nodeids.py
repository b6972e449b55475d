"""Test ids that run from where their pack lives.

pytest names a test by a node id relative to the run's root folder, which depends on the folders
that run collected (``maskverify check`` over a pack of this repository and a distribution installed
elsewhere has a common parent far above either).  What the suite prints -- reasons, reproducing
commands, the errata's test lists -- must instead be typed as printed.  So every test is named
here in a *runnable* form:

- a pack inside this repository (its file under ``REPOSITORY``): the path relative to the
  repository's root, ``verify/masking/test_s4_gaussian_fast.py::test_x``, run from that root
  (``pytest 'verify/masking/...::test_x'``);
- a pack in a distribution of its own: the test module's import name, ``maskverify_williams.
  verify.test_s3_erf::test_x``, run with ``pytest --pyargs`` from any folder of an environment
  where the distribution is installed (``pytest --pyargs 'maskverify_williams.verify.test_s3_erf::test_x'``);
- a test file that is not importable (a folder without ``__init__.py``): its absolute path.

A distribution's tests may also be named relative to the distribution's root (the folder holding
its top-level package, where ``pip install -e .`` ran): ``maskverify_williams/verify/test_s3_erf.py::
test_x``, which runs from that folder; ``forms`` gives every accepted name of a test, so that an
errata file may list either.
"""
from __future__ import annotations

from pathlib import Path

#: the root of this repository (the checkout holding ``numerics/``, ``verify/``, ``pyproject.toml``)
REPOSITORY = Path(__file__).resolve().parents[2]


def _split(nodeid: str) -> tuple[str, str]:
    """(file part, the rest from ``::`` on; '' for a bare file or module)."""
    head, sep, rest = nodeid.partition("::")
    return head, sep + rest


def in_repository(path: str | Path) -> bool:
    """Whether ``path`` lies inside this repository's checkout."""
    p = Path(path).resolve()
    return p == REPOSITORY or REPOSITORY in p.parents


def package_root(path: str | Path) -> Path | None:
    """The folder above the outermost package holding the file ``path`` (each folder on the way
    up has an ``__init__.py``): the ``sys.path`` entry it is imported from; None for a file not
    inside a package."""
    p = Path(path).resolve()
    folder = p.parent
    if not (folder / "__init__.py").is_file():
        return None
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder.parent


def module_of(path: str | Path) -> str | None:
    """The import name of the Python file ``path`` (``pkg.verify.test_x``), None when it is not
    inside a package."""
    p = Path(path).resolve()
    root = package_root(p)
    if root is None or p.suffix != ".py":
        return None
    return ".".join(p.relative_to(root).with_suffix("").parts)


def runnable(path: str | Path, rest: str = "") -> str:
    """The runnable id (module docstring) of the test ``rest`` (``::name[params]``, '' for the
    whole file) in the file ``path``."""
    p = Path(path).resolve()
    if in_repository(p):
        return p.relative_to(REPOSITORY).as_posix() + rest
    module = module_of(p)
    return (module if module is not None else str(p)) + rest


def forms(path: str | Path, rest: str = "") -> set[str]:
    """Every name a list of tests (an erratum's ``tests``) may give the test: its runnable id and,
    for a distribution's test, the path relative to the distribution's root."""
    p = Path(path).resolve()
    out = {runnable(p, rest)}
    if not in_repository(p):
        root = package_root(p)
        if root is not None:
            out.add(p.relative_to(root).as_posix() + rest)
    return out


def from_root(root: str | Path, nodeid: str) -> str:
    """The runnable id of the node id ``nodeid`` of a pytest run rooted at ``root``."""
    head, rest = _split(nodeid)
    return runnable(Path(root) / head, rest)


def is_module_id(nodeid: str) -> bool:
    """Whether ``nodeid`` names its file by import name (run with ``--pyargs``), not by path."""
    head, _ = _split(nodeid)
    return bool(head) and "/" not in head and not head.endswith(".py") and not Path(head).is_absolute()


def pytest_args(nodeid: str) -> list[str]:
    """The arguments of ``pytest`` that select ``nodeid``: ``['--pyargs', ID]`` for an import
    name, ``[ID]`` for a path."""
    return ["--pyargs", nodeid] if is_module_id(nodeid) else [nodeid]


def command(nodeid: str, *more: str) -> str:
    """``pytest [--pyargs] 'ID' MORE...`` as a line to type (the id in single quotes, as the check
    table has always printed it: brackets of parameters stay literal)."""
    return " ".join(["pytest", *("--pyargs",) * is_module_id(nodeid), f"'{nodeid}'", *more])


def where_it_runs(path: str | Path) -> str:
    """Where a pack's commands run, for the pack whose files include ``path``: "the repository
    root" or "any folder (the distribution installed)"."""
    return "the repository root" if in_repository(path) else "any folder of an environment where the distribution is installed"
