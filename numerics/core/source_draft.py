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

This module holds what both readers share: the records, the canonical labels, the kinds a
printed word names, the short statement id of a label, the quote, and the dispatch.  It names
no paper.  Bad input raises :class:`DraftError` (a ``ValueError`` whose message is one line).
"""
from __future__ import annotations

import gzip
import re
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

#: the longest quote a drafted entry gets (the index allows a little more; a quote locates a result)
QUOTE_LENGTH = 300
#: extensions read as a text extraction
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text")
#: extensions read as a tarball of LaTeX sources
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")

#: the printed word of a theorem-like result -> its kind in the source index (``sources.KINDS``)
KIND_WORDS = {
    "theorem": "theorem", "lemma": "lemma", "corollary": "corollary", "proposition": "proposition",
    "claim": "claim", "conjecture": "conjecture", "definition": "definition", "assumption": "assumption",
    "condition": "condition", "remark": "remark", "example": "example", "hypothesis": "assumption",
    "fact": "claim", "observation": "remark", "note": "remark", "notation": "definition",
    "property": "proposition", "problem": "conjecture", "question": "conjecture", "algorithm": "algorithm",
}
#: the environments read as theorem-like even when the preamble declares nothing (some classes
#: define them); every ``\\newtheorem`` alias is added to these
THEOREM_LIKE = ("theorem", "lemma", "corollary", "proposition", "definition", "assumption", "condition",
                "remark", "claim", "example", "conjecture")
#: the prefix of a drafted statement's short id, by kind
ID_PREFIX = {
    "theorem": "thm", "lemma": "lemma", "corollary": "cor", "proposition": "prop", "claim": "claim",
    "conjecture": "conj", "definition": "def", "assumption": "asm", "condition": "cond", "remark": "rem",
    "example": "ex", "equation": "eq", "figure": "fig", "table": "table", "algorithm": "alg",
    "proof step": "step", "prose": "prose",
}


class DraftError(ValueError):
    """SOURCE cannot be drafted from: the message (one line) says why."""


@dataclass(frozen=True)
class Drafted:
    """One result as the source prints it."""

    label: str          # canonical: "Theorem 4.2", "eq. (13)", "Figure 3"
    kind: str           # one of numerics.core.sources.KINDS
    section: str        # "4.1", "B", "Abstract", ...
    quote: str          # a short verbatim quote (<= QUOTE_LENGTH characters)
    text: str = ""      # the whole verbatim text of the result (its statement, caption or display)
    name: str = ""      # the printed name: \begin{theorem}[name], "Theorem 1 (name)."
    tex: str = ""       # the LaTeX as written (LaTeX sources, and $$...$$ displays of a text extraction)
    keys: tuple[str, ...] = ()  # the \label keys that point at it (LaTeX)


@dataclass(frozen=True)
class Draft:
    """What :func:`draft` read: a description of the source and its results in paper order."""

    source: str
    format: str  # "latex" or "text"
    results: tuple[Drafted, ...]

    def counts(self) -> dict[str, int]:
        """``{kind: number of results}`` in the order kinds first appear."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.kind] = out.get(r.kind, 0) + 1
        return out

    def labels(self) -> list[str]:
        return [r.label for r in self.results]


def kind_of(word: str) -> str:
    """The index kind of a printed result word ("Main Theorem" -> theorem; unknown -> claim)."""
    for w in reversed(re.findall(r"[a-z]+", word.lower())):
        w = w[:-1] if w.endswith("s") and w[:-1] in KIND_WORDS else w
        if w in KIND_WORDS:
            return KIND_WORDS[w]
    return "claim"


def quote(text: str, limit: int = QUOTE_LENGTH) -> str:
    """``text`` on one line (whitespace collapsed), cut at a word boundary to at most ``limit``
    characters with " ..." marking the cut: a verbatim prefix that locates the result."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 4].rsplit(" ", 1)[0]
    return cut + " ..."


def statement_id(result: Drafted) -> str:
    """The short statement id of a drafted result: ``thm.4.2``, ``lemma.A.1``, ``eq.13``,
    ``fig.3``; an unnumbered one gets a slug of its label."""
    prefix = ID_PREFIX.get(result.kind, "res")
    label = result.label
    words = label.split()
    m = re.search(r"\(([^()]*)\)$", label) if result.kind == "equation" else None
    number = m.group(1) if m else words[1] if len(words) == 2 else label  # "Word NUMBER", or a descriptive label
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", number).strip("-.") or "x"
    if not re.match(r"^[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$", slug) or not (m or re.search(r"\d", slug)):
        slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    return f"{prefix}.{slug}"


def unique_ids(results) -> list[str]:
    """:func:`statement_id` of each result, made unique by a ``-2``, ``-3`` suffix."""
    seen: dict[str, int] = {}
    out = []
    for r in results:
        sid = statement_id(r)
        seen[sid] = seen.get(sid, 0) + 1
        out.append(sid if seen[sid] == 1 else f"{sid}-{seen[sid]}")
    return out


def unique_labels(results: list[Drafted]) -> list[Drafted]:
    """The results with every label unique (the index requires it): a label seen before gets
    ", second", ", third", ... (an unnumbered result, or a number the source prints twice)."""
    ordinals = ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
    seen: dict[str, int] = {}
    out = []
    for r in results:
        n = seen.get(r.label, 0)
        seen[r.label] = n + 1
        if n:
            out.append(replace(r, label=f"{r.label}, {ordinals[n - 1] if n <= len(ordinals) else f'#{n + 1}'}"))
        else:
            out.append(r)
    return out


# ---------------------------------------------------------------------------- finding the source
def _main_tex(folder: Path, shown: str) -> Path:
    """The main file of a LaTeX source folder: the one ``.tex`` with ``\\documentclass`` (several:
    the one with ``\\begin{document}``, then ``main.tex``/``ms.tex``, then the largest)."""
    from . import source_latex

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
    from . import source_latex, source_text

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
