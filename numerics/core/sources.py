"""A pack's source index as data: every result its paper states, each pointing at the statements
that carry it, or saying why none does (DESIGN.md, "The source index: the paper, result by result").

Statements point at the paper; the index points from the paper at statements, so that coverage is
computed, never typed: a referee reads a paper result by result, and the verdict surfaces show,
per pack, how many results are carried by a holding statement, by a finding, in part, not checked,
or not carried at all (as a Lean blueprint shows its ``sorry``s).

The index is one TOML file per pack (``PaperPack.sources``, ``notes/<pack>/sources.toml`` beside the
errata), read with the standard library's ``tomllib``: an optional ``[paper]`` table (``source``: what
the index was read from) and one ``[[result]]`` table per result:

==========  ===========================  ==========================================================
key         type                         meaning
==========  ===========================  ==========================================================
label       text (required, unique)      as printed: "Theorem 4.2", "Lemma A.1", "eq. (13)",
                                         "Figure 3"; an unnumbered result gets a short descriptive one
kind        one of ``KINDS`` (required)  theorem, lemma, ..., equation, proof step, figure, prose
section     text (required)              where it stands, as printed ("4.1", "B.2", "Abstract")
quote       text (required)              a short verbatim quote that locates it
name        text                         the printed name ("weight movement"), without parentheses
statements  list of short ids            the pack's statements that carry it
partial     text (needs statements)      they carry only part: what is not carried, and why
reason      text (needs no statements)   why no statement carries it
tex         text                         the display's LaTeX as printed (``maskverify new --from``)
==========  ===========================  ==========================================================

``load`` rejects an unknown key or kind, a missing required field, a duplicate label, an unknown
statement id, an entry with neither statements nor reason, ``reason`` beside statements and
``partial`` without them; ``PaperPack`` calls it when the pack is built, so a broken index fails at
import.  ``python -m numerics.core.sources_notes`` renders the registered packs' ``sources.md`` beside
the data (this module imports no registry: the registry's packs import it).
"""
from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

#: what a result can be, as a referee would list it
KINDS = ("theorem", "lemma", "corollary", "proposition", "claim", "conjecture", "definition", "assumption",
         "condition", "remark", "example", "equation", "proof step", "figure", "table", "algorithm", "prose")
#: the coverage of one result, in the order the summaries count them
#: (``not run``: a static listing, ``maskverify papers``, where the default tier's witnesses would decide)
BUCKETS = ("holds", "finding", "fails", "in part", "not checked", "not carried", "not run")
#: how a summary line names each bucket
BUCKET_PHRASES = {"holds": "carried by a holding or supported statement", "finding": "by a finding",
                  "fails": "by a failing statement", "in part": "in part", "not checked": "not checked",
                  "not carried": "not carried", "not run": "to be decided by the witnesses (maskverify check)"}
#: the statuses of ``numerics.app.verdicts`` as the buckets read them
_POSITIVE = ("holds", "supported")
_FINDING = ("finding", "not supported")
#: the command that renders every pack's sources.md (``numerics.core.sources_notes``)
COMMAND = "python -m numerics.core.sources_notes"
#: the longest quote an entry may hold (a quote locates a result; it does not copy the paper)
QUOTE_MAX = 400


class SourcesError(ValueError):
    """A source index that cannot be read as one: the message names the file and the entry."""


@dataclass(frozen=True)
class Result:
    """One result of the paper (one ``[[result]]`` table)."""

    label: str
    kind: str
    section: str
    quote: str
    name: str = ""
    statements: tuple[str, ...] = ()
    partial: str = ""
    reason: str = ""
    tex: str = ""

    @property
    def printed(self) -> str:
        """The label with its printed name: ``Theorem 5.2 (weight movement)``."""
        return f"{self.label} ({self.name})" if self.name else self.label

    def expression(self):
        """``tex`` as SymPy reads it (``numerics.core.source_expr.parse``: alignment marks and
        layout commands removed, then ``sympy.parsing.latex.parse_latex``), or None where there is
        no ``tex`` or the parser cannot read it; a witness compares it with the pack's own formula."""
        from .source_expr import parse

        return parse(self.tex)


@dataclass(frozen=True)
class Index:
    """A pack's source index: what it was read from, and its results in file order."""

    pack: str
    path: Path
    source: str
    results: tuple[Result, ...]

    def cited(self) -> set[str]:
        """The statement ids some result cites."""
        return {s for r in self.results for s in r.statements}

    def result(self, label: str) -> Result:
        for r in self.results:
            if r.label == label:
                return r
        raise KeyError(f"{self.pack}'s source index has no result {label!r}")


_TEXT = ("label", "kind", "section", "quote", "name", "partial", "reason", "tex")
_REQUIRED = ("label", "kind", "section", "quote")
_KEYS = _TEXT + ("statements",)


def _entry(path: Path, n: int, raw, known: set[str] | None) -> Result:
    def fail(message):
        label = raw.get("label") if isinstance(raw, dict) else None
        raise SourcesError(f"{path}: result {n}" + (f" ({label!r})" if isinstance(label, str) else "")
                           + f": {message}")

    if not isinstance(raw, dict):
        fail("must be a table [[result]]")
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        fail(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(_KEYS)}")
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        fail(f"missing required key(s) {', '.join(missing)}")
    values = {}
    for key in _TEXT:
        if key in raw:
            v = raw[key]
            if not isinstance(v, str) or not v.strip():
                fail(f"{key!r} must be non-empty text")
            values[key] = v.strip()
    if "\n" in values["label"]:
        fail("the label must be one line")
    if values["kind"] not in KINDS:
        fail(f"kind {values['kind']!r} is not one of: {', '.join(KINDS)}")
    if len(values["quote"]) > QUOTE_MAX:
        fail(f"the quote has {len(values['quote'])} characters; at most {QUOTE_MAX} (it locates the result)")
    statements = raw.get("statements", [])
    if not isinstance(statements, list) or not all(isinstance(s, str) and s.strip() for s in statements):
        fail("'statements' must be a list of short statement ids")
    statements = tuple(s.strip() for s in statements)
    if len(set(statements)) != len(statements):
        fail("'statements' names a statement twice")
    if known is not None:
        strangers = [s for s in statements if s not in known]
        if strangers:
            fail(f"unknown statement(s) {', '.join(strangers)}")
    if statements and "reason" in values:
        fail("'reason' is for a result no statement carries; say what the statements leave out in 'partial'")
    if not statements and "partial" in values:
        fail("'partial' needs the statements that carry the part")
    if not statements and "reason" not in values:
        fail("no statement carries it and it gives no 'reason'")
    return Result(statements=statements, **values)


def load(path, pack: str, known: Iterable[str] | None = None) -> Index:
    """The index of pack ``pack`` read from ``path``, every entry validated; ``known`` (the pack's
    short statement ids) is checked when given.  Raises ``SourcesError`` naming file and entry."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SourcesError(f"{path}: no such source index") from None
    except tomllib.TOMLDecodeError as exc:
        raise SourcesError(f"{path}: not valid TOML: {exc}") from None
    extra = sorted(set(data) - {"paper", "result"})
    if extra:
        raise SourcesError(f"{path}: unknown top-level key(s) {', '.join(extra)}; entries are [[result]] tables")
    paper = data.get("paper", {})
    if not isinstance(paper, dict) or set(paper) - {"source"} or not isinstance(paper.get("source", ""), str):
        raise SourcesError(f"{path}: [paper] holds only source = \"what the index was read from\"")
    raw = data.get("result", [])
    if not isinstance(raw, list):
        raise SourcesError(f"{path}: 'result' must be an array of tables [[result]]")
    known = None if known is None else set(known)
    results, seen = [], set()
    for n, item in enumerate(raw, 1):
        r = _entry(path, n, item, known)
        if r.label in seen:
            raise SourcesError(f"{path}: result {n}: duplicate label {r.label!r}")
        seen.add(r.label)
        results.append(r)
    return Index(pack=pack, path=path, source=paper.get("source", "").strip(), results=tuple(results))


@dataclass(frozen=True)
class Covered:
    """One result's coverage: its bucket, and the verdicts of the statements that carry it."""

    result: Result
    bucket: str
    statuses: tuple[tuple[str, str, str], ...]  # (statement id, status, reason)

    @property
    def detail(self) -> str:
        """Why the result sits in its bucket, in one line."""
        if self.bucket == "not carried":
            return self.result.reason
        said = "; ".join(f"{sid}: {status or 'not run'}"
                         + (f" ({why})" if why and status is not None and status not in _POSITIVE else "")
                         for sid, status, why in self.statuses)
        return f"{said}; not carried: {self.result.partial}" if self.bucket == "in part" else said


def bucket(result: Result, statuses: Iterable[str | None]) -> str:
    """The coverage of ``result`` given the statuses of its statements (``BUCKETS``); a status of
    None is one the witnesses have not decided (a static listing)."""
    statuses = list(statuses)
    if not result.statements:
        return "not carried"
    if result.partial:
        return "in part"
    if "fails" in statuses:
        return "fails"
    if any(s in _FINDING for s in statuses):
        return "finding"
    if statuses and all(s in _POSITIVE for s in statuses):
        return "holds"
    if any(s is None for s in statuses) and all(s is None or s in _POSITIVE for s in statuses):
        return "not run"
    return "not checked"


def coverage(index: Index, verdicts: Mapping[str, tuple[str | None, str]]) -> list[Covered]:
    """Every result of ``index`` with its bucket; ``verdicts`` maps a short statement id to its
    ``(status, reason)`` (status None: not decided without running the witnesses).  A statement
    without a verdict counts as not checked."""
    out = []
    for r in index.results:
        statuses = tuple((s, *verdicts.get(s, ("not checked", "no verdict in this run"))) for s in r.statements)
        out.append(Covered(r, bucket(r, (st for _, st, _ in statuses)), statuses))
    return out


def counts(covered: Iterable[Covered]) -> dict[str, int]:
    """``{"results": n, bucket: count, ...}`` for every bucket (zeros included)."""
    c = Counter(x.bucket for x in covered)
    return {"results": sum(c.values()), **{b: c.get(b, 0) for b in BUCKETS}}


def line(c: Mapping[str, int]) -> str:
    """``173 results in the paper: 120 carried by a holding or supported statement, 10 by a finding, ...``"""
    return (f"{c['results']} result{'s' * (c['results'] != 1)} in the paper: "
            + ", ".join(f"{c[b]} {BUCKET_PHRASES[b]}" for b in BUCKETS if b != "not run" or c[b]))


def markdown_path(index: Index) -> Path:
    return index.path.with_suffix(".md")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(index: Index, title: str) -> str:
    """The pack's ``sources.md``: the index as a table in paper order (label, kind, section, what
    carries it or why nothing does) and the quotes.  Deterministic, so a test compares it with the
    committed file; verdicts are not in it (they depend on the run: ``maskverify check``)."""
    carried = sum(1 for r in index.results if r.statements and not r.partial)
    part = sum(1 for r in index.results if r.partial)
    lines = [f"# Source index: {title}", "",
             f"*Generated from `{index.path.name}` (beside this file) by `{COMMAND}`: edit the data, not this file.*",
             "", (f"Read from {index.source}. " if index.source else "")
             + f"{len(index.results)} results: {carried} carried by statements, {part} in part, "
             f"{len(index.results) - carried - part} carried by none (with the reason). Whether the carrying "
             "statements hold is the verdicts' business: `maskverify check` prints the coverage.", "",
             "| result | kind | section | carried by | not carried, and why | quote |",
             "|---|---|---|---|---|---|"]
    for r in index.results:
        by = ", ".join(f"`{index.pack}:{s}`" for s in r.statements) or "none"
        lines.append(f"| {_cell(r.printed)} | {r.kind} | {_cell(r.section)} | {by} | {_cell(r.partial or r.reason)} "
                     f"| {_cell(r.quote)} |")
    return "\n".join(lines) + "\n"
