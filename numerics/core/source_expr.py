"""A paper's display as a SymPy expression: what ``sources.Result.expression()`` returns.

A display drafted from the source (``maskverify new --from``) keeps its LaTeX as written
(``tex``).  :func:`parse` reads it with SymPy's LaTeX parser (``sympy.parsing.latex.parse_latex``,
its ANTLR runtime pinned in ``constraints.txt``), so that a witness can compare a pack's
hand-written equation with the paper's own formula.  Before parsing, the layout of the display is
removed on pylatexenc's node tree (not by editing the raw text): alignment marks ``&``, line
breaks, ``\\label``/``\\tag``/``\\nonumber``/``\\notag``, spacing commands and a final comma or
full stop.  Anything the parser cannot read gives None: the printed LaTeX stays the record.
"""
from __future__ import annotations

from functools import lru_cache

from pylatexenc import latexwalker

#: commands that carry layout or metadata, not mathematics
_DROP_MACROS = frozenset({"label", "tag", "nonumber", "notag", "quad", "qquad", ",", ";", ":", "!", " ", "\\",
                          "displaystyle", "textstyle", "allowbreak", "nonumber"})
_DROP_SPECIALS = frozenset({"&", "~"})
#: environments that only lay out a formula: their body is kept, the environment dropped
_UNWRAP = frozenset({"split", "aligned", "gathered", "multlined", "alignedat"})


def _strip(nodes) -> str:
    out = []
    for n in nodes or ():
        if n.isNodeType(latexwalker.LatexMacroNode) and n.macroname in _DROP_MACROS:
            continue
        if n.isNodeType(latexwalker.LatexSpecialsNode) and n.specials_chars in _DROP_SPECIALS:
            out.append(" ")
            continue
        if n.isNodeType(latexwalker.LatexCommentNode):
            continue
        if n.isNodeType(latexwalker.LatexEnvironmentNode) and n.environmentname in _UNWRAP:
            out.append(_strip(n.nodelist))
            continue
        if n.isNodeType(latexwalker.LatexGroupNode) and n.delimiters == ("{", "}") and not n.nodelist:
            continue  # the empty group of "~{}"
        if n.isNodeType(latexwalker.LatexGroupNode):
            out.append(n.delimiters[0] + _strip(n.nodelist) + n.delimiters[1])
            continue
        out.append(n.latex_verbatim())
    return "".join(out)


def clean(tex: str) -> str:
    """The mathematics of a display: its LaTeX without layout, metadata and final punctuation."""
    try:
        nodes, _, _ = latexwalker.LatexWalker(tex, tolerant_parsing=True).get_latex_nodes()
    except latexwalker.LatexWalkerError:
        return tex.strip()
    return _strip(nodes).strip().rstrip(",.;").strip()


@lru_cache(maxsize=1024)
def parse(tex: str):
    """``tex`` as a SymPy expression (a relation for ``a \\le b``), or None when it is empty or
    SymPy's LaTeX parser cannot read it."""
    if not tex or not tex.strip():
        return None
    from sympy.parsing.latex import parse_latex

    body = clean(tex)
    if not body:
        return None
    try:
        return parse_latex(body)
    except Exception:  # noqa: BLE001 - the parser raises several kinds (LaTeXParsingError, ANTLR errors)
        return None
