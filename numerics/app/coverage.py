"""The coverage of the papers in every verdict surface: per pack, how many results of the paper
(its source index, ``numerics.core.sources``) are carried by a holding or supported statement, by
a finding, by a failing statement, in part, not checked, or not carried at all.

``maskverify check`` and ``maskverify report`` compute it from the verdicts of their run;
``maskverify papers`` from the verdicts known without running (``checkrun.static_verdicts``: a
result whose statements the default tier's witnesses decide is ``not run`` there).  A pack
without an index says so: its coverage is unknown, never "complete".
"""
from __future__ import annotations

from typing import Iterable, Mapping

from numerics.core import sources

#: the buckets the report lists result by result (a holding result is in the statement table)
LISTED = ("not carried", "in part", "not checked", "not run", "fails", "finding")


def printed(result: dict) -> str:
    """A result's label with its printed name: ``Theorem 5.2 (weight movement)``."""
    return result["label"] + (f" ({result['name']})" if result["name"] else "")


def of_pack(pack, verdicts: Mapping[str, tuple[str | None, str]]) -> dict:
    """``{"pack", "indexed", "counts", "line", "results"}`` for ``pack``; ``verdicts`` maps its
    short statement ids to ``(status, reason)``.  ``results`` lists every result with its bucket and
    why it sits there (``Covered.detail``), in paper order."""
    index = pack.index
    if index is None:
        return {"pack": pack.id, "indexed": False, "counts": None,
                "line": f"no source index ({pack.sources or 'PaperPack.sources is not set'}): "
                        "the results of the paper that no statement carries are unknown",
                "results": []}
    covered = sources.coverage(index, verdicts)
    c = sources.counts(covered)
    return {"pack": pack.id, "indexed": True, "counts": c, "line": sources.line(c),
            "results": [{"label": x.result.label, "name": x.result.name, "kind": x.result.kind,
                         "section": x.result.section, "quote": x.result.quote,
                         "statements": [pack.paper.qualify(s) for s in x.result.statements],
                         "bucket": x.bucket, "detail": x.detail} for x in covered]}


def from_rows(packs, rows) -> list[dict]:
    """Per pack, its coverage from check-table rows (``checkrun.Row`` with verdicts)."""
    status = {row.statement: (row.verdict.status, row.verdict.reason) for row in rows if row.verdict is not None}
    return [of_pack(p, {st.id: status.get(p.paper.qualify(st.id), ("not checked", "no verdict in this run"))
                        for st in p.paper.statements}) for p in packs]


def from_statement_rows(pack, rows: Iterable[dict]) -> dict:
    """A pack's coverage from JSON statement rows (``id`` qualified, ``status``, ``reason``)."""
    return of_pack(pack, {pack.paper.short(r["id"]): (r["status"], r["reason"]) for r in rows})


def total(covs: Iterable[dict]) -> dict | None:
    """The counts summed over packs; None when no pack has an index."""
    counted = [c["counts"] for c in covs if c["counts"] is not None]
    if not counted:
        return None
    return {k: sum(c[k] for c in counted) for k in counted[0]}


def lines(covs: list[dict]) -> list[str]:
    """The coverage as terminal lines: one per pack (with the labels not carried), and the total."""
    out = []
    for c in covs:
        out.append(f"{c['pack']}: {c['line']}")
        missing = [r["label"] for r in c["results"] if r["bucket"] == "not carried"]
        if missing:
            out.append(f"  not carried: {'; '.join(missing)}")
    t = total(covs)
    if len(covs) > 1 and t is not None:
        unindexed = [c["pack"] for c in covs if not c["indexed"]]
        out.append("all papers: " + sources.line(t)
                   + (f" (without {', '.join(unindexed)}: no source index)" if unindexed else ""))
    return out
