"""``maskverify new ID``: write a working pack skeleton (``numerics.app.skeleton``) with its
generated notes, register its entry point, and say the one command that makes it visible.

In this repository (default) it writes ``theory/ID/``, ``numerics/ID/``, ``verify/ID/`` and
``notes/ID/`` beside the installed packs and adds ``ID = "numerics.ID.pack:PACK"`` to the
repository's ``pyproject.toml``; with ``--dist DIR`` it writes a distribution of its own in
``DIR`` (``pyproject.toml`` and the package ``maskverify_ID``) and touches nothing else.
Either way the entry point is seen only once the distribution is (re)installed: ``pip install
-e .`` in the folder of that ``pyproject.toml``.

``--from SOURCE`` (a LaTeX file, an arXiv source folder or tarball, or a text extraction; given
twice for a paper split over two files) drafts the pack from the paper
(``numerics.core.source_draft``): its source index, one ``[[result]]`` per theorem-like result,
numbered display, figure and table, each citing a placeholder statement that is ``not checked``
("no witness yet") and carries the paper's text, so that ``maskverify check`` lists the whole paper
at once.  Without it the skeleton has one example statement (which holds) and an index of it.
A source that cannot be read, or in which nothing is found, is a one-line error (exit 2) and
nothing is written.
"""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

#: ids ``maskverify new`` accepts: a Python identifier in lower case (it names packages)
NEW_ID = re.compile(r"^[a-z][a-z0-9_]*$")
#: folders of the core that a pack id may not take
RESERVED = frozenset({"core", "app"})
SECTION = '[project.entry-points."maskverify.papers"]'


def add_subcommand(sub) -> None:
    """Register ``maskverify new`` on the CLI's subparsers."""
    from numerics.core.cliargs import output

    p = sub.add_parser(
        "new", help="write a new paper pack (drafted from the paper with --from, or a skeleton) and its entry point",
        description="Write a working skeleton of a paper pack: its Paper with one placeholder statement "
                    "(the mean of a normal variable, so that everything passes as written), a symbolic and a "
                    "reference witness, the LaTeX witness, an empty errata.toml, a source index of the example "
                    "(sources.toml) and the generated notes (errata.md, sources.md, LaTeX), and the pack's entry "
                    "point; with --from SOURCE, the source index drafted from the paper and one placeholder "
                    "statement per result (not checked: no witness yet) instead of the example.  Then run the "
                    "command it prints "
                    "(pip install -e .) to make the pack visible to maskverify; docs/adding-a-paper.md "
                    "explains every file.",
        epilog="In this repository (default): theory/ID/, numerics/ID/, verify/ID/, notes/ID/ and one line in "
               "pyproject.toml.  --dist DIR: a separate distribution in DIR (pyproject.toml, package "
               "maskverify_ID/ with paper.py, pack.py, verify/, notes/).  Nothing existing is overwritten.")
    p.add_argument("id", metavar="ID", help="the pack id: lower-case letters, digits and _, starting with a letter")
    p.add_argument("--title", required=True, help="the paper's title")
    p.add_argument("--authors", required=True, help="the authors, comma-separated")
    p.add_argument("--reference", required=True, help="where the paper is (arXiv id, venue, DOI)")
    p.add_argument("--dist", metavar="DIR", type=output("dir"), help="write a distribution of its own in DIR (new or empty) instead")
    p.add_argument("--from", dest="sources", metavar="SOURCE", action="append",
                   help="draft the pack from the paper: a LaTeX file (with \\documentclass), an arXiv source folder or "
                        "tarball, or a .txt/.md extraction (given twice: one paper in two files); its source index and "
                        "one placeholder statement per result, not checked: no witness yet")
    p.set_defaults(func=run)


def _one_line(name: str, text: str) -> str:
    from numerics.core.cliargs import UsageError

    text = text.strip()
    if not text or "\n" in text or '"""' in text or "\\" in text:
        raise UsageError(f"--{name} must be one non-empty line without backslashes or triple quotes, got {text!r}")
    return text


def _validate_id(pack_id: str) -> None:
    from numerics.core import registry
    from numerics.core.cliargs import UsageError

    if not NEW_ID.match(pack_id) or pack_id in RESERVED:
        raise UsageError(f"pack id {pack_id!r} must match {NEW_ID.pattern} and not be one of {', '.join(sorted(RESERVED))}")
    if pack_id in registry.packs():
        raise UsageError(f"a pack {pack_id!r} is already installed")
    if pack_id in registry.unregistered():
        raise UsageError(f"a pack {pack_id!r} is already declared in {registry.unregistered()[pack_id]}")


def repository_root() -> Path:
    """This source checkout (the folder above ``numerics/`` with maskverify's pyproject.toml), or
    a ``UsageError`` when maskverify runs from an installed copy."""
    import tomllib

    from numerics.core.cliargs import UsageError

    root = Path(__file__).resolve().parents[2]
    try:
        name = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        name = None
    if name != "maskverify":
        raise UsageError(f"{root} is not a maskverify source checkout: write a distribution of its own with --dist DIR")
    return root


def add_entry_point(pyproject: Path, pack_id: str, value: str) -> None:
    """Add ``pack_id = "value"`` as the last line of the ``maskverify.papers`` entry points of
    ``pyproject`` (the section is appended when missing), leaving every other line as it is."""
    from numerics.core import registry
    from theory.core.io import atomic_write

    lines = pyproject.read_text(encoding="utf-8").split("\n")
    entry = f'{pack_id} = "{value}"'
    if SECTION in lines:
        at = lines.index(SECTION) + 1
        last = at
        while at < len(lines) and not lines[at].startswith("["):
            if lines[at].strip() and not lines[at].lstrip().startswith("#"):
                last = at + 1
            at += 1
        lines.insert(last, entry)
    else:
        lines += ["", SECTION, entry, ""]
    atomic_write(pyproject, "\n".join(lines))
    if registry.declared(pyproject).get(pack_id) != value:
        raise RuntimeError(f"{pyproject}: the entry point {entry} did not parse back")


def _write(root: Path, files: dict[str, str]) -> list[Path]:
    from numerics.core.cliargs import UsageError
    from theory.core.io import atomic_write

    taken = [rel for rel in files if (root / rel).exists()]
    if taken:
        raise UsageError(f"would overwrite {', '.join(taken)} in {root}")
    out = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        out.append(atomic_write(path, text))
    return out


def _plural(kind: str) -> str:
    """``corollary`` -> ``corollaries``, ``theorem`` -> ``theorems``, ``prose`` -> ``prose``."""
    return kind if kind == "prose" else kind[:-1] + "ies" if kind.endswith("y") else kind + "s"


def run(args) -> int:
    """Write the skeleton, its notes and its entry point; print what was written and the command
    that makes the pack visible.  Bad input or an existing file is a ``UsageError``."""
    from numerics.core import notes
    from numerics.core import source_draft
    from numerics.core.cliargs import UsageError

    from . import skeleton

    _validate_id(args.id)
    title, reference = _one_line("title", args.title), _one_line("reference", args.reference)
    authors = tuple(a.strip() for a in _one_line("authors", args.authors).split(",") if a.strip())
    draft, source_text = None, ""
    if getattr(args, "sources", None):
        source_text = " ".join(args.sources)
        try:
            draft = source_draft.draft_many(args.sources)
        except source_draft.DraftError as exc:
            raise UsageError(f"--from {exc}") from None
    if args.dist:
        root = Path(args.dist).resolve()
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise UsageError(f"--dist {args.dist}: exists and is not an empty directory")
        layout = skeleton.Layout.distribution(args.id)
    else:
        root = repository_root()
        layout = skeleton.Layout.in_repository(args.id)
    root.mkdir(parents=True, exist_ok=True)
    written = _write(root, skeleton.files(layout, title, authors, reference, draft=draft, source_text=source_text))
    if not args.dist:
        add_entry_point(root / "pyproject.toml", args.id, layout.entry_point)
    if args.dist:
        sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    pack = importlib.import_module(layout.pack_module).PACK
    written += [s.path for s in notes.write(pack)]  # errata.md, sources.md, the LaTeX
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    if not args.dist:
        print(f"added {args.id} = \"{layout.entry_point}\" to {root / 'pyproject.toml'}")
    cd = "" if root == Path.cwd().resolve() else f"cd {root} && "
    if draft is not None:
        counts = ", ".join(f"{n} {_plural(kind) if n > 1 else kind}" for kind, n in draft.counts().items())
        print(f"\ndrafted {len(draft.results)} results from {draft.source} ({draft.format}): {counts}")
        print(f"next: make the pack visible ({cd}pip install -e .), then `maskverify check --paper {args.id}` lists "
              f"all {len(draft.results)} as not checked (no witness yet); complete {layout.notes_dir}/sources.toml by "
              f"reading the paper, then replace the placeholders in {layout.path_of(layout.theory_module)} one by one, "
              "each with its witnesses (docs/adding-a-paper.md)")
        return 0
    print(f"\nMake the pack visible to maskverify (it reads entry points from the installed metadata):\n"
          f"  {cd}pip install -e .\n"
          f"then: pytest {layout.verify_dir} && maskverify check --paper {args.id} && maskverify notes --check "
          f"--paper {args.id}")
    return 0
