"""Every statement of the paper that the suite checks, by stable id, in paper order."""
from __future__ import annotations

from . import convergence, empirical, figures, gaussian, network, ntk, radius, setting, smoothness
from theory.core.statement import Statement

CATALOGUE: dict[str, Statement] = {
    st.id: st for st in setting.STATEMENTS + gaussian.STATEMENTS + network.STATEMENTS + ntk.STATEMENTS
    + convergence.STATEMENTS + radius.STATEMENTS + smoothness.STATEMENTS + figures.STATEMENTS + empirical.STATEMENTS}


def get(statement_id: str) -> Statement:
    try:
        return CATALOGUE[statement_id]
    except KeyError:
        known = ", ".join(CATALOGUE)
        raise KeyError(f"unknown statement {statement_id!r}; known: {known}") from None
