"""``numerics.meanfield.reference.tanh_entry_panels`` at zero rows, where u = 0 (or u = v = 0)
surely and the entry is exact: s(0) E[s(v)], i.e. 0 for tanh and E[sech^2(v)] for sech^2, and
sech^2(0)^2 = 1 for two zero rows (which failed inside Arb before: a zero-width integral)."""
import mpmath as mp
import numpy as np

from numerics.meanfield import reference as ref

ZERO = np.zeros(3)
ROW = np.array([0.5, -1.0, 2.0])


def test_two_zero_rows_are_exact():
    assert ref.tanh_entry_panels(ZERO, ZERO) == 0
    assert ref.tanh_entry_panels(ZERO, ZERO, derivative=True) == 1


def test_one_zero_row_is_s0_times_a_one_dimensional_expectation():
    assert ref.tanh_entry_panels(ZERO, ROW) == 0
    with mp.workdps(30):  # E sech^2(B g), B = |x_b|/sqrt(d), by mpmath's own quadrature
        B = mp.sqrt(mp.fsum(mp.mpf(float(v)) ** 2 for v in ROW) / 3)
        want = mp.quad(lambda g: mp.sech(B * g) ** 2 * mp.npdf(g), [-mp.inf, 0, mp.inf])
    got = ref.tanh_entry_panels(ROW, ZERO, derivative=True, dps=30)
    assert abs(got - want) <= mp.mpf(10) ** -25 * want  # 30 digits on both sides, the ladder's 10^-(dps-3) and margin
