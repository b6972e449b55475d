"""The prose that both renderings of ``maskverify report`` print (``report.py``'s Markdown and
``report_html.py``'s HTML), in a module of its own so that neither imports the other for it."""
from __future__ import annotations

STATEMENTS_NOTE = (
    "One row per statement. A witness cell reads `ok N` (N tests passed), `FAIL k/N`, `finding N` (an "
    "expected failure recorded in the errata: the paper is wrong there) or `-` (no such witness). "
    "*Provenance*: as printed, or reconstructed from a named passage. *Tightest ratio*: the largest ratio a "
    "passing test recorded (for a bound, lhs/rhs; for a Monte Carlo, |z| over its bound); *finding ratio*: "
    "the same over recorded findings; *fuzz*: the worst ratio of the statement's fuzz campaigns.")
