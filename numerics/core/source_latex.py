"""Draft a source index from a paper's LaTeX: its results numbered as LaTeX numbers them.

The parser is pylatexenc 2 (``pylatexenc.latexwalker``), chosen over TexSoup because it is a
maintained, pure-Python tokenizer/parser whose node tree keeps each node's exact source text
(``latex_verbatim``: the display's LaTeX as written), whose argument grammar is declared per macro
and environment (``\\newtheorem*{name}[counter]{Title}[within]`` is one spec, ``'*{[{['``), which
is tolerant of the macros a paper defines, and whose ``latex2text`` renders a quote as text with
our own rule for ``\\ref`` (the resolved number).  TexSoup's tree is looser (optional arguments and
stars are left to the caller, math lines are not separated) and it raises on some unbalanced
input that real papers contain.  No regular expression is run over raw TeX.

What it reads (:func:`read`), in document order, following ``\\input`` (braced or TeX's bare
``\\input name``) and ``\\include``:

- theorem-like environments: the built-in names of ``source_results.THEOREM_LIKE`` and every
  ``\\newtheorem`` (or thmtools ``\\declaretheorem``) the source declares: a counter of its own,
  a shared one (``\\newtheorem{lemma}[theorem]{Lemma}``), one reset within another
  (``\\newtheorem{theorem}{Theorem}[section]``), or none (``\\newtheorem*``, and ``env*`` of a
  declared ``env``); the optional name (``\\begin{theorem}[Name]``); the printed word gives the kind;
- numbered displays: ``equation``, ``multline`` (one number), ``align``, ``gather``, ``eqnarray``,
  ``flalign``, ``alignat`` (one number per line, except a line with ``\\nonumber``/``\\notag``),
  ``\\tag{...}`` (its text, no step; also in starred forms, otherwise unnumbered), ``subequations``
  (3a, 3b, ...);
- ``\\caption`` in ``figure``, ``table`` and ``algorithm`` (starred too; not in sub-figures).

Numbering follows LaTeX's counters: ``\\section`` steps ``section`` and resets what is numbered
within it (subsections, ``\\numberwithin{equation}{section}``, theorems declared ``[section]``),
``\\appendix`` (or the ``appendices`` environment) resets ``section`` (``chapter`` in book-like
classes) and prints it in capital letters, ``\\counterwithin`` is ``\\numberwithin``, ``\\setcounter``/``\\addtocounter`` set a counter; a number prints as its parent's number,
a dot and its own value (``\\thetheorem`` = ``\\thesection.\\arabic{theorem}``).  ``\\label`` keys are
resolved like ``\\ref`` (to the innermost numbered thing around them), so the quotes show
``Lemma 2.3`` where the source has ``Lemma~\\ref{lem:x}``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pylatexenc import latex2text, latexwalker, macrospec

from .source_results import THEOREM_LIKE, Draft, Drafted, DraftError, kind_of, quote, unique_labels

_SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection")
_BOOK_CLASSES = ("book", "report", "memoir", "scrbook", "scrreprt")
#: numbered display environments: "single" (one number for the display) or "lines" (one per line)
_MATH = {"equation": "single", "multline": "single", "align": "lines", "gather": "lines", "eqnarray": "lines",
         "flalign": "lines", "alignat": "lines", "xalignat": "lines"}
#: floats whose \caption is numbered, and the counter and printed word of each
_FLOATS = {"figure": "Figure", "table": "Table", "algorithm": "Algorithm", "wrapfigure": "Figure",
           "sidewaysfigure": "Figure", "sidewaystable": "Table"}
_COUNTER_OF_FLOAT = {"wrapfigure": "figure", "sidewaysfigure": "figure", "sidewaystable": "table"}
#: environments inside a float whose captions are not the float's (sub-figures)
_SUBFLOATS = ("subfigure", "subtable", "minipage-subfig")
#: macros whose arguments are walked (a \label in a footnote or in bold text still counts)
_WALK_ARGS = ("textbf", "textit", "emph", "footnote", "underline", "mbox", "fbox")
#: macros that take no part in the display's own formula
_META = ("label", "nonumber", "notag", "tag")

_MACROS = [
    macrospec.MacroSpec("documentclass", "[{"),
    macrospec.MacroSpec("newtheorem", "*{[{["),
    macrospec.MacroSpec("declaretheorem", "[{["),
    macrospec.MacroSpec("numberwithin", "[{{"),
    macrospec.MacroSpec("counterwithin", "*{{"),
    macrospec.MacroSpec("setcounter", "{{"),
    macrospec.MacroSpec("addtocounter", "{{"),
    macrospec.MacroSpec("appendix", ""),
    macrospec.MacroSpec("tag", "*{"),
    macrospec.MacroSpec("nonumber", ""),
    macrospec.MacroSpec("notag", ""),
    macrospec.MacroSpec("label", "{"),
    macrospec.MacroSpec("caption", "[{"),
    macrospec.MacroSpec("input", "{"),
    macrospec.MacroSpec("include", "{"),
    macrospec.MacroSpec("cref", "*{"),
    macrospec.MacroSpec("Cref", "*{"),
    macrospec.MacroSpec("autoref", "*{"),
] + [macrospec.MacroSpec(s, "*[{") for s in _SECTIONS]


def _context():
    """pylatexenc's default macros and environments, ours (``_MACROS``), and an optional ``[Name]``
    for every environment it does not know: a theorem-like environment's name is read whatever
    ``\\newtheorem`` declared it, so one parse serves the whole reading."""
    db = latexwalker.get_default_latex_context_db()
    envs = [macrospec.EnvironmentSpec(n, "[") for n in sorted(set(THEOREM_LIKE) | {n + "*" for n in THEOREM_LIKE})]
    db.add_context_category("maskverify-sources", macros=_MACROS, environments=envs, prepend=True)
    db.set_unknown_environment_spec(macrospec.EnvironmentSpec("", "["))
    return db


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DraftError(f"{path}: cannot be read ({exc})") from None


@lru_cache(maxsize=16)
def _parse(text: str):
    """The node tree of ``text`` (cached: a main file is read for its class and for its results,
    and parsing is what costs: pure Python, tens of milliseconds per KB)."""
    walker = latexwalker.LatexWalker(text, latex_context=_context(), tolerant_parsing=True)
    nodes, _, _ = walker.get_latex_nodes()
    return nodes


def _bare_file_name(node, after) -> str:
    """The file of TeX's ``\\input name`` without braces: the parser gives the macro its first
    character as the argument and the rest of the name begins the next text node; the name runs
    to the first blank (TeX's primitive reads it up to a space or the end of the line)."""
    words = (_raw(_arg(node, 0)) + (after.chars if _is(after, latexwalker.LatexCharsNode) else "")).split(None, 1)
    return words[0] if words else ""


def _is(node, kind) -> bool:
    return node is not None and node.isNodeType(kind)


def _top_level(path: Path):
    return _parse(_read_text(path))


def has_documentclass(path: Path) -> bool:
    """Whether ``path`` is a main LaTeX file: a ``\\documentclass`` outside comments."""
    try:
        return any(_is(n, latexwalker.LatexMacroNode) and n.macroname == "documentclass" for n in _top_level(path))
    except DraftError:
        return False


def has_document(path: Path) -> bool:
    return any(_is(n, latexwalker.LatexEnvironmentNode) and n.environmentname == "document"
               for n in _top_level(path))


def _arg(node, k):
    """The ``k``-th argument node of a macro or environment (None when absent)."""
    args = getattr(getattr(node, "nodeargd", None), "argnlist", None) or []
    return args[k] if k < len(args) else None


def _raw(arg) -> str | None:
    """An argument's source text without its delimiters (None when absent)."""
    if arg is None:
        return None
    if _is(arg, latexwalker.LatexGroupNode):
        return "".join(n.latex_verbatim() for n in arg.nodelist).strip()
    return arg.latex_verbatim().strip()


def _alph(v: int, upper: bool) -> str:
    out = ""
    while v > 0:
        v, r = divmod(v - 1, 26)
        out = chr((65 if upper else 97) + r) + out
    return out or "0"


def _roman(v: int) -> str:
    out = ""
    for value, digits in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                          (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while v >= value:
            out, v = out + digits, v - value
    return out or "0"


@dataclass
class _Entry:
    label: str
    kind: str
    section: str
    nodes: list = field(default_factory=list)  # rendered as the quote and text
    tex: str = ""
    name: str = ""
    keys: list = field(default_factory=list)
    math: bool = False  # the text is the LaTeX itself


class _Reader:
    """One pass over the document in order, with LaTeX's counters."""

    def __init__(self, main: Path):
        self.base = main.parent
        self.counters: dict[str, int] = {}
        self.within: dict[str, str | None] = {}
        self.style: dict[str, str] = {}
        self.envs: dict[str, tuple[str, str | None]] = {}
        self.entries: list[_Entry] = []
        self.labels: dict[str, tuple[str, str]] = {}  # key -> (number, printed label)
        self.target: tuple[str, str, _Entry | None] = ("", "", None)
        self.float: str | None = None
        self.sub: list | None = None  # [parent number, count] inside subequations
        self.section_override: str | None = None
        self.seen: set[Path] = set()
        self.book = False

    # --------------------------------------------------------------- counters
    def new_counter(self, name: str, within: str | None = None) -> None:
        self.counters.setdefault(name, 0)
        self.within[name] = within

    def setup(self, docclass: str) -> None:
        self.book = docclass in _BOOK_CLASSES
        parent = None
        for s in (_SECTIONS[1:] if self.book else _SECTIONS[2:]):
            self.new_counter(s, parent)
            parent = s
        top = "chapter" if self.book else None
        for c in ("equation", "figure", "table", "algorithm"):
            self.new_counter(c, top)

    def the(self, counter: str) -> str:
        v = self.counters.get(counter, 0)
        style = self.style.get(counter, "arabic")
        text = (_alph(v, True) if style == "Alph" else _alph(v, False) if style == "alph"
                else _roman(v).upper() if style == "Roman" else _roman(v) if style == "roman" else str(v))
        parent = self.within.get(counter)
        return f"{self.the(parent)}.{text}" if parent else text

    def reset(self, counter: str) -> None:
        for child, parent in self.within.items():
            if parent == counter:
                self.counters[child] = 0
                self.reset(child)

    def step(self, counter: str) -> str:
        if counter not in self.counters:
            self.new_counter(counter)
        self.counters[counter] += 1
        self.reset(counter)
        return self.the(counter)

    def section(self) -> str:
        if self.section_override:
            return self.section_override
        for level in ("subsubsection", "subsection", "section", "chapter"):
            if self.counters.get(level, 0) > 0:
                return self.the(level)
        return "front matter"

    # --------------------------------------------------------------- walking
    def add(self, entry: _Entry) -> _Entry:
        self.entries.append(entry)
        return entry

    def walk(self, nodes) -> None:
        nodes = list(nodes or ())
        for i, n in enumerate(nodes):
            if _is(n, latexwalker.LatexMacroNode) and n.macroname == "input" and _is(_arg(n, 0), latexwalker.LatexCharsNode):
                self.input(_bare_file_name(n, nodes[i + 1] if i + 1 < len(nodes) else None))
            elif _is(n, latexwalker.LatexMacroNode):
                self.macro(n)
            elif _is(n, latexwalker.LatexEnvironmentNode):
                self.environment(n)
            elif _is(n, latexwalker.LatexGroupNode):
                self.walk(n.nodelist)

    def input(self, rel: str) -> None:
        """``\\input``/``\\include`` of ``rel`` (relative to the main file's folder, ``.tex`` added
        when the name has none and the file without it does not exist); a file not there is
        left out, as LaTeX would stop on it."""
        if rel:
            path = self.base / rel
            if not path.exists() and path.suffix != ".tex":
                path = path.with_name(path.name + ".tex")
            if path.is_file():
                self.file(path)

    def file(self, path: Path) -> None:
        path = path.resolve()
        if path in self.seen:
            return
        self.seen.add(path)
        self.walk(_parse(_read_text(path)))

    def macro(self, n) -> None:
        name = n.macroname
        if name in _SECTIONS:
            if _arg(n, 0) is None and name in self.counters:  # \section* is not numbered
                number = self.step(name)
                self.target = (number, f"Section {number}", None)
        elif name == "appendix":
            self.appendix()
        elif name == "newtheorem":
            self.declare(n)
        elif name == "declaretheorem":
            self.declare_thmtools(n)
        elif name in ("numberwithin", "counterwithin"):
            counter, parent = _raw(_arg(n, 1)), _raw(_arg(n, 2))
            if counter and parent:
                self.new_counter(counter, parent)
        elif name in ("setcounter", "addtocounter"):
            counter, value = _raw(_arg(n, 0)), _raw(_arg(n, 1))
            try:
                v = int(value or "")
            except ValueError:
                return
            if counter:
                self.counters.setdefault(counter, 0)
                self.counters[counter] = v if name == "setcounter" else self.counters[counter] + v
        elif name == "label":
            key = _raw(_arg(n, 0))
            number, printed, entry = self.target
            if key:
                self.labels[key] = (number, printed)
                if entry is not None:
                    entry.keys.append(key)
        elif name in ("input", "include"):
            self.input(_raw(_arg(n, 0)))
        elif name == "caption" and self.float:
            word = _FLOATS[self.float]
            number = self.step(_COUNTER_OF_FLOAT.get(self.float, self.float))
            arg = _arg(n, 1)
            entry = self.add(_Entry(f"{word} {number}", word.lower(), self.section(),
                                    nodes=list(arg.nodelist) if _is(arg, latexwalker.LatexGroupNode) else [],
                                    tex=_raw(arg) or ""))
            self.target = (number, entry.label, entry)
            self.walk([arg])
        elif name in _WALK_ARGS:
            for k in range(len(getattr(getattr(n, "nodeargd", None), "argnlist", None) or [])):
                self.walk([_arg(n, k)])

    def appendix(self) -> None:
        """``\\appendix`` (or the ``appendices`` environment): sections (chapters) start again, in letters."""
        top = "chapter" if self.book else "section"
        self.counters[top] = 0
        self.reset(top)
        self.style[top] = "Alph"

    def declare(self, n) -> None:
        star, env, shared, title, within = (_raw(_arg(n, k)) for k in range(5))
        if not env or not title:
            return
        title = latex2text.LatexNodes2Text().latex_to_text(title).strip() or title
        if star:
            self.envs[env] = (title, None)
        elif shared:
            self.envs[env] = (title, shared)
            self.counters.setdefault(shared, 0)
        else:
            self.new_counter(env, within or None)
            self.envs[env] = (title, env)

    def declare_thmtools(self, n) -> None:
        """thmtools' ``\\declaretheorem[name=..., numberwithin=..., sibling=..., numbered=no]{env}``
        (the options before or after the name): the same four cases as ``\\newtheorem``."""
        env = _raw(_arg(n, 1))
        if not env:
            return
        options = {}
        for part in ",".join(filter(None, (_raw(_arg(n, 0)), _raw(_arg(n, 2))))).split(","):
            key, _, value = part.partition("=")
            if key.strip():
                options[key.strip().lower()] = value.strip().strip("{}").strip()
        title = options.get("name") or options.get("title") or env.capitalize()
        if options.get("numbered", "yes").lower() in ("no", "false"):
            self.envs[env] = (title, None)
        elif options.get("sibling") or options.get("numberlike") or options.get("sharenumber"):
            shared = options.get("sibling") or options.get("numberlike") or options.get("sharenumber")
            self.envs[env] = (title, shared)
            self.counters.setdefault(shared, 0)
        else:
            self.new_counter(env, options.get("numberwithin") or options.get("parent") or options.get("within") or None)
            self.envs[env] = (title, env)

    def theorem(self, n, title: str, counter: str | None) -> None:
        name = _raw(_arg(n, 0)) or ""
        if name:
            name = latex2text.LatexNodes2Text(math_mode="verbatim").latex_to_text(name).strip()
        if counter:
            number = self.step(counter)
            label = f"{title} {number}"
        else:
            number = ""
            label = f"{title} ({name})" if name else f"{title} in Section {self.section()}"
        tex = "".join(x.latex_verbatim() for x in n.nodelist
                      if not (_is(x, latexwalker.LatexMacroNode) and x.macroname == "label")).strip()
        entry = self.add(_Entry(label, kind_of(title), self.section(), nodes=list(n.nodelist), tex=tex, name=name))
        saved = self.target
        self.target = (number, label, entry)
        self.walk(n.nodelist)
        self.target = saved

    def environment(self, n) -> None:
        name = n.environmentname
        base, starred = (name[:-1], True) if name.endswith("*") else (name, False)
        if name in self.envs:
            self.theorem(n, *self.envs[name])
        elif starred and base in self.envs:
            self.theorem(n, self.envs[base][0], None)
        elif base in THEOREM_LIKE:
            if not starred:
                self.new_counter(base, self.within.get(base))
            self.envs.setdefault(base, (base.capitalize(), base))
            self.theorem(n, base.capitalize(), None if starred else base)
        elif base in _MATH:
            self.display(n, _MATH[base], numbered=not starred)
        elif base == "subequations":
            parent = self.step("equation")
            saved, self.sub = self.sub, [parent, 0]
            self.walk(n.nodelist)
            self.sub = saved
        elif base in _FLOATS:
            saved, self.float = self.float, base
            self.walk(n.nodelist)
            self.float = saved
        elif base in _SUBFLOATS:
            saved, self.float = self.float, None
            self.walk(n.nodelist)
            self.float = saved
        elif base == "appendices":
            self.appendix()
            self.walk(n.nodelist)
        elif base == "abstract":
            saved, self.section_override = self.section_override, "Abstract"
            self.walk(n.nodelist)
            self.section_override = saved
        else:
            self.walk(n.nodelist)

    # --------------------------------------------------------------- displays
    def next_equation(self) -> str:
        if self.sub is not None:
            self.sub[1] += 1
            return f"{self.sub[0]}{_alph(self.sub[1], False)}"
        return self.step("equation")

    @staticmethod
    def lines(nodes) -> list[list]:
        out = [[]]
        for n in nodes:
            if _is(n, latexwalker.LatexMacroNode) and n.macroname == "\\":
                out.append([])
            else:
                out[-1].append(n)
        return out

    @staticmethod
    def scan(nodes, found: dict) -> dict:
        """The \\tag, \\nonumber/\\notag and \\label of a display line, wherever they are nested."""
        for n in nodes:
            if _is(n, latexwalker.LatexMacroNode):
                if n.macroname in ("nonumber", "notag"):
                    found["nonumber"] = True
                elif n.macroname == "tag":
                    found["tag"] = _raw(_arg(n, 1))
                elif n.macroname == "label":
                    found["labels"].append(_raw(_arg(n, 0)))
            children = getattr(n, "nodelist", None)
            if children:
                _Reader.scan(children, found)
        return found

    def display(self, n, how: str, numbered: bool) -> None:
        for line in (self.lines(n.nodelist) if how == "lines" else [list(n.nodelist)]):
            found = self.scan(line, {"nonumber": False, "tag": None, "labels": []})
            tex = "".join(x.latex_verbatim() for x in line
                          if not (_is(x, latexwalker.LatexMacroNode) and x.macroname in _META)).strip()
            if not tex:
                continue
            if found["tag"] is not None:
                number = found["tag"]
            elif numbered and not found["nonumber"]:
                number = self.next_equation()
            else:
                continue
            entry = self.add(_Entry(f"eq. ({number})", "equation", self.section(), tex=tex, math=True))
            for key in found["labels"]:
                if key:
                    self.labels[key] = (number, entry.label)
                    entry.keys.append(key)

    # --------------------------------------------------------------- text
    def renderer(self):
        labels = self.labels

        def ref(n, **_):
            return labels.get(_raw(_arg(n, 0)) or "", ("??", "??"))[0]

        def eqref(n, **_):
            return f"({ref(n)})"

        def cref(n, **_):
            keys = (_raw(_arg(n, 1)) or "").split(",")
            return ", ".join(labels.get(k.strip(), ("??", "??"))[1] for k in keys)

        db = latex2text.get_default_latex_context_db()
        db.add_context_category("maskverify-refs", prepend=True, macros=[
            latex2text.MacroTextSpec("ref", simplify_repl=ref), latex2text.MacroTextSpec("eqref", simplify_repl=eqref),
            latex2text.MacroTextSpec("cref", simplify_repl=cref), latex2text.MacroTextSpec("Cref", simplify_repl=cref),
            latex2text.MacroTextSpec("autoref", simplify_repl=cref), latex2text.MacroTextSpec("label", discard=True)])
        return latex2text.LatexNodes2Text(latex_context=db, math_mode="verbatim")

    def drafted(self) -> list[Drafted]:
        text = self.renderer()
        out = []
        for e in self.entries:
            body = e.tex if e.math else text.nodelist_to_text(e.nodes).replace("\xa0", " ").strip()
            body = "\n".join(line.rstrip() for line in body.splitlines()).strip() or e.label
            out.append(Drafted(label=e.label, kind=e.kind, section=e.section, quote=quote(body), text=body,
                               name=e.name, tex=e.tex, keys=tuple(e.keys)))
        return unique_labels(out)


def read(main, shown: str | None = None) -> Draft:
    """The draft of the LaTeX document whose main file is ``main`` (``DraftError`` when it has no
    ``\\documentclass``)."""
    main = Path(main)
    shown = shown or str(main)
    nodes = _top_level(main)
    classes = [n for n in nodes if _is(n, latexwalker.LatexMacroNode) and n.macroname == "documentclass"]
    if not classes:
        raise DraftError(f"{shown}: no \\documentclass: not the main file of a LaTeX document")
    reader = _Reader(main)
    reader.setup(_raw(_arg(classes[0], 1)) or "article")
    reader.file(main)
    return Draft(source=shown, format="latex", results=tuple(reader.drafted()))
