"""What a pack commits that is generated from its data, and whether the committed copy is current.

A pack's notes folder (the folder of its errata file, ``notes/<id>/`` in this repository) holds
two generated things beside the notes written by hand:

- ``errata.md``, rendered from ``errata.toml`` (``numerics.core.errata.render_markdown``), when
  the data file exists;
- ``sources.md``, rendered from the source index (``numerics.core.sources.render_markdown``), when
  the pack has one;
- ``latex/``: one fragment per statement and the pack's ``formulas.tex``
  (``theory.core.latex.files``), for every pack.

:func:`stale` lists what differs from a fresh rendering (a file missing, different, or left
over: a ``.tex`` in ``latex/`` no statement makes any more, an ``errata.md`` without its
data); :func:`write` regenerates exactly that.  ``maskverify notes`` is the command
(``numerics.app.notes_cmd``), and ``tests/test_notes_current.py`` asserts ``stale`` is empty
for every registered pack.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from theory.core.latex import files as latex_files

from . import errata, sources

#: the subfolder of a pack's notes that holds its generated LaTeX
LATEX_DIR = "latex"
#: the command that regenerates one pack's generated notes
COMMAND = "maskverify notes --paper {id}"


@dataclass(frozen=True)
class Stale:
    """One generated file that is not current: ``why`` is ``missing``, ``differs`` or
    ``left over`` (nothing generates it any more; :func:`write` removes it)."""

    path: Path
    why: str


def notes_dir(pack) -> Path:
    """The pack's notes folder: where its errata file is (``notes/<id>/``)."""
    return Path(pack.errata).parent


def latex_dir(pack) -> Path:
    """Where the pack's generated LaTeX is committed: ``notes/<id>/latex/``."""
    return notes_dir(pack) / LATEX_DIR


def generated(pack) -> dict[Path, str]:
    """Every generated file the pack commits, ``{path: text}``: its ``errata.md`` (when its
    errata data exist), its ``sources.md`` (when it has a source index) and its LaTeX."""
    out = {}
    if Path(pack.errata).exists():
        out[errata.markdown_path(pack)] = errata.render_markdown(pack, errata.load(pack))
    if pack.index is not None:
        out[sources.markdown_path(pack.index)] = sources.render_markdown(pack.index, pack.title)
    out.update({latex_dir(pack) / name: text for name, text in latex_files(pack.paper).items()})
    return out


def stale(pack) -> list[Stale]:
    """What differs between the pack's committed generated files and :func:`generated`, in
    path order.  Raises ``ValueError`` (from ``errata.load``) when its errata data are invalid."""
    fresh = generated(pack)
    out = [Stale(path, "missing" if not path.exists() else "differs") for path, text in fresh.items()
           if not path.exists() or path.read_text(encoding="utf-8") != text]
    folder = latex_dir(pack)
    if folder.is_dir():
        out += [Stale(path, "left over") for path in folder.glob("*.tex") if path not in fresh]
    md = errata.markdown_path(pack)
    if md.exists() and md not in fresh:
        out.append(Stale(md, "left over"))
    return sorted(out, key=lambda s: str(s.path))


def write(pack) -> list[Stale]:
    """Regenerate what :func:`stale` lists (write the missing and differing files atomically,
    remove those left over) and return it; a current pack is left untouched."""
    from theory.core.io import atomic_write

    todo = stale(pack)
    fresh = generated(pack)
    for s in todo:
        if s.why == "left over":
            s.path.unlink()
        else:
            s.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(s.path, fresh[s.path])
    return todo
