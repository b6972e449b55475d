"""The architecture, enforced (DESIGN.md, "Layout"): dependencies point app -> packs -> core and
theory -> numerics -> verify; ``theory`` never imports numpy or torch; the core names no pack;
a pack imports no other pack; there are no import cycles between modules.

Imports are read from the source with ``ast`` (module level and inside functions), so a
forbidden import fails here even if no test executes it.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from numerics.core import registry

ROOT = Path(__file__).resolve().parents[1]
PACKS = set(registry.packs())
ARRAY_LIBS = {"numpy", "torch", "scipy"}


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path: Path, mod: str | None = None) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import in ``path`` (module ``mod``, by
    default its place in the tree), relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    mod = mod or _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            names = [f"{target}.{a.name}" for a in node.names]
            out += [(n if _is_module(n) else target, id(node) in top) for n in names]
    return out


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


SOURCES = sorted(p for top in ("theory", "numerics", "verify") for p in (ROOT / top).rglob("*.py"))


def _layer(mod: str) -> tuple[str, str | None]:
    """(top package, pack or 'core'/'app'/None) of a module name."""
    parts = mod.split(".")
    second = parts[1] if len(parts) > 1 else None
    return parts[0], second


def _violations(path: Path, mod: str | None = None) -> list[str]:
    mod = mod or _module(path)
    top, part = _layer(mod)
    bad = []
    for target, _ in _imports(path, mod):
        ttop, tpart = _layer(target)
        root = target.split(".")[0]
        if top == "theory" and (root in ARRAY_LIBS or ttop in ("numerics", "verify")):
            bad.append(f"theory imports {target}")
        if top == "numerics" and ttop == "verify":
            bad.append(f"numerics imports {target} (verify depends on numerics, not back)")
        if part == "core" and ttop in ("theory", "numerics") and tpart not in ("core", None):
            bad.append(f"the core imports {target}")
        if part in PACKS and ttop in ("theory", "numerics") and tpart not in ("core", part, None):
            bad.append(f"pack {part} imports {target}")
        if ttop == "numerics" and tpart == "app" and part != "app":
            bad.append(f"{mod} imports the application ({target})")
    return bad


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_one_way(path):
    assert _violations(path) == []


@pytest.mark.parametrize("mod, source, expected", [
    ("numerics.core.planted", "from numerics.masking import network\nimport torch\n",
     ["the core imports numerics.masking.network"]),
    ("theory.core.planted", "import numpy as np\n", ["theory imports numpy"]),
    ("numerics.masking.planted", "from ..app import cli\n",
     ["pack masking imports numerics.app.cli", "numerics.masking.planted imports the application (numerics.app.cli)"]),
    ("numerics.masking.planted", "from verify import plugin\n",
     ["numerics imports verify.plugin (verify depends on numerics, not back)"]),
])
def test_the_checker_sees_a_forbidden_import(mod, source, expected, tmp_path):
    """Planted forbidden imports are reported."""
    planted = tmp_path / "planted.py"
    planted.write_text(source)
    assert _violations(planted, mod) == expected


def import_cycles(imports: dict[str, list[str]]) -> list[str]:
    """Every cycle of the graph ``{module: [modules it imports]}`` that a depth-first search
    meets, as ``a -> b -> a``; imports of modules outside the graph and of itself are ignored."""
    graph = {m: sorted({t for t in targets if t in imports and t != m}) for m, targets in imports.items()}
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


def test_no_import_cycles():
    """No cycle between modules, through imports at module level or inside functions alike: a
    function-level import only defers the cycle (the two modules still cannot be read, tested
    or moved apart)."""
    modules = {_module(p): p for p in SOURCES}
    assert import_cycles({mod: [t for t, _ in _imports(path)] for mod, path in modules.items()}) == []


def test_the_checker_sees_a_cycle_through_a_function_level_import(tmp_path):
    """A planted pair of modules, one importing the other inside a function, is a cycle."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("import numerics.app.planted_b\n")
    b.write_text("def render():\n    from numerics.app.planted_a import X\n")
    graph = {"numerics.app.planted_a": [t for t, _ in _imports(a, "numerics.app.planted_a")],
             "numerics.app.planted_b": [t for t, _ in _imports(b, "numerics.app.planted_b")]}
    assert import_cycles(graph) == ["numerics.app.planted_a -> numerics.app.planted_b -> numerics.app.planted_a"]


def test_public_names_of_the_masking_pack():
    import numerics.masking as pack

    for name in ("mask_moment1", "mask_moment2", "expected_loss", "expected_grad", "theorem_4_2",
                 "definition_4_1", "ntk_gram", "lambda0"):
        assert callable(getattr(pack, name))


def test_test_files_outside_packages_have_unique_names():
    """pytest imports a test file of a folder without ``__init__.py`` (``tests/``, ``tests/<pack>/``)
    by its basename: two such files with one name break a session that collects both ("import
    file mismatch").  A pack's tests are named for the pack (``test_<pack>_campaigns.py``)."""
    seen = defaultdict(list)
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if not (path.parent / "__init__.py").exists():
            seen[path.name].append(path.relative_to(ROOT).as_posix())
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"test files sharing a name outside packages: {clashes}"
