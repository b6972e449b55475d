"""The prose that both renderings of ``maskverify report`` print (``report.py``'s Markdown and
``report_html.py``'s HTML), in a module of its own so that neither imports the other for it: the
statement table's note and the sentence saying how a figure's task records were obtained."""
from __future__ import annotations

STATEMENTS_NOTE = (
    "One row per statement. A witness cell reads `ok N` (N tests passed), `FAIL k/N`, `finding N` (an "
    "expected failure recorded in the errata: the paper is wrong there) or `-` (no such witness). "
    "*Provenance*: as printed, or reconstructed from a named passage. *Tightest ratio*: the largest ratio a "
    "passing test recorded (for a bound, lhs/rhs; for a Monte Carlo, |z| over its bound); *finding ratio*: "
    "the same over recorded findings; *fuzz*: the worst ratio of the statement's fuzz campaigns.")


def records_line(rec: dict | None) -> str:
    """How a figure's records were obtained, one sentence (report.md, report.html, the terminal)."""
    if not rec:
        return ""
    st = rec["stored"]
    when = (f"finished {st['finished'][0]}" + (f" to {st['finished'][1]}" if st["finished"][1] != st["finished"][0]
                                                else "") if st.get("finished") else "finished at an unrecorded time")
    stored = (f"{st['records']} task records stored for this code version ({', '.join(st['versions'])}), {when} "
              f"on {', '.join(st['hosts'])}, {st['compute_s']:g} s of compute, from {rec['committed']}"
              if st["records"] else "")
    computed = f"{rec['computed']} task(s) computed now (records in {rec['written_to']})" if rec["computed"] else ""
    reused = f"{rec['reused']} taken from this report's own records" if rec.get("reused") else ""
    if rec.get("rerun"):
        return "Recomputed (--rerun): " + (computed or reused or "nothing to compute") + "."
    return "Drawn from " + "; ".join(x for x in (stored, reused, computed) if x) + "." if (stored or reused) \
        else "Computed: " + (computed or "no task records") + (" (no records committed for this code version)"
                                                              if rec.get("committed") else "") + "."
