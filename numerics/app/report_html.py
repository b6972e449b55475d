"""The self-contained HTML form of ``maskverify report`` (``render_html``).

One file, readable offline and from an e-mail attachment: the figures are embedded as base64
data URIs (PNG, SVG), the CSS is inline, there is no script and no web font, and a
Content-Security-Policy meta tag (``default-src 'none'``) stops the browser from fetching
anything else, so a reference to an outside resource would show as a broken figure rather
than quietly load.

The Markdown parts (errata entries, figure captions) are rendered by markdown-it-py
(CommonMark with tables, raw HTML escaped).  Their inline TeX (``$...$``) becomes a math token
by a small markdown-it inline rule, so that Markdown never reads ``_`` or ``\\`` inside a
formula, and is rendered as Unicode and HTML sub/superscripts by ``tex_to_html``: a converter
written here for the notation the errata use, because no maintained TeX-to-HTML library is a
dependency of the suite (latex2mathml with mdit-py-plugins' dollarmath would be the
candidates) and the page must not load KaTeX or MathJax.
"""
from __future__ import annotations

import base64
import html
import re
from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt

from numerics.core.sources import BUCKETS

from .checkrun import WITNESSES
from .coverage import LISTED, printed
from .report_notes import STATEMENTS_NOTE, records_line

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

# ---------------------------------------------------------------------------------------
# Inline TeX to HTML
# ---------------------------------------------------------------------------------------

_GREEK = dict(alpha="α", beta="β", gamma="γ", delta="δ", epsilon="ϵ", varepsilon="ε", zeta="ζ", eta="η",
              theta="θ", iota="ι", kappa="κ", lambda_="λ", mu="μ", nu="ν", xi="ξ", pi="π", rho="ρ", sigma="σ",
              tau="τ", phi="ϕ", varphi="φ", chi="χ", psi="ψ", omega="ω", Gamma="Γ", Delta="Δ", Theta="Θ",
              Lambda="Λ", Xi="Ξ", Pi="Π", Sigma="Σ", Phi="Φ", Psi="Ψ", Omega="Ω")
_SYMBOLS = {**{k.rstrip("_"): v for k, v in _GREEK.items()},
            "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼",
            "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "mapsto": "↦", "infty": "∞", "times": "×",
            "cdot": "·", "odot": "⊙", "top": "⊤", "parallel": "∥", "in": "∈", "sum": "∑",
            "prod": "∏", "pm": "±", "partial": "∂", "nabla": "∇", "ldots": "…", "dots": "…", "cdots": "⋯",
            "langle": "⟨", "rangle": "⟩", "forall": "∀", "exists": "∃", "propto": "∝", "equiv": "≡",
            "cup": "∪", "cap": "∩", "subset": "⊂", "setminus": "∖", "ell": "ℓ", "mid": "|", "lvert": "|",
            "rvert": "|", "lVert": "‖", "rVert": "‖", "quad": "\u2003", "qquad": "\u2003\u2003",
            "max": "max", "min": "min", "log": "log", "exp": "exp", "sup": "sup", "inf": "inf", "lim": "lim",
            "{": "{", "}": "}", "|": "‖", ",": "\u2009", ";": "\u2005", ":": "\u2005", "!": "", " ": " ",
            "_": "_", "%": "%", "$": "$", "&": "&amp;", "#": "#"}
_DOUBLE = {"E": "𝔼", "R": "ℝ", "N": "ℕ", "1": "𝟙", "I": "𝕀", "P": "ℙ"}
_CALLIGRAPHIC = {"L": "ℒ", "E": "ℰ", "N": "𝒩", "T": "𝒯", "O": "𝒪", "H": "ℋ", "C": "𝒞", "D": "𝒟"}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
            "overline": "\u0304", "dot": "\u0307"}
_IGNORED = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "rm", "displaystyle",
            "textstyle", "limits", "nolimits"}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}^_]|[^\\{}^_]")
_TAG = re.compile(r"<[^>]+>")


class _Tex:
    """A recursive-descent reader of a TeX math fragment, producing HTML."""

    def __init__(self, tex: str):
        self.toks = _TOKEN.findall(tex)
        self.i = 0

    def seq(self, closing: bool = False) -> str:
        out = []
        while self.i < len(self.toks):
            t = self.toks[self.i]
            self.i += 1
            if t == "}":
                if closing:
                    break
                continue  # an unbalanced brace: dropped
            out.append(self.atom(t))
        return "".join(out)

    def arg(self) -> str:
        while self.i < len(self.toks) and self.toks[self.i] == " ":
            self.i += 1
        if self.i >= len(self.toks):
            return ""
        t = self.toks[self.i]
        self.i += 1
        return self.seq(closing=True) if t == "{" else self.atom(t)

    def atom(self, t: str) -> str:
        if t == "{":
            return self.seq(closing=True)
        if t == "^":
            return f"<sup>{self.arg()}</sup>"
        if t == "_":
            return f"<sub>{self.arg()}</sub>"
        if not t.startswith("\\"):
            return html.escape(t)
        name = t[1:]
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _IGNORED:
            return ""
        if name in ("frac", "tfrac", "dfrac"):
            num, den = self.arg(), self.arg()
            return f"{_group(num, _TAG.sub('', num).isalnum())}/{_group(den)}"
        if name == "sqrt":
            return "√" + _group(self.arg())
        if name == "mathbb":
            a = self.arg()
            return _DOUBLE.get(a, a)
        if name == "mathcal":
            a = self.arg()
            return _CALLIGRAPHIC.get(a, a)
        if name in ("mathbf", "boldsymbol", "bm"):
            return f"<b>{self.arg()}</b>"
        if name in ("mathrm", "text", "textrm", "operatorname", "mathit", "textit"):
            return self.arg()
        if name in _ACCENTS:
            return self.arg() + _ACCENTS[name]
        return html.escape(name)  # unknown command: its name, never a backslash


def _group(h: str, bare: bool = False) -> str:
    """Parenthesise a fraction's or root's argument unless it is one symbol (or ``bare``)."""
    return h if bare or len(_TAG.sub("", h)) <= 1 else f"({h})"


def tex_to_html(tex: str) -> str:
    """HTML for a TeX math fragment: Greek letters and operators as Unicode, ``^``/``_`` as
    <sup>/<sub>, ``\\frac{a}{b}`` as (a)/(b), ``\\sqrt{x}`` as √(x), ``\\mathbb``/``\\mathcal``
    letters as their Unicode forms, accents as combining marks; unknown commands print their
    name.  Never raises; the result is escaped HTML."""
    return _Tex(tex).seq()


# ---------------------------------------------------------------------------------------
# Markdown (markdown-it-py) with inline TeX
# ---------------------------------------------------------------------------------------

def _math_inline(state, silent: bool) -> bool:
    """markdown-it inline rule: ``$...$`` (non-empty, possibly across a line break) is one
    ``math_inline`` token; an unpaired ``$`` stays text."""
    if state.src[state.pos] != "$":
        return False
    end = state.src.find("$", state.pos + 1)
    if end < 0 or end == state.pos + 1:
        return False
    if not silent:
        token = state.push("math_inline", "span", 0)
        token.content = state.src[state.pos + 1:end].replace("\n", " ")
    state.pos = end + 1
    return True


def _render_math(self, tokens, idx, options, env) -> str:
    return f'<span class="math">{tex_to_html(tokens[idx].content)}</span>'


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The Markdown renderer: CommonMark with tables, raw HTML escaped (``html=False``), and
    ``$...$`` rendered by ``tex_to_html``."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.inline.ruler.before("escape", "math_inline", _math_inline)
    md.add_render_rule("math_inline", _render_math)
    return md


def md_block(text: str) -> str:
    """Markdown text (paragraphs, lists, tables, code) as HTML."""
    return markdown().render(text)


def md_inline(text: str) -> str:
    """One line of Markdown as inline HTML (no enclosing paragraph)."""
    return markdown().renderInline(text)


# ---------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------

STYLE = """
:root { --ok: #1a7f37; --find: #9a6700; --fail: #cf222e; --muted: #57606a; --line: #d0d7de; --bg2: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328;
       margin: 0 auto; padding: 1.5rem 2rem 4rem; max-width: 1500px; }
h1 { margin: 0 0 .2rem; font-size: 1.8rem; } h2 { margin-top: 2.4rem; border-bottom: 1px solid var(--line); }
h3 { margin: 1.6rem 0 .4rem; }
.sub { color: var(--muted); margin: 0 0 1rem; }
nav { position: sticky; top: 0; background: #fff; padding: .4rem 0; border-bottom: 1px solid var(--line); z-index: 1; }
nav a { margin-right: 1.1rem; color: #0969da; text-decoration: none; font-weight: 600; }
.verdict { font-size: 1.15rem; font-weight: 600; padding: .6rem .9rem; border-radius: 6px; margin: 1rem 0; }
.verdict.good { background: #dafbe1; color: var(--ok); } .verdict.bad { background: #ffebe9; color: var(--fail); }
.cards { display: flex; flex-wrap: wrap; gap: .8rem; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .9rem; min-width: 11rem; background: var(--bg2); }
.card b { display: block; font-size: 1.5rem; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: .25rem .45rem; vertical-align: top; text-align: left; }
thead th { background: var(--bg2); }
.wide { overflow-x: auto; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.statements { font-size: 12px; } table.statements th, table.statements td { padding: .2rem .3rem; }
table.statements td.wrap { min-width: 8em; }
td.id code { font-weight: 600; } td .title { color: var(--muted); font-size: 11.5px; white-space: normal; }
.c-ok { background: #dafbe1; } .c-find { background: #fff8c5; } .c-fail { background: #ffebe9; font-weight: 700; }
.c-none { color: #8c959f; text-align: center; }
.st { font-weight: 700; white-space: nowrap; } .st.holds { color: var(--ok); } .st.finding { color: var(--find); }
.st.fails { color: var(--fail); } .st.supported { color: var(--ok); } .st.notsupported { color: var(--find); }
.st.notchecked, .st.notcheckedinthistier { color: var(--muted); }
td .why { color: var(--muted); font-size: 11px; font-weight: 400; white-space: normal; display: block; }
code, pre { font: 12.5px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
code { background: var(--bg2); padding: 0 .25em; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: var(--bg2); padding: .6rem .8rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.math { font-family: "STIX Two Math", "Cambria Math", "DejaVu Serif", serif; white-space: nowrap; }
article.erratum { border: 1px solid var(--line); border-left: 4px solid var(--find); border-radius: 6px;
                  padding: .2rem 1rem .6rem; margin: 1rem 0; }
article.erratum h3 { margin-top: .8rem; }
article.erratum li { margin: .35rem 0; } article.erratum li p { margin: .2rem 0; }
article.erratum table { margin: .4rem 0; }
section.paper { margin-top: 3rem; } section.paper > h2 { font-size: 1.5rem; }
.authors { color: var(--muted); margin-top: -.4rem; }
figure { margin: 1.2rem 0 2rem; border: 1px solid var(--line); border-radius: 6px; padding: .8rem; }
figure img { max-width: min(100%, 820px); height: auto; display: block; margin: 0 auto; }
figure .pair { display: flex; flex-wrap: wrap; gap: .8rem; justify-content: center; }
figure .pair img { max-width: 49%; }
figcaption { color: #424a53; margin-top: .5rem; } .files { color: var(--muted); font-size: 12px; }
.unavailable { border: 2px dashed var(--fail); border-radius: 6px; padding: .8rem 1rem; color: var(--fail);
               background: #fff5f5; }
details summary { cursor: pointer; color: #0969da; }
.muted { color: var(--muted); }
@media print { nav { display: none; } }
"""


def _e(v) -> str:
    return html.escape(str(v))


def _num(v, spec: str) -> str:
    if v is None:
        return "-"
    return _e(v) if isinstance(v, str) else _e(format(v, spec))


def _cell_class(cell: str) -> str:
    if cell.startswith("FAIL"):
        return "c-fail"
    if "finding" in cell:
        return "c-find"
    if cell.startswith("ok"):
        return "c-ok"
    return "c-none"


def _cards(s: dict, anchor: str, tier: str | None) -> str:
    """A summary (``report.summary``) as a verdict and cards."""
    by, figs = s["statements_by_status"], s["figures"]
    good = s["failed"] == 0 and s["witness_tests"] > 0
    cards = [
        ("statements", s["statements"], " · ".join(f"{n} {k}" for k, n in by.items() if n)),
        ("witness tests", s["witness_tests"], f"{s['passed']} passed · {s['failed']} failed · "
                                              f"{s['findings']} findings · {s['skipped']} skipped"),
        ("fuzz campaigns", s["fuzz_campaigns"], f"{s['fuzz_counterexamples']} counterexamples · "
                                                f"{s['fuzz_errors']} errors"),
        ("errata", s["errata"], "recorded findings"),
        ("figures", figs["ok"], f"drawn · {figs['unavailable']} not available · {figs['failed']} failed"),
    ]
    cov = s.get("coverage")
    cards.append(("results in the paper", cov["results"] if cov else "?",
                  " · ".join(f"{cov[b]} {b}" for b in BUCKETS if cov[b]) if cov else "no source index"))
    body = "".join(f'<div class="card"><b>{_e(v)}</b>{_e(k)}<br><span class="muted">{_e(t)}</span></div>'
                   for k, v, t in cards)
    return (f'<div id="{_e(anchor)}"><div class="verdict {"good" if good else "bad"}">'
            f'{_e(s["verdict"][0].upper() + s["verdict"][1:])}.</div><div class="cards">{body}</div>'
            f'<p class="muted">pytest exit code {_e(s["pytest_exit_code"])}; {_e(tier or "?")} tier.</p></div>')


def _ratio(r) -> str:
    if r is None:
        return "<td class=\"num\">-</td>"
    return f'<td class="num" title="{_e(r["test"])}: {_e(r["detail"] or "")}">{_num(r["value"], ".3g")}</td>'


def _readings(r: dict) -> str:
    """A reconstructed statement's readings, one line each with its outcome."""
    if not r.get("readings"):
        return ""
    items = "".join(f'<li title="{_e(x["asserts"])}">{_e(x["id"])} ({x["strength"]}): {_e(x["outcome"])}</li>'
                    for x in r["readings"])
    return f'<ul class="why">{items}</ul>'


def _statement_table(rows: list[dict], table_id: str) -> str:
    head = ["statement", "paper reference", "provenance", "kind", "status", *WITNESSES, "worst rel. err", "digits",
            "tightest ratio", "finding ratio", "fuzz worst ratio", "errata"]
    out = []
    for r in rows:
        cells = "".join(f'<td class="{_cell_class(r["witnesses"][w]["cell"])}">{_e(r["witnesses"][w]["cell"])}</td>'
                        for w in WITNESSES)
        fuzz = "<br>".join(f'<span title="campaign {_e(f["campaign"])}">{_e(f["campaign"].split(":", 1)[-1])} '
                           f'{_num(f["worst_ratio"], ".3g")}</span>'
                           + (' <span class="st fails">error</span>' if f["error"] else
                              ' <span class="st fails">fails</span>' if f["failed"] else "")
                           for f in r["fuzz"]) or "-"
        errata = ", ".join(f'<a href="#{_e(e)}">{_e(e.split(":", 1)[-1])}</a>' for e in r["errata"]) or "-"
        status = r["status"]
        out.append(
            f'<tr data-statement="{_e(r["id"])}"><td class="id"><code>{_e(r["id"])}</code>'
            f'<div class="title">{_e(r["title"] or "")}</div></td><td class="wrap">{_e(r["ref"])}</td>'
            f'<td class="wrap">{_e(r["provenance"])}</td><td class="wrap">{_e(r["kind"] or "-")}</td>'
            f'<td class="st {status.replace(" ", "")}">{_e(status)}<span class="why">{_e(r["reason"])}</span>'
            f'{_readings(r)}</td>{cells}'
            f'<td class="num">{_num(r["worst_rel_err"], ".1e")}</td><td class="num">{_num(r["digits"], ".1f")}</td>'
            f'{_ratio(r["tightest_ratio"])}{_ratio(r["finding_ratio"])}<td>{fuzz}</td><td>{errata}</td></tr>')
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (f'<div class="wide"><table class="statements" id="{_e(table_id)}"><thead><tr>{th}</tr></thead>'
            f'<tbody>{"".join(out)}</tbody></table></div>')


def _failures(p: dict) -> str:
    if not p["failures"]:
        return '<section id="failures"><h2>Failures</h2><p>No witness test failed.</p></section>'
    items = "".join(f'<li><span class="st fails">{_e(f["outcome"].upper())}</span> <code>{_e(f["nodeid"])}</code> '
                    f'({_e(f["statement"])}, {_e(f["witness"])})<pre>{_e(f["message"] or "")}</pre></li>'
                    for f in p["failures"])
    return f'<section id="failures"><h2>Failures</h2><ul>{items}</ul></section>'


def _fuzz(p: dict) -> str:
    if not p["fuzz"]:
        return "<h3>Fuzz campaigns</h3><p>No campaign was run.</p>"
    rows = []
    for c in p["fuzz"]:
        cls = {"counterexample": "fails", "error": "fails", "no counterexample": "holds"}.get(c["outcome"], "notrun")
        extra = ""
        if c["error"]:
            extra += f'<pre>{_e(c["error"])}</pre>'
        if c["reproducer"]:
            what = "shrunk counterexample" if c["failed"] else "failing example" if c["error"] else "worst example"
            extra += (f'<details><summary>reproducer ({what})</summary><pre>{_e(c["reproducer"])}</pre>'
                      f'</details>')
        rows.append(f'<tr><td><code>{_e(c["campaign"])}</code></td><td>{_e(c["statement"])}'
                    f'<details><summary>domain</summary><p class="muted">{_e(c["domain"])}</p></details>{extra}</td>'
                    f'<td class="num">{_e(c["examples_tried"])}</td><td class="num">{_e(c["valid_examples"])}</td>'
                    f'<td class="num">{_num(c["worst_ratio"], ".4g")}</td><td class="num">{_num(c["threshold"], "g")}</td>'
                    f'<td class="st {cls}">{_e(c["outcome"])}</td></tr>')
    return ('<h3>Fuzz campaigns</h3><p>Hypothesis campaigns of <code>maskverify fuzz</code>, '
            f'seeded ({_e(p["fuzz"][0]["seed"])}): reproducible, no example database.</p>'
            '<table><thead><tr><th>campaign</th><th>statement</th><th>tried</th><th>judged</th><th>worst ratio</th>'
            f'<th>threshold</th><th>outcome</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _errata(p: dict) -> str:
    arts = "".join(f'<article class="erratum" id="{_e(e["qualified"])}">{md_block(e["markdown"])}</article>'
                   for e in p["errata"])
    return f'<h3>Errata</h3>{arts or "<p>No errata recorded.</p>"}'


_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _figures(p: dict, out_dir: Path) -> str:
    parts = []
    for f in p["figures"]:
        name, caption = _e(f["name"]), md_inline(f["caption"])
        if f["status"] != "ok":
            what = "not available" if f["status"] == "unavailable" else "failed"
            parts.append(f'<figure id="fig-{name}"><div class="unavailable"><strong>Figure {name} {what}.</strong>'
                         f'<pre>{_e(f["error"] or "")}</pre></div><figcaption>{caption}</figcaption></figure>')
            continue
        imgs, others = [], []
        for rel in f["files"]:
            path = Path(rel) if Path(rel).is_absolute() else out_dir / rel
            mime = _MIME.get(path.suffix.lower())
            if mime and path.exists():
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                imgs.append(f'<img alt="{name}: {_e(path.name)}" src="data:{mime};base64,{data}">')
            else:
                others.append(rel)
        pics = (f'<div class="pair">{"".join(imgs)}</div>' if len(imgs) > 1 else "".join(imgs)) or \
            '<div class="unavailable">The producer wrote no PNG or SVG to embed.</div>'
        files = f'<div class="files">files: {_e(", ".join(f["files"]))}</div>'
        if f.get("records"):  # drawn from task records: where they came from
            files += f'<div class="files records">{_e(records_line(f["records"]))}</div>'
        parts.append(f'<figure id="fig-{name}">{pics}<figcaption>{caption}{files}</figcaption></figure>')
    return f'<h3>Figures</h3>{"".join(parts) or "<p>No figure was drawn.</p>"}'


def _coverage(cov: dict) -> str:
    """A paper's coverage: its line, then the results not carried by a holding statement, grouped
    by bucket (``coverage.LISTED``), each with section, quote and why."""
    parts = [f'<h3>Coverage of the paper</h3><p>{_e(cov["line"])}.</p>']
    for b in LISTED:
        mine = [r for r in cov["results"] if r["bucket"] == b]
        if not mine:
            continue
        body = "".join(f'<tr><td>{_e(printed(r))}</td>'
                       f'<td>{_e(r["section"])}</td><td>{md_inline(r["quote"])}</td><td>{_e(r["detail"])}</td></tr>'
                       for r in mine)
        parts.append(f'<details{" open" if b == "not carried" else ""}><summary>{_e(b)} ({len(mine)})</summary>'
                     f'<table><tr><th>result</th><th>section</th><th>quote</th><th>why</th></tr>{body}</table>'
                     '</details>')
    return "".join(parts)


def _paper(p: dict, out_dir: Path, tier: str | None, own_summary: bool) -> str:
    """One paper's section: title, authors, reference, its summary (``own_summary``: when the
    report has several papers), statements, fuzz campaigns, errata, figures."""
    cards = _cards(p["summary"], "summary-" + p["id"], tier) if own_summary else ""
    return (f'<section class="paper" id="paper-{_e(p["id"])}"><h2>{_e(p["title"])} <code>{_e(p["id"])}</code></h2>'
            f'<p class="authors">{_e(", ".join(p["authors"]))}; {_e(p["reference"])}</p>{cards}'
            f'{_coverage(p["coverage"])}<h3>Statements</h3>{md_block(STATEMENTS_NOTE)}{_statement_table(p["statements"], "statements-" + p["id"])}'
            f'{_fuzz(p)}{_errata(p)}{_figures(p, out_dir)}</section>')


def _others(payload: dict) -> str:
    if not payload["other_statements"]:
        return ""
    return ('<section id="other-statements"><h2>Other statements</h2><p>Statements the witness results name '
            f'outside every paper.</p>{_statement_table(payload["other_statements"], "statements-other")}</section>')


def _provenance(p: dict) -> str:
    g = p["generated"]
    git = g.get("git")
    commit = (f'<code>{_e(git["commit"])}</code>' + (" (with local changes)" if git.get("dirty") else "")
              if git else "not a git checkout")
    rows = [("command", f'<code>{_e(g.get("command") or "numerics.app.report.build")}</code>'),
            ("timestamp (UTC)", _e(g.get("timestamp"))), ("git commit", commit),
            ("papers", _e(", ".join(g.get("papers") or []))), ("tier", _e(g.get("tier"))),
            ("-k", _e(g.get("select"))), ("fuzz examples", _e(g.get("fuzz_examples"))), ("seed", _e(g.get("seed"))),
            ("quick figures", _e(g.get("quick_figures"))), ("elapsed", f'{_e(g.get("elapsed_s"))} s')]
    rows += [(k, _e(v)) for k, v in (g.get("versions") or {}).items()]
    body = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'{_phases(g)}<section id="provenance"><h2>Provenance</h2><table>{body}</table></section>'


def _phases(g: dict) -> str:
    """The time of each phase of the report (each figure under the figures phase, with how it was
    made: from stored records or computed)."""
    phases = g.get("phases") or []
    if not phases:
        return ""
    rows = []
    for p in phases:
        rows.append(f'<tr><th>{_e(p["phase"])}</th><td>{p["seconds"]:.1f} s</td><td>{_e(p.get("line", ""))}</td></tr>')
        for f in p.get("figures", ()):
            how = f' ({f["source"]})' if f.get("source") else ""
            rows.append(f'<tr><td><code>{_e(f["figure"])}</code></td><td>{f["seconds"]:.1f} s</td>'
                        f'<td>{_e(f["status"] + how)}</td></tr>')
    total = sum(p["seconds"] for p in phases)
    return (f'<section id="phases"><h2>Time per phase</h2><table>{"".join(rows)}'
            f'<tr><th>in all</th><td>{total:.1f} s</td><td></td></tr></table></section>')


def render_html(payload: dict, out_dir) -> str:
    """``report.html`` for a report payload (``numerics.app.report.assemble``); figures are read
    from ``out_dir`` (their paths in the payload are relative to it) and embedded."""
    g = payload["generated"]
    git = g.get("git")
    where = f" · commit {git['commit'][:12]}{'+' if git.get('dirty') else ''}" if git else ""
    links = [("summary", "Summary"), ("failures", "Failures"),
             *((f"paper-{p['id']}", p["id"]) for p in payload["papers"]), ("provenance", "Provenance")]
    nav = "".join(f'<a href="#{_e(a)}">{_e(t)}</a>' for a, t in links)
    titles = "<br>".join(f'<em>{_e(p["title"])}</em> ({_e(p["id"])})' for p in payload["papers"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>maskverify report</title><style>{STYLE}</style></head><body>'
        f'<h1>maskverify report</h1><p class="sub">{titles}<br>'
        f'generated {_e(g.get("timestamp", "?"))}{_e(where)} · {_e(g.get("tier", "?"))} tier</p>'
        f'<nav>{nav}</nav><section id="summary-all"><h2 id="summary">Summary</h2>'
        f'{_cards(payload["summary"], "summary-cards", g.get("tier"))}</section>{_failures(payload)}'
        + "".join(_paper(p, Path(out_dir), g.get("tier"), len(payload["papers"]) > 1) for p in payload["papers"])
        + f'{_others(payload)}{_provenance(payload)}</body></html>\n')
