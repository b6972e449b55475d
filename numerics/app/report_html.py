"""The self-contained HTML form of ``maskverify report`` (``render_html``).

One file, readable offline and from an e-mail attachment: the figures are embedded as base64
data URIs (PNG, SVG), the CSS is inline, there is no script and no web font, and a
Content-Security-Policy meta tag (``default-src 'none'``) stops the browser from fetching
anything else, so a reference to an outside resource would show as a broken figure rather
than quietly load.  The errata's inline TeX (``$...$``) is rendered as Unicode and HTML
sub/superscripts by ``tex_to_html``, a small converter for the notation the errata use.
"""
from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from .checkrun import WITNESSES

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
            "cdot": "·", "odot": "⊙", "top": "<sup>⊤</sup>", "parallel": "∥", "in": "∈", "sum": "∑",
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


_INLINE = re.compile(r"(\$[^$\n]+\$|`[^`\n]+`|\*\*[^*\n]+?\*\*|(?<![\w*])\*[^*\s][^*\n]*?\*(?![\w*]))")


def inline(text: str) -> str:
    """Markdown inline text as HTML: ``$math$``, ```code```, ``**bold**``, ``*emphasis*``; the
    rest escaped."""
    out = []
    for part in _INLINE.split(text):
        if not part:
            continue
        if part.startswith("$") and part.endswith("$") and len(part) > 2:
            out.append(f'<span class="math">{tex_to_html(part[1:-1])}</span>')
        elif part.startswith("`") and part.endswith("`") and len(part) > 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        elif part.startswith("**") and part.endswith("**") and len(part) > 4:
            out.append(f"<strong>{inline(part[2:-2])}</strong>")
        elif part.startswith("*") and part.endswith("*") and len(part) > 2:
            out.append(f"<em>{inline(part[1:-1])}</em>")
        else:
            out.append(html.escape(part))
    return "".join(out)


def blocks(text: str) -> str:
    """A Markdown text of paragraphs and pipe tables (as the errata hold) as HTML."""
    out, para, table = [], [], []

    def flush():
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()
        if table:
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table
                    if not re.fullmatch(r"\|?[\s|:-]+\|?", line.strip())]
            if rows:
                head = "".join(f"<th>{inline(c)}</th>" for c in rows[0])
                body = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
                out.append(f'<table class="inner"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
            table.clear()

    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("|"):
            if para:
                flush()
            table.append(s)
        elif not s:
            flush()
        else:
            if table:
                flush()
            para.append(s)
    flush()
    return "".join(out)


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
#statement-table { font-size: 12px; } #statement-table th, #statement-table td { padding: .2rem .3rem; }
#statement-table td.wrap { min-width: 8em; }
td.id code { font-weight: 600; } td .title { color: var(--muted); font-size: 11.5px; white-space: normal; }
.c-ok { background: #dafbe1; } .c-find { background: #fff8c5; } .c-fail { background: #ffebe9; font-weight: 700; }
.c-none { color: #8c959f; text-align: center; }
.st { font-weight: 700; white-space: nowrap; } .st.holds { color: var(--ok); } .st.finding { color: var(--find); }
.st.fails { color: var(--fail); } .st.notrun { color: var(--muted); }
code, pre { font: 12.5px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
code { background: var(--bg2); padding: 0 .25em; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: var(--bg2); padding: .6rem .8rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.math { font-family: "STIX Two Math", "Cambria Math", "DejaVu Serif", serif; white-space: nowrap; }
article.erratum { border: 1px solid var(--line); border-left: 4px solid var(--find); border-radius: 6px;
                  padding: .2rem 1rem .6rem; margin: 1rem 0; }
article.erratum h3 { margin-top: .8rem; }
dl.fields dt { font-weight: 700; margin-top: .6rem; } dl.fields dd { margin: 0 0 0 1.2rem; }
dl.fields dd p { margin: .2rem 0; }
table.inner { margin: .4rem 0; }
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


def _summary(p: dict) -> str:
    s = p["summary"]
    by, figs = s["statements_by_status"], s["figures"]
    good = s["failed"] == 0 and s["witness_tests"] > 0
    cards = [
        ("statements", s["statements"], f"{by['holds']} hold · {by['finding']} with findings · "
                                        f"{by['fails']} fail · {by['not run']} not run"),
        ("witness tests", s["witness_tests"], f"{s['passed']} passed · {s['failed']} failed · "
                                              f"{s['findings']} findings · {s['skipped']} skipped"),
        ("fuzz campaigns", s["fuzz_campaigns"], f"{s['fuzz_counterexamples']} counterexamples · "
                                                f"{s['fuzz_errors']} errors"),
        ("errata", s["errata"], "findings in notes/errata.md"),
        ("figures", figs["ok"], f"drawn · {figs['unavailable']} not available · {figs['failed']} failed"),
    ]
    body = "".join(f'<div class="card"><b>{_e(v)}</b>{_e(k)}<br><span class="muted">{_e(t)}</span></div>'
                   for k, v, t in cards)
    return (f'<section id="summary"><h2>Summary</h2><div class="verdict {"good" if good else "bad"}">'
            f'{_e(s["verdict"][0].upper() + s["verdict"][1:])}.</div><div class="cards">{body}</div>'
            f'<p class="muted">pytest exit code {_e(s["pytest_exit_code"])}; '
            f'{_e(p["generated"].get("tier", "?"))} tier.</p></section>')


def _ratio(r) -> str:
    if r is None:
        return "<td class=\"num\">-</td>"
    return f'<td class="num" title="{_e(r["test"])}: {_e(r["detail"] or "")}">{_num(r["value"], ".3g")}</td>'


def _statements(p: dict) -> str:
    head = ["statement", "paper reference", "kind", "status", *WITNESSES, "worst rel. err", "digits",
            "tightest ratio", "finding ratio", "fuzz worst ratio", "errata"]
    rows = []
    for r in p["statements"]:
        cells = "".join(f'<td class="{_cell_class(r["witnesses"][w]["cell"])}">{_e(r["witnesses"][w]["cell"])}</td>'
                        for w in WITNESSES)
        fuzz = "<br>".join(f'<span title="campaign {_e(f["campaign"])}">{_e(f["campaign"][len(r["id"]):])} '
                           f'{_num(f["worst_ratio"], ".3g")}</span>'
                           + (' <span class="st fails">error</span>' if f["error"] else
                              ' <span class="st fails">fails</span>' if f["failed"] else "")
                           for f in r["fuzz"]) or "-"
        errata = ", ".join(f'<a href="#{_e(e)}">{_e(e)}</a>' for e in r["errata"]) or "-"
        status = r["status"]
        rows.append(
            f'<tr data-statement="{_e(r["id"])}"><td class="id"><code>{_e(r["id"])}</code>'
            f'<div class="title">{_e(r["title"] or "")}</div></td><td class="wrap">{_e(r["ref"])}</td>'
            f'<td class="wrap">{_e(r["kind"] or "-")}</td>'
            f'<td class="st {status.replace(" ", "")}">{_e(status)}</td>{cells}'
            f'<td class="num">{_num(r["worst_rel_err"], ".1e")}</td><td class="num">{_num(r["digits"], ".1f")}</td>'
            f'{_ratio(r["tightest_ratio"])}{_ratio(r["finding_ratio"])}<td>{fuzz}</td><td>{errata}</td></tr>')
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (
        '<section id="statements"><h2>Statements</h2>'
        '<p>One row per statement of the catalogue. A witness cell reads <em>ok N</em> (N tests passed), '
        '<em>FAIL k/N</em>, <em>finding N</em> (an expected failure recorded in the errata: the paper is wrong '
        'there) or <em>-</em> (no such witness). <em>Tightest ratio</em>: the largest ratio a passing test '
        'recorded (for a bound lhs/rhs; for a Monte Carlo |z| over its bound; hover for the test); '
        '<em>finding ratio</em>: the same over recorded findings; <em>fuzz</em>: the worst ratio of the '
        'statement\'s campaigns (hover for the campaign).</p>'
        f'<div class="wide"><table id="statement-table"><thead><tr>{th}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div></section>')


def _failures(p: dict) -> str:
    if not p["failures"]:
        return '<section id="failures"><h2>Failures</h2><p>No witness test failed.</p></section>'
    items = "".join(f'<li><span class="st fails">{_e(f["outcome"].upper())}</span> <code>{_e(f["nodeid"])}</code> '
                    f'({_e(f["statement"])}, {_e(f["witness"])})<pre>{_e(f["message"] or "")}</pre></li>'
                    for f in p["failures"])
    return f'<section id="failures"><h2>Failures</h2><ul>{items}</ul></section>'


def _fuzz(p: dict) -> str:
    if not p["fuzz"]:
        return '<section id="fuzz"><h2>Fuzz campaigns</h2><p>No campaign was run.</p></section>'
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
    return ('<section id="fuzz"><h2>Fuzz campaigns</h2><p>Hypothesis campaigns of <code>maskverify fuzz</code>, '
            f'seeded ({_e(p["fuzz"][0]["seed"])}): reproducible, no example database.</p>'
            '<table><thead><tr><th>campaign</th><th>statement</th><th>tried</th><th>judged</th><th>worst ratio</th>'
            f'<th>threshold</th><th>outcome</th></tr></thead><tbody>{"".join(rows)}</tbody></table></section>')


def _errata(p: dict) -> str:
    arts = []
    for e in p["errata"]:
        fields = []
        for label, key in (("Statement (paper)", "statement"), ("What is wrong", "wrong"),
                           ("Counterexample", "counterexample")):
            if e[key]:
                fields.append(f"<dt>{label}</dt><dd>{blocks(e[key])}</dd>")
        if e["statements"]:
            fields.append("<dt>Catalogue statements</dt><dd>" + ", ".join(
                f"<code>{_e(s)}</code>" for s in e["statements"]) + "</dd>")
        if e["reproducers"]:
            fields.append("<dt>Reproduce</dt><dd>" + "".join(
                f'<pre class="repro" data-kind="{_e(r["kind"])}">{"$ " if r["kind"] == "shell" else "&gt;&gt;&gt; "}'
                f'{_e(r["command"])}</pre>' for r in e["reproducers"]) + "</dd>")
        else:
            fields.append(f'<dt>Reproduce</dt><dd>{blocks(e["reproduce"] or "No reproducer given.")}</dd>')
        shown = {e["statement"], e["wrong"], e["counterexample"]}
        rest = [(s["label"], s["text"]) for s in e["sections"]
                if s["text"] not in shown and not s["label"].lower().startswith("reproduc")]
        more = ""
        if rest:
            more = ("<details><summary>more of this entry</summary><dl class=\"fields\">"
                    + "".join(f"<dt>{inline(lab)}</dt><dd>{blocks(text)}</dd>" for lab, text in rest)
                    + "</dl></details>")
        arts.append(f'<article class="erratum" id="{_e(e["id"])}"><h3>{_e(e["id"])}. {inline(e["title"])}</h3>'
                    f'<dl class="fields">{"".join(fields)}</dl>{more}</article>')
    body = "".join(arts) or "<p>No errata file was found.</p>"
    return f'<section id="errata"><h2>Errata</h2><p>Parsed from <code>notes/errata.md</code>.</p>{body}</section>'


_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _figures(p: dict, out_dir: Path) -> str:
    parts = []
    for f in p["figures"]:
        name, caption = _e(f["name"]), inline(f["caption"])
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
        parts.append(f'<figure id="fig-{name}">{pics}<figcaption>{caption}{files}</figcaption></figure>')
    return f'<section id="figures"><h2>Figures</h2>{"".join(parts)}</section>'


def _provenance(p: dict) -> str:
    g = p["generated"]
    git = g.get("git")
    commit = (f'<code>{_e(git["commit"])}</code>' + (" (with local changes)" if git.get("dirty") else "")
              if git else "not a git checkout")
    rows = [("command", f'<code>{_e(g.get("command") or "numerics.app.report.build")}</code>'),
            ("timestamp (UTC)", _e(g.get("timestamp"))), ("git commit", commit),
            ("tier", _e(g.get("tier"))), ("-k", _e(g.get("select"))), ("sizes", _e(g.get("sizes"))),
            ("quick figures", _e(g.get("quick_figures"))), ("errata file", _e(g.get("errata_file"))),
            ("elapsed", f'{_e(g.get("elapsed_s"))} s')]
    rows += [(k, _e(v)) for k, v in (g.get("versions") or {}).items()]
    body = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<section id="provenance"><h2>Provenance</h2><table>{body}</table></section>'


def render_html(payload: dict, out_dir) -> str:
    """``report.html`` for a report payload (``numerics.app.report.assemble``); figures are read
    from ``out_dir`` (their paths in the payload are relative to it) and embedded."""
    g = payload["generated"]
    git = g.get("git")
    where = f" · commit {git['commit'][:12]}{'+' if git.get('dirty') else ''}" if git else ""
    nav = "".join(f'<a href="#{a}">{t}</a>' for a, t in (
        ("summary", "Summary"), ("statements", "Statements"), ("failures", "Failures"), ("fuzz", "Fuzz"),
        ("errata", "Errata"), ("figures", "Figures"), ("provenance", "Provenance")))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>maskverify report</title><style>{STYLE}</style></head><body>'
        f'<h1>maskverify report</h1><p class="sub"><em>{_e(payload["paper"])}</em><br>'
        f'generated {_e(g.get("timestamp", "?"))}{_e(where)} · {_e(g.get("tier", "?"))} tier</p>'
        f'<nav>{nav}</nav>{_summary(payload)}{_statements(payload)}{_failures(payload)}{_fuzz(payload)}'
        f'{_errata(payload)}{_figures(payload, Path(out_dir))}{_provenance(payload)}</body></html>\n')
