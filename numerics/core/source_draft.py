"""A draft of a paper's source index, read from the paper itself (``maskverify new ID --from SOURCE``).

:func:`draft` takes what a user has of the paper and returns a :class:`Draft`: one
:class:`Drafted` result per numbered theorem-like environment, numbered display, figure and table
caption, in paper order, each with its label in the source index's canonical form ("Theorem 4.2",
"Lemma A.1", "eq. (13)", "Figure 3", "Table 1"; ``numerics.core.sources``), its kind, the section it
stands in, a short verbatim quote, the whole verbatim text, and for LaTeX the display's LaTeX.

What SOURCE may be:

- a LaTeX file with ``\\documentclass`` (its ``\\input``/``\\include`` files followed), an arXiv
  source folder, or an arXiv source tarball (``.tar``, ``.tar.gz``, ``.tgz``; a gzipped single
  ``.tex`` too): read by ``numerics.core.source_latex``, which numbers results as LaTeX would;
- a plain-text or Markdown extraction (``.txt``, ``.md``), like the seed texts: read by
  ``numerics.core.source_text`` from the printed headers and numbers.

This module finds the source and picks its reader; the records both readers fill, and the
labels, kinds and ids they share, are in ``numerics.core.source_results`` (re-exported here).  It
names no paper.  Bad input raises :class:`DraftError` (a ``ValueError`` whose message is one line).
"""

from __future__ import annotations

import gzip
import tarfile
import tempfile
from pathlib import Path

from . import source_latex, source_text
from .source_results import (ID_PREFIX, KIND_WORDS, QUOTE_LENGTH, THEOREM_LIKE, Draft, Drafted,  # noqa: F401
                             DraftError, kind_of, quote, statement_id, unique_ids, unique_labels)

#: extensions read as a text extraction
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text")
#: extensions read as a tarball of LaTeX sources
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")

# ---------------------------------------------------------------------------- finding the source
def _main_tex(folder: Path, shown: str) -> Path:
    """The main file of a LaTeX source folder: the one ``.tex`` with ``\\documentclass`` (several:
    the one with ``\\begin{document}``, then ``main.tex``/``ms.tex``, then the largest)."""
    candidates = [p for p in sorted(folder.rglob("*.tex")) if source_latex.has_documentclass(p)]
    if not candidates:
        raise DraftError(f"{shown}: no .tex file with \\documentclass in it")
    with_doc = [p for p in candidates if source_latex.has_document(p)] or candidates
    for name in ("main.tex", "ms.tex", "paper.tex"):
        named = [p for p in with_doc if p.name == name]
        if named:
            return named[0]
    return max(with_doc, key=lambda p: p.stat().st_size)


def _extract(path: Path, into: Path) -> Path:
    """Unpack an arXiv source archive into ``into`` and return the folder (a gzipped single
    file becomes ``into/main.tex``)."""
    try:
        with tarfile.open(path) as tar:
            tar.extractall(into, filter="data")
        return into
    except tarfile.ReadError:
        pass
    except (OSError, EOFError, tarfile.TarError) as exc:
        raise DraftError(f"{path}: not a readable tarball ({exc})") from None
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError) as exc:
        raise DraftError(f"{path}: not a readable tarball or gzipped file ({exc})") from None
    (into / "main.tex").write_bytes(data)
    return into


def draft(source) -> Draft:
    """The draft index of SOURCE (a path: LaTeX file, source folder, tarball, or text
    extraction); ``DraftError`` for a missing or unreadable source, a LaTeX file without
    ``\\documentclass``, or a source in which nothing is found."""
    path = Path(source)
    shown = str(source)
    if not path.exists():
        raise DraftError(f"{shown}: no such file or folder")
    name = path.name.lower()
    if path.is_dir():
        out = source_latex.read(_main_tex(path, shown), shown=shown)
    elif name.endswith(TAR_SUFFIXES) or name.endswith(".gz"):
        with tempfile.TemporaryDirectory(prefix="maskverify-source-") as tmp:
            folder = _extract(path, Path(tmp))
            out = source_latex.read(_main_tex(folder, shown), shown=shown)
    elif name.endswith(TEXT_SUFFIXES):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise DraftError(f"{shown}: cannot be read as UTF-8 text ({exc})") from None
        out = source_text.read(text, shown=shown)
    else:
        if not source_latex.has_documentclass(path):
            raise DraftError(f"{shown}: no \\documentclass (a LaTeX source needs its main file; a text "
                             "extraction must end in .txt or .md)")
        out = source_latex.read(path, shown=shown)
    if not out.results:
        raise DraftError(f"{shown}: no theorem-like result, numbered equation, figure or table found")
    return out


def draft_many(sources) -> Draft:
    """One draft of several sources read as one paper (a paper split over several text files):
    their results in the order given, labels made unique."""
    drafts = [draft(s) for s in sources]
    if len(drafts) == 1:
        return drafts[0]
    seen, results = set(), []
    for d in drafts:
        for r in d.results:
            if r.label not in seen:
                seen.add(r.label)
                results.append(r)
    formats = {d.format for d in drafts}
    return Draft(source="; ".join(d.source for d in drafts), format=formats.pop() if len(formats) == 1 else "mixed",
                 results=tuple(results))
