"""``numerics.meanfield.theorem_runs``: the machinery at a width far below the theorems' (the outcome
then says nothing about them), the events gate the outcome, and the command's errors."""
from __future__ import annotations

import math

from numerics.meanfield import theorem_runs as tr


def test_theorem3_machinery_below_its_width():
    out = tr.run_theorem3(0, m=4000)
    assert out.D == tr.theorem3_sizes().D and out.m == 4000
    assert set(out.events) >= {"eta0", "L0", "gram", "gram_deviation"}
    assert out.events["gram"] == (out.events["gram_deviation"] <= out.events["half_lam_bar"])
    if out.events_hold:
        assert out.judged > 0 and math.isfinite(out.ratio) and out.holds is not None
    else:
        assert out.holds is None and out.judged == 0


def test_cli_errors(capsys):
    assert tr.main(["thm.9"]) == 2
    assert tr.main(["thm.1", "--delta", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("error:") for line in err)
