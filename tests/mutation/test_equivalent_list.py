"""The kept list of equivalent mutants (bench/mutation/equivalent.toml) stays true to the
sources: every entry names a configured module and a function of it that still contains the
line the mutant removes, differs from it in the line it adds, and gives a reason.  (If the
source changes under an entry, the entry must be re-examined, not silently kept.)"""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = tomllib.loads((ROOT / "bench/mutation/equivalent.toml").read_text())["equivalent"]
MODULES = tomllib.loads((ROOT / "bench/mutation/modules.toml").read_text())["modules"]


def function_lines(path: Path, name: str) -> list[str] | None:
    source = path.read_text()
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return [ln.strip() for ln in lines[node.lineno - 1:node.end_lineno]]
    return None


def test_every_entry_matches_the_source():
    paths = {spec["path"] for spec in MODULES.values()}
    assert ENTRIES
    for e in ENTRIES:
        assert set(e) == {"module", "function", "removed", "added", "reason"}, e
        assert e["module"] in paths, e["module"]
        body = function_lines(ROOT / e["module"], e["function"])
        assert body is not None, f"{e['module']}: no function {e['function']}"
        assert e["removed"].strip() in body, f"{e['module']}:{e['function']}: {e['removed']!r} is gone"
        assert e["added"].strip() != e["removed"].strip()
        assert len(e["reason"]) > 40  # a reason a reader can check, not a label


def test_no_entry_is_listed_twice():
    keys = [(e["module"], e["function"], e["removed"], e["added"]) for e in ENTRIES]
    assert len(keys) == len(set(keys))


def test_every_configured_test_path_exists():
    for key, spec in MODULES.items():
        assert (ROOT / spec["path"]).is_file(), key
        for t in spec["tests"]:
            assert (ROOT / t.split("::")[0]).exists(), (key, t)
