"""Draft a source index from a plain-text or Markdown extraction of a paper (an arXiv HTML page
saved as text, a PDF's text layer): the results it prints and names.

An extraction has lost LaTeX's structure, so this reader works from what is printed, line by
line (the text is prose, not TeX: these patterns read printed words and numbers):

- headers: a line that starts with a result word and its number, with an optional name in
  parentheses, ending there or with "." or ":" ("Theorem 4.2.", "Lemma A.1 (name).",
  "Assumption 5.1", "Condition 4.7"); the result's text is what follows on the line, or the next
  paragraph (and the displays right after it);
- captions: "Figure 3: ...", "Table 1. ...", "Algorithm 2: ..." at the start of a line;
- numbered displays: "$$...$$ (13)" on one line, or a line "(13)" right after display lines;
- mentions: "by Lemma 4.3", "Lemmas 4.1, 4.2, and 4.4", "Conditions 4.7 and 4.8", "Proof of
  Theorem 3.1", "Assumption (A2)": an extraction often drops a statement's own text (its display
  is an image, or the HTML's theorem block is lost) while the proofs still name it, and a
  referee lists it all the same.  A mention that cites another paper ("[Ada+14, Theorem 1]",
  "Table 2 ... of [Mal+21]", "(Du et al., 2018, Lemma 3)") is left out.

Labels come out in the index's canonical form ("Theorem 4.2", "eq. (13)", "Figure 3"); the
section is the heading in force ("4.1", "A.1.2", "Abstract"), or for a mentioned result numbered
"4.3" the section its number names ("4").  Non-breaking spaces count as spaces; Markdown's
``#`` headings and ``**bold**`` markers are read through.
"""
from __future__ import annotations

import re

from .source_results import Draft, Drafted, kind_of, quote, unique_labels

#: result words a header or a mention may start with (singular; a plural "Lemmas" is read too)
WORDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Assumption", "Condition", "Remark",
         "Claim", "Conjecture", "Example", "Hypothesis", "Fact", "Observation")
CAPTIONS = {"Figure": "Figure", "Fig.": "Figure", "Table": "Table", "Algorithm": "Algorithm"}
#: a printed number: 4, 4.2, A.1, D.21, 4.2.1
NUMBER = r"(?:[A-Z]\.)?\d+(?:\.\d+)*"
#: a parenthesised tag used as a number: (A2), (H1)
TAG = r"\([A-Z]\d+\)"
_WORD = "|".join(WORDS)
_HEADER = re.compile(rf"^(?P<word>{_WORD})\s+(?P<number>{NUMBER}|{TAG})(?P<after>.*)$")
_CAPTION = re.compile(rf"^(?P<word>Figure|Fig\.|Table|Algorithm)\s+(?P<number>{NUMBER})\s*[:.]\s*(?P<rest>.*)$")
_MENTION = re.compile(rf"\b(?P<word>{_WORD}|Figure|Fig\.|Table|Algorithm)(?P<plural>s?)\s+"
                      rf"(?P<list>(?:{NUMBER}|{TAG})(?:\s*(?:,\s*and|,|and|&)\s*(?:{NUMBER}|{TAG}))*)")
_ONE = re.compile(rf"{NUMBER}|{TAG}")
_DISPLAY_NUMBERED = re.compile(r"^\$\$(?P<tex>.*)\$\$\s*\((?P<number>\d+[a-z]?)\)\s*$")
_NUMBER_LINE = re.compile(r"^\((?P<number>\d+[a-z]?)\)$")
_HEADING = re.compile(r"^(?:(?P<appendix>Appendix)\s+(?P<letter>[A-Z])\b|(?P<number>\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)"
                      r"\s+[A-Z])")
#: unnumbered headings that name where a result stands
NAMED_HEADINGS = ("Abstract", "Introduction", "Preliminaries", "Main results", "Proofs", "Discussion",
                  "Conclusion", "Conclusions", "Related work", "Acknowledgements", "Acknowledgments", "References")
_CITATION = re.compile(r"\b(?:19|20)\d\d\b|et al\.|\w\+\d\d")
_EXTERNAL_AFTER = re.compile(r"\b(?:of|in|from)\s+(?:\[|[A-Z][A-Za-z'-]+\s+(?:et al|and|\())")


def _clean(line: str) -> str:
    """A line with Markdown heading and bold markers, bullets and surrounding space removed."""
    line = line.replace("\u00a0", " ").strip()
    line = re.sub(r"^#+\s*", "", line)
    line = re.sub(r"^[•*-]\s+", "", line)
    return line.replace("**", "").replace("__", "").strip()


def _name(after: str) -> tuple[str, str] | None:
    """``(name, rest)`` from the text after a header's number: an optional balanced ``(name)``,
    then "." or ":" and the rest, or nothing; None when the line goes on as a sentence."""
    s = after.lstrip()
    name = ""
    if s.startswith("("):
        depth = 0
        for k, ch in enumerate(s):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                name, s = s[1:k].strip(), s[k + 1:].lstrip()
                break
        else:
            return None
    if not s:
        return name, ""
    if s[0] in ".:" and (len(s) == 1 or s[1].isspace()):
        return name, s[1:].strip()
    return None


def _canonical(word: str, number: str) -> tuple[str, str]:
    """``(label, kind)`` of a printed word and number."""
    if word in CAPTIONS:
        word = CAPTIONS[word]
        return f"{word} {number}", word.lower()
    return f"{word} {number}", kind_of(word)


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` around ``[start, end)`` (on its line)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    left = max((text.rfind(p, line_start, start) for p in (". ", "? ", "! ")), default=-1)
    left = line_start if left < 0 else left + 2
    rights = [i for i in (text.find(p, end, line_end) for p in (". ", "? ", "! ")) if i >= 0]
    right = min(rights) + 1 if rights else line_end
    return text[left:right].strip()


def _external(text: str, start: int, end: int) -> bool:
    """Whether the mention at ``[start, end)`` cites another paper's result."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if before.rfind("[") > before.rfind("]"):
        return True
    opened = before.rfind("(")
    if opened > before.rfind(")"):
        close = text.find(")", end)
        if close >= 0 and _CITATION.search(text[line_start + opened:close]):
            return True
    clause = re.split(r"[.;\n]", text[end:end + 120], maxsplit=1)[0]
    return bool(_EXTERNAL_AFTER.search(clause))


def _display_tex(line: str) -> str:
    line = line.strip()
    for open_, close in (("$$", "$$"), ("$", "$")):
        if line.startswith(open_) and line.endswith(close) and len(line) > 2 * len(open_):
            return line[len(open_):-len(close)].strip()
    return ""


class _Found:
    def __init__(self):
        self.results: dict[str, tuple[int, Drafted]] = {}  # label -> (position, result)
        self.mentions: dict[str, tuple[int, Drafted]] = {}

    def header(self, pos: int, r: Drafted) -> None:
        self.results.setdefault(r.label, (pos, r))

    def mention(self, pos: int, r: Drafted) -> None:
        self.mentions.setdefault(r.label, (pos, r))

    def drafted(self) -> list[Drafted]:
        both = dict(self.mentions)
        both.update(self.results)
        return [r for _, r in sorted(both.values(), key=lambda pr: pr[0])]


def read(text: str, shown: str = "text") -> Draft:
    """The draft of a text extraction ``text`` (``shown`` names it in the draft)."""
    text = text.replace("\u00a0", " ").replace("\r\n", "\n")
    lines = text.split("\n")
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    found = _Found()
    section, sections = "front matter", []  # sections: (offset, section) in order

    def paragraph_after(k: int) -> str:
        """The next paragraph after line ``k`` and the display lines right after it."""
        out, j = [], k + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines):
            out.append(lines[j].strip())
            j += 1
        while j < len(lines):
            if not lines[j].strip():
                j += 1
                continue
            here = lines[j].strip()
            if _display_tex(here) or _DISPLAY_NUMBERED.match(here) or _NUMBER_LINE.match(here):
                out.append(lines[j].strip())
                j += 1
                continue
            break
        return "\n".join(out)

    for k, raw in enumerate(lines):
        line = _clean(raw)
        if not line:
            continue
        heading = _HEADING.match(line) if len(line) < 120 and not line.endswith(".") else None
        if heading and not _HEADER.match(line) and not _CAPTION.match(line):
            section = heading["letter"] or heading["number"]
            sections.append((offsets[k], section))
        elif line in NAMED_HEADINGS:
            section = line
            sections.append((offsets[k], section))
        m = _HEADER.match(line)
        if m:
            parsed = _name(m["after"])
            if parsed is not None:
                name, rest = parsed
                label, kind = _canonical(m["word"], m["number"])
                body = rest or paragraph_after(k)
                printed = line if not rest else line
                found.header(offsets[k], Drafted(label=label, kind=kind, section=section,
                                                 quote=quote(f"{printed} {body}" if not rest else line),
                                                 text=f"{line}\n{body}".strip() if not rest else line, name=name))
                continue
        m = _CAPTION.match(line)
        if m:
            label, kind = _canonical(m["word"], m["number"])
            found.header(offsets[k], Drafted(label=label, kind=kind, section=section, quote=quote(line), text=line))
            continue
        m = _DISPLAY_NUMBERED.match(line)
        if m:
            tex = m["tex"].strip()
            found.header(offsets[k], Drafted(label=f"eq. ({m['number']})", kind="equation", section=section,
                                             quote=quote(line), text=line, tex=tex))
            continue
        m = _NUMBER_LINE.match(line)
        if m:
            shown_lines, j = [], k - 1
            while j >= 0 and (not lines[j].strip() or _display_tex(lines[j])):
                if lines[j].strip():
                    shown_lines.insert(0, lines[j].strip())
                elif shown_lines:
                    break
                j -= 1
            if shown_lines:
                tex = "\n".join(_display_tex(s) for s in shown_lines)
                body = "\n".join(shown_lines)
                found.header(offsets[k], Drafted(label=f"eq. ({m['number']})", kind="equation", section=section,
                                                 quote=quote(f"{body} ({m['number']})"), text=f"{body} ({m['number']})",
                                                 tex=tex))

    for m in _MENTION.finditer(text):
        if _external(text, m.start(), m.end()):
            continue
        where = section_at(sections, m.start())
        for one in _ONE.finditer(m["list"]):
            number = one.group(0)
            label, kind = _canonical(m["word"], number)
            if label in found.results or label in found.mentions:
                continue
            sentence = _sentence(text, m.start(), m.end())
            stands = number.rsplit(".", 1)[0] if "." in number else where
            found.mention(m.start(), Drafted(label=label, kind=kind, section=stands, quote=quote(sentence),
                                             text=sentence))
    return Draft(source=shown, format="text", results=tuple(unique_labels(found.drafted())))


def section_at(sections: list[tuple[int, str]], offset: int) -> str:
    """The heading in force at ``offset``."""
    out = "front matter"
    for at, name in sections:
        if at > offset:
            break
        out = name
    return out
