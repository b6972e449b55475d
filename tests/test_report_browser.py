"""report.html in a real browser: headless Chromium renders it, every embedded figure loads
(naturalWidth > 0), nothing violates its Content-Security-Policy, and the statement tables
have one row per statement of every registered pack.

Needs the Debian packages ``chromium`` and ``chromium-driver``.  Without /usr/bin/chromium the
test is skipped, unless the environment variable CI is set: then it fails (CI installs it).
Chromium is driven from the command line (``--dump-dom``) on a copy of the report into which
a small script is injected; the script writes what it measured into the DOM.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from numerics.app import report
from numerics.app.checkrun import WitnessResult
from numerics.core import errata, registry
from theory.core.io import atomic_write

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars"]

PROBE_HEAD = """<script>
window.__violations = [];
document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.blockedURI + ' ' + e.violatedDirective));
</script>"""
PROBE_BODY = """<script>
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const out = {
    title: document.title,
    height: document.body.scrollHeight,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt),
    rows: Array.from(document.querySelectorAll('table.statements tbody tr')).map(r => r.dataset.statement),
    errata: document.querySelectorAll('article.erratum').length,
    unavailable: Array.from(document.querySelectorAll('.unavailable')).map(d => d.textContent),
    violations: window.__violations,
  };
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def chromium():
    if CHROMIUM.exists():
        return str(CHROMIUM)
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {CHROMIUM} is missing: install the Debian packages chromium and chromium-driver")
    pytest.skip(f"headless Chromium not installed ({CHROMIUM}; Debian packages chromium and chromium-driver); "
                "with CI set this is a failure")


def _tiny(out_dir, quick, progress, seed=0):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1.5))
    fig.subplots().plot([0, 1], [0, 1])
    return [atomic_write(out_dir / "tiny.png", lambda tmp: fig.savefig(tmp, format="png", dpi=60))]


def _nothing(out_dir, quick, progress, seed=0):
    raise report.FigureUnavailable("nothing to draw here")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """A report of every registered pack with a row per statement, their real errata, the
    fuzzing plot of a real (short) campaign of the first pack that has one, a planted figure,
    and a figure with nothing to draw."""
    out = tmp_path_factory.mktemp("browser")
    packs = registry.select(None)
    results = [WitnessResult(f"verify/{p.id}/t.py::t[{st.id}]", p.paper.qualify(st.id), "fast", "passed", 0.01,
                             error=1e-16, digits=15.5) for p in packs for st in p.paper.statements]
    fuzzed = next(p for p in packs if p.campaigns)
    results.append(WitnessResult("verify/t.py::finding", fuzzed.paper.qualify(fuzzed.campaigns[0].statement_id),
                                 "property", "xfail", 0.1, ratio=3.4))
    runs = report.run_campaigns([dataclasses.replace(fuzzed, campaigns=fuzzed.campaigns[-1:])], examples=20,
                                progress=False)
    figures = [f for f in report.figures_of(fuzzed, runs) if f.name == report.FUZZ_FIGURE]
    figures += [report.ReportFigure(fuzzed.id, "tiny", "a planted figure", _tiny),
                report.ReportFigure(fuzzed.id, "fig3a", "Fig. 3(a)", _nothing)]
    drawn = report.draw_figures(figures, out, progress=False)
    payload = report.assemble(packs, 0, results, runs=runs, figures=drawn,
                              errata={p.id: errata.load(p) for p in packs},
                              meta={"command": "test", "tier": "default", "timestamp": "2026-01-01T00:00:00+00:00"})
    report.write(payload, out)
    return out, payload


def _browse(chromium: str, out: Path, *args: str) -> str:
    """Open a probed copy of report.html (the CSP widened only to run the probe) in headless
    Chromium with ``args``; return its stdout."""
    page = (out / "report.html").read_text()
    page = page.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
    page = page.replace('<meta charset="utf-8">', '<meta charset="utf-8">' + PROBE_HEAD, 1)
    page = page.replace("</body>", PROBE_BODY + "</body>", 1)
    probed = out / "probed.html"
    probed.write_text(page)
    proc = subprocess.run([chromium, *FLAGS, f"--user-data-dir={out / 'profile'}", *args, probed.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_report_renders_with_every_figure_and_row(chromium, report_dir):
    out, payload = report_dir
    dom = _browse(chromium, out, "--virtual-time-budget=10000", "--dump-dom")
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert m, "the probe did not run: the page did not load\n" + dom[-2000:]
    probe = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                       .replace("&amp;", "&"))
    assert probe["title"] == "maskverify report" and probe["height"] > 2000
    assert probe["images"] == 2  # the fuzzing plot and the planted figure; Fig. 3(a) states its absence
    assert probe["broken"] == []
    assert probe["rows"] == [r["id"] for p in payload["papers"] for r in p["statements"]]
    assert probe["errata"] == sum(len(p["errata"]) for p in payload["papers"])
    assert len(probe["unavailable"]) == 1 and "nothing to draw here" in probe["unavailable"][0]
    assert probe["violations"] == []


def test_report_screenshot(chromium, report_dir):
    out, _ = report_dir
    shot = out / "report.png"
    _browse(chromium, out, "--window-size=1400,3000", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 50_000
