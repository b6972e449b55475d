"""The results of a drafted source index, and what the readers of a source share: the records
(:class:`Drafted`, :class:`Draft`, :class:`DraftError`), the index's canonical labels ("Theorem 4.2",
"Lemma A.1", "eq. (13)", "Figure 3"), the kind a printed result word names, the short statement id of
a label, the quote.  ``numerics.core.source_latex`` and ``numerics.core.source_text`` fill these
records; ``numerics.core.source_draft`` finds the source and picks the reader.  Names no paper.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

#: the longest quote a drafted entry gets (the index allows a little more; a quote locates a result)
QUOTE_LENGTH = 300

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
