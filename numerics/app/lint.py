"""``maskverify lint``: the layout rules of DESIGN.md ("Layout") checked on source files, for the
suite itself and for every pack, wherever its files live (an installed distribution outside this
repository included).  ``tests/test_layout.py`` runs the same rules on every installed pack.

The rules, read from the source with ``ast`` (imports at module level and inside functions, so
that a forbidden import is seen even if nothing executes it):

- ``theory`` never imports numpy, torch or scipy, nor ``numerics`` or ``verify``;
- ``numerics`` never imports ``verify`` (verify depends on numerics, not back);
- the core (``theory.core``, ``numerics.core``, ``verify``'s own modules) imports no pack and not
  the application; no module but the application's imports ``numerics.app``;
- a pack imports the core and itself, never another pack;
- no import cycle between modules.

Where a pack's files are: the modules that hold its ``PaperPack`` or its ``Paper`` (found among
the loaded modules, by their ``__file__``) name its packages (``numerics.masking`` and
``theory.masking`` in this repository, ``maskverify_williams`` for a distribution), and its
``verify_dir`` its witnesses.  In this repository a module's layer is its top package
(``theory``, ``numerics``, ``verify``); in a distribution, which keeps both halves in one
package, the module that holds the ``Paper`` and every module of the pack it imports are its
theory, the witnesses under ``verify_dir`` its verify layer, the rest its numerics.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: array libraries the theory may not import
ARRAY_LIBS = frozenset({"numpy", "torch", "scipy"})
#: the suite's own top packages
TOPS = ("theory", "numerics", "verify")
#: parts of the suite's top packages that are no pack
GENERIC = ("core", "app")


@dataclass(frozen=True)
class Source:
    """One module file: its path, importable name, pack (None for the suite's own modules),
    layer (``theory``, ``numerics`` or ``verify``) and part (``core``, ``app`` or the pack id)."""

    path: Path
    module: str
    pack: str | None
    layer: str
    part: str

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


@dataclass
class Layout:
    """The sources to lint and what the rules need to know of every pack installed."""

    sources: list[Source] = field(default_factory=list)
    #: every module known (name -> Source), the linted ones and every pack's
    modules: dict[str, Source] = field(default_factory=dict)
    #: package name prefix -> pack id, for the packs' distribution packages and repository folders
    owners: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------- finding files
def module_name(path: Path) -> str:
    """The importable name of a file: its package folders up to the first without ``__init__.py``."""
    path = Path(path).resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def _holders(*objects) -> list[str]:
    """The loaded modules holding one of ``objects`` as a global."""
    out = []
    for name, module in list(sys.modules.items()):
        values = getattr(module, "__dict__", None) or {}
        if any(any(v is o for o in objects) for v in list(values.values())):
            out.append(name)
    return out


def _package_of(module: str) -> str:
    """The pack's package a module of it belongs to: ``numerics.masking`` for
    ``numerics.masking.pack``, ``maskverify_williams`` for ``maskverify_williams.pack``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in TOPS else parts[0]


def _folder(package: str) -> Path | None:
    module = sys.modules.get(package)
    file = getattr(module, "__file__", None)
    return Path(file).resolve().parent if file else None


def _entry_top(pack_id: str) -> str | None:
    """The top-level package of the entry point that installs pack ``pack_id`` (None for a pack
    registered in-process)."""
    from importlib import metadata

    from numerics.core.registry import GROUP

    for ep in metadata.entry_points(group=GROUP):
        if ep.name == pack_id:
            return ep.module.split(".")[0]
    return None


def pack_packages(pack) -> dict[str, Path]:
    """``{package: folder}`` of ``pack``'s modules: the packages of the modules holding its
    ``PaperPack`` or ``Paper``, and the package of its witnesses' folder.  For an installed pack
    only holders in its entry point's top-level package (or the suite's) count: any other module
    may hold a reference to it (a test module's global), which does not make that module the pack's."""
    packages = {}
    top = _entry_top(pack.id)
    for name in _holders(pack, pack.paper):
        if top is not None and name.split(".")[0] not in (top, *TOPS):
            continue
        package = _package_of(name)
        if package.split(".")[0] in TOPS and package.split(".")[-1] in GENERIC + ("",):
            continue
        folder = _folder(package)
        if folder is not None and package.split(".")[0] != "verify":
            packages[package] = folder
    verify_dir = Path(pack.verify_dir).resolve()
    if verify_dir.is_dir() and not any(verify_dir.is_relative_to(f) for f in packages.values()):
        packages[module_name(verify_dir / "__init__.py") or verify_dir.name] = verify_dir
    return packages


def _walk(folder: Path):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _suite_source(path: Path, packs: set[str]) -> Source:
    module = module_name(path)
    parts = module.split(".")
    layer = parts[0]
    second = parts[1] if len(parts) > 1 else None
    nested = len(parts) > 2 or (len(parts) == 2 and path.name == "__init__.py")
    if second in GENERIC:
        return Source(path, module, None, layer, second)
    if second is not None and (nested or second in packs):
        return Source(path, module, second, layer, second)
    return Source(path, module, None, layer, "core")  # theory/__init__.py, verify/plugin.py


def _imported_within(source: Source, known: dict[str, Source]) -> list[str]:
    return [t for t, _line in imports(source.path, source.module, known) if t in known]


def layout(packs, *, suite: bool = True) -> Layout:
    """The sources of the suite itself (``suite``: every module of ``theory``, ``numerics`` and
    ``verify``, with this repository's packs) and of every pack in ``packs`` (a list of
    ``PaperPack``), classified by layer and part."""
    from numerics.core import registry

    everyone = registry.packs()
    ids = set(everyone)
    lay = Layout()
    # located, not imported (the application may not import verify)
    roots = [Path(importlib.util.find_spec(top).origin).resolve().parent for top in TOPS]
    for root in roots:  # every module of the suite is known (imports are resolved against them)
        for path in _walk(root):
            src = _suite_source(path, ids)
            lay.modules[src.module] = src
            if src.pack is not None:
                lay.owners[f"{src.layer}.{src.pack}"] = src.pack
    chosen = {p.id for p in packs}
    for pack in everyone.values():
        outside = {pkg: folder for pkg, folder in pack_packages(pack).items()
                   if not any(folder.is_relative_to(r) for r in roots)}
        for pkg in outside:
            lay.owners[pkg] = pack.id
        found = {}
        for folder in outside.values():
            for path in _walk(folder):
                found[module_name(path)] = path
        theory_mods = _theory_closure(pack, found)
        verify_dir = Path(pack.verify_dir).resolve()
        for mod, path in found.items():
            layer = ("theory" if mod in theory_mods else
                     "verify" if path.is_relative_to(verify_dir) else "numerics")
            lay.modules[mod] = Source(path, mod, pack.id, layer, pack.id)
    for src in lay.modules.values():
        if (suite and src.pack is None) or src.pack in chosen:
            lay.sources.append(src)
    lay.sources.sort(key=lambda s: s.module)
    return lay


def _theory_closure(pack, found: dict[str, Path]) -> set[str]:
    """The modules of a distribution that are its theory: those holding its ``Paper`` and, from
    them, every module of the distribution they import, but the pack record's and the witnesses'
    (a theory module importing those is reported, not taken for theory)."""
    numerical = set(_holders(pack))
    verify_dir = Path(pack.verify_dir).resolve()
    numerical |= {m for m, path in found.items() if path.is_relative_to(verify_dir)}
    start = [m for m in _holders(pack.paper) if m in found and m not in numerical]
    seen, todo = set(), list(start)
    while todo:
        mod = todo.pop()
        if mod in seen or mod in numerical:
            continue
        seen.add(mod)
        todo += [t for t, _ in imports(found[mod], mod, found) if t in found]
    return seen


# ---------------------------------------------------------------------------- reading imports
def imports(path: Path, module: str, known=()) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import of ``path`` (module ``module``), relative ones
    resolved; ``from a import b`` names ``a.b`` where that is a module of ``known``."""
    package = module if Path(path).name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for level, target, names, line in _statements(str(Path(path).resolve()), Path(path).stat().st_mtime_ns):
        if names is None:
            out.append((target, line))
            continue
        if level:
            base = package.split(".")[: len(package.split(".")) - level + 1]
            target = ".".join(base + ([target] if target else []))
        for a in names:
            name = f"{target}.{a}"
            out.append((name if name in known else target, line))
    return out


@functools.lru_cache(maxsize=4096)
def _statements(path: str, _mtime: int) -> tuple:
    """``(level, module, names or None, line)`` of every import statement of a file (parsed once
    per version of the file)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(0, a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module, tuple(a.name for a in node.names), node.lineno))
    return tuple(out)


def _target(lay: Layout, target: str) -> tuple[str | None, str | None, str | None]:
    """(layer, part, pack) of an imported module: a known module's own; a name of the suite's
    top packages by its parts; a pack's distribution package by its owner; else Nones."""
    src = lay.modules.get(target)
    if src is not None:
        return src.layer, src.part, src.pack
    for prefix, owner in lay.owners.items():
        if target == prefix or target.startswith(prefix + "."):
            return ("numerics" if prefix.split(".")[0] not in TOPS else prefix.split(".")[0]), owner, owner
    parts = target.split(".")
    if parts[0] in TOPS:
        return parts[0], parts[1] if len(parts) > 1 else None, None
    return None, None, None


# ---------------------------------------------------------------------------- the rules
def violations(source: Source, lay: Layout) -> list[tuple[int, str]]:
    """``(line, message)`` of every import of ``source`` that breaks a layout rule."""
    bad = []
    for target, line in imports(source.path, source.module, lay.modules):
        tlayer, tpart, tpack = _target(lay, target)
        root = target.split(".")[0]
        if source.layer == "theory" and (root in ARRAY_LIBS or tlayer in ("numerics", "verify")):
            bad.append((line, f"theory imports {target}"))
        if source.layer == "numerics" and tlayer == "verify":
            bad.append((line, f"numerics imports {target} (verify depends on numerics, not back)"))
        if source.part == "core" and tpack is not None:
            bad.append((line, f"the core imports {target}"))
        if source.pack is not None and tlayer is not None and tpack != source.pack and tpart not in ("core", None):
            bad.append((line, f"pack {source.pack} imports {target}"))
        if tlayer == "numerics" and tpart == "app" and source.part != "app":
            bad.append((line, f"{source.module} imports the application ({target})"))
    return list(dict.fromkeys(bad))


def import_cycles(graph: dict[str, list[str]]) -> list[str]:
    """Every cycle of ``{module: [modules it imports]}`` that a depth-first search meets, as
    ``a -> b -> a``; imports of modules outside the graph and of itself are ignored."""
    graph = {m: sorted({t for t in targets if t in graph and t != m}) for m, targets in graph.items()}
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return cycles


def cycles(lay: Layout) -> list[str]:
    """The import cycles among the linted sources (through imports inside functions too: those
    only defer a cycle)."""
    return import_cycles({s.module: [t for t, _ in imports(s.path, s.module, lay.modules)] for s in lay.sources})


def _shown(path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def lint(packs, *, suite: bool = True, lay: Layout | None = None) -> list[str]:
    """One line per violation, ``path:line: module: message``, then one per cycle (``lay``: the
    layout of ``packs`` when already read)."""
    lay = lay or layout(packs, suite=suite)
    lines = [f"{_shown(s.path)}:{line}: {s.module}: {message}"
             for s in lay.sources for line, message in violations(s, lay)]
    lines += [f"import cycle: {c}" for c in cycles(lay)]
    return lines


# ---------------------------------------------------------------------------- the command
def add_subcommand(sub) -> None:
    """Register ``maskverify lint`` on the CLI's subparsers."""
    from numerics.core.cliargs import add_paper_argument

    p = sub.add_parser(
        "lint", help="check the layout rules on the suite and every pack's source files",
        description="Check the layout rules (DESIGN.md, 'Layout') on source files, wherever a pack's files "
                    "live (a distribution installed outside this repository included): theory never imports "
                    "numpy, torch or scipy, nor numerics or verify; numerics never imports verify; the core "
                    "imports no pack and not the application; a pack imports no other pack; no import cycle. "
                    "One line per violation (file:line: module: rule); exit status 1 when there is any, 0 "
                    "when there is none, 2 for bad input (an unknown --paper).")
    add_paper_argument(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from numerics.core.cliargs import papers

    chosen = papers(args)
    suite = getattr(args, "paper", None) is None
    lay = layout(chosen, suite=suite)
    lines = lint(chosen, suite=suite, lay=lay)
    for line in lines:
        print(line)
    what = ("the suite and " if suite else "") + (f"pack{'s' if len(chosen) != 1 else ''} "
                                                 + ", ".join(p.id for p in chosen) if chosen else "no pack")
    n = len(lay.sources)
    if lines:
        print(f"maskverify lint: {len(lines)} violation{'s' if len(lines) != 1 else ''} in {what} ({n} files)",
              file=sys.stderr)
        return 1
    print(f"maskverify lint: {what}: {n} files, no violation")
    return 0
