"""Certified witness for Section 4's lemmas (Theorem 4.2 proof sketch): Arb ball arithmetic.

For lemma.relu_moment1 and lemma.relu_moment2 the definition (a rigorous ``acb.integral``
enclosure plus a rigorous tail bound) and the closed form of ``theory.masking.gaussian`` (Phi_2 by
Plackett's / Drezner & Wesolowsky's single integral) are enclosed separately, and
``certify_identity(definition, closed form, 30)`` must be "true": a proof that the two agree
to 30 significant digits at that point.  The same balls then judge

- the mpmath raw-definition references (``numerics.core.reference``): ``certify_float`` with
  rtol 1e-28 -- so the reference witness's yardstick is itself certified (these are the suite's
  self-checks, ``witness("selfcheck")``: they vouch for the reference, not for the lemma);
- the float64 kernels of ``numerics.core.closed_form``: ``certify_float`` with rtol 1e-13, the
  accuracy the kernels claim (issue #2).

Outcomes are "true", "false" (certified refutation) or "unknown" (balls too wide); only
"true" passes.  Mask moments have no certified form here: they are finite sums of the
bivariate quantities certified above (Theorem 4.9 proof sketch).
"""
from __future__ import annotations

import math

import pytest

from numerics.core import certified as C
from numerics.core import reference as ref

DIGITS = 30
REF_RTOL = 1e-28       # the reference at 30 digits, certified to 28
KERNEL_RTOL = 1e-13    # issue #2 target for the float64 kernels

pytestmark = pytest.mark.witness("certified")


def _cert_bound(e):
    """Certified upper bound of |definition - closed form| / |closed form|, as a float."""
    with C.workprec(256):
        if e.closed_form.abs_lower() == 0:
            return math.inf
        r = (e.definition - e.closed_form).abs_upper() / e.closed_form.abs_lower()
        return float(r.upper())


def _value_bound(value, ball):
    """Certified upper bound of |value - x| / |x| over the exact x in ``ball``."""
    with C.workprec(256):
        b = C.to_arb(ball, "ball")
        if b.abs_lower() == 0:
            return math.inf
        r = (C.to_arb(value, "value") - b).abs_upper() / b.abs_lower()
        return float(r.upper())


def _judge(rows, record, what):
    """rows: (label, outcome, certified relative bound).  All must be "true"."""
    bad = [(lab, out) for lab, out, _ in rows if out != C.TRUE]
    worst = max(b for _, _, b in rows)
    record(error=worst, digits=-math.log10(worst) if worst > 0 else 99.0,
           detail=f"{len(rows)} {what} certified")
    assert not bad, f"certification not 'true' at {bad[:5]} (of {len(rows)})"


# =============================================================================== lemma 1
RELU1_POINTS = [(0.7, 1.3), (-1.5, 0.4), (2.0, 0.25), (-8.0, 1.0), (-10.0, 0.5), (20.0, 1.0),
                (3.0, 0.0)]


@pytest.mark.statement("lemma.relu_moment1")
def test_relu_moment1_identity_certified(record):
    """int_0^inf z^j varphi((z-mu)/s)/s dz = closed form (j = 1, 2), certified to 30 digits."""
    rows = []
    for mu, s in RELU1_POINTS:
        for j in (1, 2):
            e = C.enclose(C.relu_moment1_arb, mu, s, moment=j, digits=DIGITS + 2)
            rows.append((f"moment{j}(mu={mu}, s={s})",
                         C.certify_identity(e.definition, e.closed_form, DIGITS),
                         _cert_bound(e) if s else 0.0))
    _judge(rows, record, "identities")


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("selfcheck")  # the suite's mpmath reference against Arb: no evidence for the lemma
def test_relu_moment1_reference_certified(record):
    """The mpmath reference (raw quadrature, 30 digits) lies within 1e-28 of the exact value."""
    rows = []
    for mu, s in RELU1_POINTS:
        for j, fn in ((1, ref.relu_moment1), (2, ref.relu_moment1_second)):
            x = C.enclose(C.relu_moment1_arb, mu, s, moment=j, digits=DIGITS + 2).best()
            rows.append((f"reference moment{j}(mu={mu}, s={s})",
                         C.certify_float(fn(mu, s, dps=DIGITS), x, REF_RTOL),
                         _value_bound(fn(mu, s, dps=DIGITS), x)))
    _judge(rows, record, "reference values")


# =============================================================================== lemma 2
RELU2_POINTS = [
    (0.3, -0.2, 1.0, 2.0, 0.4),
    (-8.0, -6.0, 1.0, 1.0, 0.5),
    (0.5, 0.3, 1.0, 1.5, -0.9),
    (-3.0, 2.0, 1.0, 0.5, -0.3),
    (1.0, -2.0, 0.5, 0.5, 0.0),
]
BVN_POINTS = [(0.0, 0.0, 0.3), (1.3, -0.4, -0.7), (-8.0, -8.0, 0.5), (-1.5, 2.5, -1.0),
              (-1.5, 2.5, 1.0), (-3.0, -4.0, -0.95), (-25.0, -25.0, 0.9)]


@pytest.mark.statement("lemma.relu_moment2")
def test_relu_moment2_identity_certified(record):
    """P, E[z1 1_A] and E[z1 z2 1_A] (conditioning on z1) = Rosenbaum's closed forms with
    Phi_2 by the Plackett / Drezner-Wesolowsky integral, certified to 30 digits."""
    rows = []
    for p in RELU2_POINTS:
        for m in (0, 1, 2):
            e = C.enclose(C.relu_moment2_arb, *p, moment=m, digits=DIGITS + 2)
            rows.append((f"moment{m}{p}", C.certify_identity(e.definition, e.closed_form, DIGITS),
                         _cert_bound(e)))
    _judge(rows, record, "identities")


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.witness("selfcheck")  # the suite's mpmath reference against Arb: no evidence for the lemma
def test_relu_moment2_and_bvn_reference_certified(record):
    """The mpmath references (nested raw quadrature) lie within 1e-28 of the exact values."""
    rows = []
    for p in RELU2_POINTS:
        for m, fn in ((0, ref.orthant_prob), (1, ref.orthant_first), (2, ref.relu_moment2)):
            x = C.enclose(C.relu_moment2_arb, *p, moment=m, digits=DIGITS + 2).best()
            rows.append((f"reference moment{m}{p}", C.certify_float(fn(*p, dps=DIGITS), x, REF_RTOL),
                         _value_bound(fn(*p, dps=DIGITS), x)))
    for p in BVN_POINTS:
        x = C.enclose(C.bvn_cdf_arb, *p, digits=DIGITS + 2)
        rows.append((f"reference bvn_cdf{p}", C.certify_float(ref.bvn_cdf(*p, dps=DIGITS), x, REF_RTOL),
                         _value_bound(ref.bvn_cdf(*p, dps=DIGITS), x)))
    _judge(rows, record, "reference values")


# =============================================================================== float64 kernels
KERNEL_RELU1 = [(t * s, s) for t in (-30.0, -20.0, -8.0, -1.0, 0.0, 0.5, 3.0, 10.0)
                for s in (1e-3, 1.0, 1e3)]
KERNEL_RELU2 = RELU2_POINTS + [(-12.0, -14.0, 1.0, 1.0, 0.95), (700.0, -250.0, 1e2, 1e2, -0.4),
                               (2.0, -9.0, 0.5, 1.0, -0.9)]
KERNEL_BVN = BVN_POINTS + [(5.0, 7.0, 0.3), (8.0, -8.0, -0.5), (-6.0, -6.0, -0.5)]


@pytest.mark.statement("lemma.relu_moment1")
def test_float_kernel_relu_moment1_certified(record):
    """numerics.core.closed_form.relu_moment1 / relu_square_moment within 1e-13 relative, certified."""
    cf = pytest.importorskip("numerics.core.closed_form")
    rows = []
    for mu, s in KERNEL_RELU1:
        for j, fn in ((1, cf.relu_moment1), (2, cf.relu_square_moment)):
            x = C.enclose(C.relu_moment1_arb, mu, s, moment=j, digits=20, prec=112).best()
            v = float(fn(mu, s))
            rows.append((f"moment{j}(mu={mu!r}, s={s!r})", C.certify_float(v, x, KERNEL_RTOL),
                         _value_bound(v, x)))
    _judge(rows, record, "float64 values")


@pytest.mark.statement("lemma.relu_moment2")
def test_float_kernel_relu_moment2_certified(record):
    """numerics.core.closed_form.orthant_prob / orthant_first / relu_moment2 and bvn_cdf within
    1e-13 relative, certified."""
    cf = pytest.importorskip("numerics.core.closed_form")
    rows = []
    for p in KERNEL_RELU2:
        for m, fn in ((0, cf.orthant_prob), (1, cf.orthant_first), (2, cf.relu_moment2)):
            x = C.enclose(C.relu_moment2_arb, *p, moment=m, digits=20, prec=112).best()
            v = float(fn(*p))
            rows.append((f"{fn.__name__}{p}", C.certify_float(v, x, KERNEL_RTOL), _value_bound(v, x)))
    for p in KERNEL_BVN:
        x = C.enclose(C.bvn_cdf_arb, *p, digits=20, prec=112)
        v = float(cf.bvn_cdf(*p))
        rows.append((f"bvn_cdf{p}", C.certify_float(v, x, KERNEL_RTOL), _value_bound(v, x)))
    _judge(rows, record, "float64 values")


@pytest.mark.slow
@pytest.mark.statement("lemma.relu_moment2")
def test_relu_moment2_identity_sweep(record):
    """Seeded sweep, domain: mu_i/s_i in [-6, 6], s_i in [1e-2, 1e2] (log-uniform),
    rho in [-0.99, 0.99]; all three moments certified to 30 digits."""
    import random
    rng = random.Random(7)
    rows = []
    for _ in range(20):
        s1, s2 = 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-2, 2)
        p = (rng.uniform(-6, 6) * s1, rng.uniform(-6, 6) * s2, s1, s2, rng.uniform(-0.99, 0.99))
        for m in (0, 1, 2):
            e = C.enclose(C.relu_moment2_arb, *p, moment=m, digits=DIGITS + 2)
            rows.append((f"moment{m}{p}", C.certify_identity(e.definition, e.closed_form, DIGITS),
                         _cert_bound(e)))
    _judge(rows, record, "identities")
