"""Reference witness for Section 4's Gaussian-moment lemmas (Theorem 4.2 and 4.9 proof sketches).

Each lemma's closed form, taken from ``theory.masking.gaussian`` and lambdified with
``modules="mpmath"``, is evaluated in mpmath and compared with ``numerics.core.reference``: the
raw definition (indicator x polynomial x Gaussian) integrated by quadrature at ``DPS``
digits and passed through the precision ladder.  The points cover the bulk, the tails
mu/s = -8 and -20, rho = +-1 and -0.999, s = 0, d = 1, u || v, u = -v and kappa = 0.

Conventions of the closed-form side:

- Phi = ``mp.ncdf``, varphi = ``mp.npdf``; Phi_2 = Plackett's single integral (in Arb from
  rho = 0, in mpmath from rho = -1 for rho < 0, see ``_phi2``), a formula independent of the
  raw double integral the reference evaluates.
- The closed forms are evaluated with ``CF_DPS`` = DPS + 15 digits, and Phi_2 with them, so
  that their own cancellation in the tails (e.g. mu Phi(mu/s) + s varphi(mu/s) at
  mu/s = -20) does not eat into the 25 digits being checked.
- Where the displayed form is 0/0 (s_i = 0, rho = +-1, kappa = 0, u || v, u = -v: "the
  boundary is the limit", see each statement's assumptions) it is evaluated as that limit:
  at s_i = kappa = 10^-CF_DPS, at rho = +-(1 - 10^-(2 CF_DPS)) with Phi_2 taken at rho = +-1
  exactly (|Phi_2(rho) - Phi_2(+-1)| = O(sqrt(1 - |rho|))), and at v moved off the line of u
  by 10^-CF_DPS, under 4 CF_DPS working digits.  At s = 0 with mu = 0 the convention
  1{0 >= 0} = 1 is not the limit (which is 1/2) and is not probed here.
"""
from __future__ import annotations

import functools

import mpmath as mp
import pytest
import sympy as sp

from numerics.core import certified as C
from numerics.core import reference as ref
from numerics.core.tolerance import Tol, digits
from theory.masking import gaussian as g

DPS = 30
CF_DPS = DPS + 15
AGREE = Tol(1e-25, why="closed form vs raw-definition quadrature, both at >= 30 digits "
                       "(the reference is ladder-checked to 27)")

pytestmark = pytest.mark.witness("reference")


# =============================================================================== closed forms
def _arb_to_mpf(ball):
    """The exact midpoint of an Arb ball as an mpf."""
    man, exp = ball.mid().man_exp()
    return mp.ldexp(mp.mpf(int(man)), int(exp))


def _phi2_plackett_minus_one(h, k, rho, dps):
    """Phi_2 for rho < 0 by Plackett's integral from rho = -1 (nothing cancels):
    P(-k <= X <= h) + (1/2pi) int_0^{asin rho + pi/2} exp(-E) du in u = t + pi/2 (r = sin t),
    E = (h - k r)^2/(2(1 - r^2)) + k^2/2 with h - k r = (h + k) - 2k sin^2(u/2) and
    1 - r^2 = sin^2 u, free of cancellation near r = -1.  E is unimodal in r with its minimum
    at r* = k/h or h/k; the integrand is normalised by exp(-E_min) and split at the peak, so
    that mp.quad's absolute stopping test is meaningful whatever the magnitude."""
    with mp.workdps(dps):
        h, k, rho = mp.mpf(h), mp.mpf(k), mp.mpf(rho)
        base = max(mp.mpf(0), mp.ncdf(h) - mp.ncdf(-k))

        def E(u):
            su = mp.sin(u)
            return ((h + k) - 2 * k * mp.sin(u / 2) ** 2) ** 2 / (2 * su * su) + k * k / 2

        top = mp.asin(rho) + mp.pi / 2
        cands = [r for r in ((k / h) if h else None, (h / k) if k else None)
                 if r is not None and -1 < r < rho]
        # without an interior minimum E is monotone: least at u = top, or at u = 0 where it
        # is finite (h^2/2) only when h = -k
        peak = mp.asin(cands[0]) + mp.pi / 2 if cands else top
        emin = min(E(peak), h * h / 2 if h + k == 0 else mp.inf)

        def f(u):
            return mp.mpf(0) if mp.sin(u) == 0 else mp.exp(emin - E(u))

        edges = [mp.mpf(0)] + ([peak] if 0 < peak < top else []) + [top]
        return base + mp.exp(-emin) * mp.quad(f, edges) / (2 * mp.pi)


def _phi2(h, k, rho):
    """Phi_2 for the closed forms, by formulas independent of the reference under test (whose
    raw double integral would otherwise be compared with itself in the 'orthant' identity
    P = Phi_2(a1, a2; rho)): for rho >= 0 Plackett's / Drezner & Wesolowsky's single integral
    enclosed in Arb (``certified.bvn_cdf_arb``); for rho < 0, where that form cancels by
    thousands of bits in the lower tail, Plackett's integral from rho = -1 in mpmath, checked
    at two precisions.  Snapped to rho = +-1 when |rho| is within 10^-CF_DPS of it (the
    boundary limits; see the module docstring)."""
    if 1 - abs(rho) < mp.mpf(10) ** -CF_DPS:
        rho = mp.sign(rho)
    if rho >= 0 or rho == -1:
        return _arb_to_mpf(C.enclose(C.bvn_cdf_arb, h, k, rho, digits=CF_DPS))
    lo = _phi2_plackett_minus_one(h, k, rho, CF_DPS + 20)
    hi = _phi2_plackett_minus_one(h, k, rho, CF_DPS + 40)
    assert abs(lo - hi) <= abs(hi) * mp.mpf(10) ** -CF_DPS, f"Phi_2({h}, {k}; {rho}) ladder"
    return hi


MODULES = [{"Phi": mp.ncdf, "varphi": mp.npdf, "Phi2": _phi2}, "mpmath"]


@functools.lru_cache(maxsize=None)
def _compiled(expr, d):
    """(lambdified function, its argument list) for a scalar or d-dimensional expression.

    Matrix symbols become explicit matrices of fresh scalar symbols named after them, so that
    the matrix algebra of ``theory.masking.gaussian`` (1 1^T, Identity(d), ...) is expanded by SymPy."""
    e = expr.subs(g.d, d) if expr.has(g.d) else expr
    mats = {}
    rep = {}
    for m in sorted(e.atoms(sp.MatrixSymbol), key=lambda m: m.name):
        rows, cols = (int(x) for x in m.shape)
        syms = sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"M{len(mats)}_{i}_{j}"))
        mats[m.name] = syms
        rep[m] = sp.ImmutableMatrix(syms)
    if rep:
        e = sp.Matrix(e.xreplace(rep).doit())
    scalars = sorted((s for s in e.free_symbols if not any(s in M for M in mats.values())),
                     key=str)
    args = list(scalars) + [x for M in mats.values() for x in M]
    fn = sp.lambdify(args, e, modules=MODULES)
    return fn, tuple(scalars), tuple(mats.items())


def evaluate(expr, env, d=1):
    """Value of ``expr`` (SymPy, scalar or matrix) in mpmath; ``env`` maps scalar symbols and
    matrix-symbol names to mpf / mp.matrix values."""
    fn, scalars, mats = _compiled(expr, d)
    vals = [env[s] for s in scalars]
    for name, M in mats:
        V = env[name]
        vals += [V[i, j] for i in range(M.rows) for j in range(M.cols)]
    out = fn(*vals)
    if isinstance(out, mp.matrix):
        return out
    if isinstance(out, sp.MatrixBase):
        return mp.matrix([[out[i, j] for j in range(out.cols)] for i in range(out.rows)])
    return mp.mpf(out)


def _limit_value(x, eps):
    """A zero scale s = 0 (or kappa = 0) is evaluated at eps (the closed form's limit)."""
    return x if x != 0 else eps


def cf_relu1(label, mu, s):
    with mp.workdps(CF_DPS):
        mu, s = mp.mpf(mu), _limit_value(mp.mpf(s), mp.mpf(10) ** -CF_DPS)
        return evaluate(g.RELU_MOMENT1.equation(label).rhs, {g.mu: mu, g.s: s})


def cf_relu2(label, mu1, mu2, s1, s2, rho):
    with mp.workdps(4 * CF_DPS):
        eps = mp.mpf(10) ** -CF_DPS
        env = {g.mu1: mp.mpf(mu1), g.mu2: mp.mpf(mu2), g.s1: _limit_value(mp.mpf(s1), eps),
               g.s2: _limit_value(mp.mpf(s2), eps), g.rho: mp.mpf(rho)}
        if abs(env[g.rho]) == 1:
            env[g.rho] = mp.sign(env[g.rho]) * (1 - eps ** 2)
        for sym, defn in g.RELU_MOMENT2.where:
            env[sym] = evaluate(defn, env)
        out = evaluate(g.RELU_MOMENT2.equation(label).rhs, env)
    with mp.workdps(CF_DPS):
        return +out


def _mask_env(u, v, kappa, d):
    """Values of the base quantities of the mask statements (u^, v^, 1^T u, ||u||, ...)."""
    eps = mp.mpf(10) ** -CF_DPS
    U = mp.matrix([mp.mpf(x) for x in u])
    kappa = _limit_value(mp.mpf(kappa), eps)
    nu = mp.norm(U)
    env = {g.kappa: kappa, g.one.name: mp.ones(d, 1), g.uhat.name: U / nu,
           g.one_u: mp.fsum(U), sp.Symbol(r"\|u\|"): nu}
    if v is not None:
        V = mp.matrix([mp.mpf(x) for x in v])
        nv = mp.norm(V)
        env.update({g.vhat.name: V / nv, g.one_v: mp.fsum(V), sp.Symbol(r"\|v\|"): nv,
                    sp.Symbol(r"\langle \hat{u}, \hat{v}\rangle"):
                        mp.fsum(a * b for a, b in zip(U / nu, V / nv))})
    return env


def cf_mask1(u, kappa):
    d = len(u)
    with mp.workdps(CF_DPS):
        env = _mask_env(u, None, kappa, d)
        for sym, defn in g.MASK_MOMENT1.where:
            if sym == g.a:
                env[sym] = evaluate(defn, env)
        return evaluate(g.MASK_MOMENT1.equation("first").rhs, env, d)


def cf_mask2(label, u, v, kappa):
    d = len(u)
    with mp.workdps(4 * CF_DPS):
        env = _mask_env(u, v, kappa, d)
        if label == "half_space":
            env[g.a] = evaluate(g.RELU1_A[1], env)
        else:
            for sym, defn in g.MASK_MOMENT2.where:
                env[sym if not isinstance(sym, sp.MatrixSymbol) else sym.name] = evaluate(defn, env, d)
        out = evaluate(g.MASK_MOMENT2.equation(label).rhs, env, d)
    with mp.workdps(CF_DPS):
        return out * 1


def _off_line(u, v):
    """v moved off the line of u by 10^-CF_DPS (the limit u || v of the wedge closed form)."""
    with mp.workdps(4 * CF_DPS):
        U = [mp.mpf(x) for x in u]
        w = [mp.mpf(0)] * len(U)
        j = min(range(len(U)), key=lambda i: abs(U[i]))    # a direction not along u
        w[j] = mp.mpf(1)
        dot = mp.fsum(a * b for a, b in zip(U, w)) / mp.fsum(a * a for a in U)
        return [mp.mpf(b) + mp.mpf(10) ** -CF_DPS * (c - dot * a) for a, b, c in zip(U, v, w)]


# =============================================================================== comparison
def _rel(value, exact):
    """Normwise (max-entry) relative difference; absolute when the reference is exactly 0."""
    if isinstance(exact, mp.matrix):
        diff = max(abs(value[i, j] - exact[i, j]) for i in range(exact.rows) for j in range(exact.cols))
        scale = max(abs(exact[i, j]) for i in range(exact.rows) for j in range(exact.cols))
    else:
        diff, scale = abs(value - exact), abs(exact)
    return float(diff / scale) if scale else float(diff)


def _judge(rows, record):
    """rows: (label, reference value, closed-form value).  Record and assert the worst."""
    worst = max(((_rel(c, r), lab, r, c) for lab, r, c in rows), key=lambda t: t[0])
    record(error=worst[0], digits=digits(worst[0]),
           detail=f"{len(rows)} comparisons; worst at {worst[1]}")
    assert worst[0] <= AGREE.rtol, (
        f"closed form disagrees with the raw definition at {worst[1]}: relative difference "
        f"{worst[0]:.3e} > {AGREE}\n  reference   = {mp.nstr(worst[2], 35)}\n"
        f"  closed form = {mp.nstr(worst[3], 35)}\n  reproduce: numerics.core.reference at dps={DPS}")


# =============================================================================== lemma 1
RELU1_POINTS = [(0.7, 1.3), (-1.5, 0.4), (2.0, 0.25), (-8.0, 1.0), (-10.0, 0.5), (20.0, 1.0),
                (3.0, 0.0), (-2.0, 0.0)]


@pytest.mark.statement("lemma.relu_moment1")
def test_relu_moment1_closed_forms_match_definition(record):
    """E[z 1{z>=0}] = mu Phi(mu/s) + s varphi(mu/s) and E[z^2 1{z>=0}] = (mu^2 + s^2) Phi
    + mu s varphi, at 30 digits, tails mu/s = -8, -20 and s = 0 (the limit s -> 0+)."""
    rows = []
    for mu, s in RELU1_POINTS:
        rows.append((f"first(mu={mu}, s={s})", ref.relu_moment1(mu, s, dps=DPS), cf_relu1("first", mu, s)))
        rows.append((f"second(mu={mu}, s={s})", ref.relu_moment1_second(mu, s, dps=DPS),
                     cf_relu1("second", mu, s)))
        if s == 0:   # the statement's own limit: sigma_tilde -> max(mu, 0)
            with mp.workdps(CF_DPS):
                lim = evaluate(g.RELU_MOMENT1.equation("relu_limit").rhs, {g.mu: mp.mpf(mu)})
            rows.append((f"relu_limit(mu={mu})", ref.relu_moment1(mu, 0, dps=DPS), lim))
    _judge(rows, record)


# =============================================================================== lemma 2
RELU2_POINTS = [
    pytest.param((0.3, -0.2, 1.0, 2.0, 0.4), id="generic"),
    pytest.param((-8.0, -6.0, 1.0, 1.0, 0.5), id="tail-8"),
    pytest.param((0.5, 0.3, 1.0, 1.5, -0.999), id="rho-0.999", marks=pytest.mark.slow),  # 3 s; rho-1 stays
    pytest.param((1.5, -0.5, 1.0, 2.0, 1.0), id="rho+1"),
    pytest.param((1.5, -0.5, 1.0, 2.0, -1.0), id="rho-1"),
    pytest.param((2.0, -0.5, 0.0, 1.5, 0.7), id="s1=0", marks=pytest.mark.slow),  # 10 s: s = 0 is also in
    # the fast witness against this reference (test_s4_gaussian_fast)
    pytest.param((-10.0, 0.4, 0.5, 1.0, -0.3), id="tail-20"),
    pytest.param((-20.0, -20.0, 1.0, 1.0, 0.3), id="tail-20-20", marks=pytest.mark.slow),
    pytest.param((-3.0, 2.0, 1.0, 0.5, -0.999999), id="rho-0.999999", marks=pytest.mark.slow),
    pytest.param((0.8, 0.6, 0.7, 0.0, -0.2), id="s2=0", marks=pytest.mark.slow),
]


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.parametrize("point", RELU2_POINTS)
def test_relu_moment2_closed_forms_match_definition(point, record):
    """P(z1, z2 >= 0) = Phi_2(a1, a2; rho), E[z1 1_A] and E[z1 z2 1_A] (Rosenbaum 1961) at
    30 digits against the nested quadrature of the bivariate density."""
    rows = []
    for label, fn in (("orthant", ref.orthant_prob), ("first", ref.orthant_first),
                      ("second", ref.relu_moment2)):
        rows.append((f"{label}{point}", fn(*point, dps=DPS), cf_relu2(label, *point)))
    _judge(rows, record)


# =============================================================================== mask lemmas
MASK1_POINTS = [([0.7, -0.2, 0.4], 0.3), ([0.7], 0.4), ([-0.6], 0.5), ([1.0, 1.0], 0.05),
                ([0.5, 0.5], 0.0), ([0.3, -0.8, 0.1], 1.7)]


@pytest.mark.statement("lemma.mask_moment1")
def test_mask_moment1_closed_form_matches_definition(record):
    """E[c 1{c^T u >= 0}] = Phi(a) 1 + kappa varphi(a) u^ (Stein), d = 1, kappa = 0 (limit)."""
    rows = [(f"mask1(u={u}, kappa={k})", ref.mask_moment1(u, k, dps=DPS), cf_mask1(u, k))
            for u, k in MASK1_POINTS]
    rows.append(("mask1(u=0): the degenerate value 1", ref.mask_moment1([0.0, 0.0], 0.6, dps=DPS),
                 mp.ones(2, 1)))
    _judge(rows, record)


MASK2_POINTS = [
    pytest.param(([0.7, -0.2, 0.4], [0.1, 0.5, -0.3], 0.3), "wedge", id="generic"),
    pytest.param(([0.7, -0.2, 0.4], None, 0.3), "half_space", id="half-space"),
    pytest.param(([0.7], None, 0.4), "half_space", id="d=1"),
    pytest.param(([0.3, -0.8, 0.1], [0.6, -1.6, 0.2], 0.5), "parallel", id="u||v"),
    pytest.param(([0.3, -0.8, 0.1], [-0.3, 0.8, -0.1], 0.5), "parallel", id="u=-v"),
    pytest.param(([0.5, 0.5], [0.2, -0.1], 0.0), "wedge", id="kappa=0", marks=pytest.mark.slow),  # 17 s (the
    # limit at 4 CF_DPS digits); kappa = 0 stays in the default tier in the mask_moment1 case and the fast witness
    pytest.param(([1.0, 0.6], [0.9, -0.3], 0.8), "wedge", id="d=2", marks=pytest.mark.slow),
    pytest.param(([0.7], [-1.3], 0.4), "parallel", id="d=1,u=-v", marks=pytest.mark.slow),
    pytest.param(([-1.0, -0.5, 0.2], [-0.4, -0.3, -0.2], 0.2), "wedge", id="tail",
                 marks=pytest.mark.slow),
]


@pytest.mark.statement("lemma.mask_moment2")
@pytest.mark.parametrize("case,kind", MASK2_POINTS)
def test_mask_moment2_closed_form_matches_definition(case, kind, record):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] = P 1 1^T + kappa (1 tau^T + tau 1^T)
    + kappa^2 (P I + D) and the half-space form, normwise, at 30 digits; u || v and
    u = -v as the limits of the wedge form (v moved off the line by 10^-CF_DPS)."""
    u, v, kappa = case
    got = ref.mask_moment2(u, v, kappa, dps=DPS)
    if kind == "half_space":
        rows = [(f"half_space(u={u}, kappa={kappa})", got, cf_mask2("half_space", u, None, kappa))]
    elif kind == "parallel" and len(u) == 1:   # no direction off the line: the exact values
        same = u[0] * v[0] > 0
        rows = [(f"d=1, v={v} (u={u}, kappa={kappa})", got,
                 cf_mask2("half_space", u, None, kappa) if same else mp.zeros(1, 1))]
    elif kind == "parallel":
        rows = [(f"wedge limit v -> {v} (u={u}, kappa={kappa})", got,
                 cf_mask2("wedge", u, _off_line(u, v), kappa))]
        if sum(a * b for a, b in zip(u, v)) > 0:
            rows.append((f"half_space(u={u}) at u || v", got, cf_mask2("half_space", u, None, kappa)))
    else:
        rows = [(f"wedge(u={u}, v={v}, kappa={kappa})", got, cf_mask2("wedge", u, v, kappa))]
    _judge(rows, record)


# =============================================================================== sweeps (slow)
def _draw_relu2(rng):
    s1, s2 = 10 ** rng.uniform(-3, 3), 10 ** rng.uniform(-3, 3)
    a1, a2 = rng.choice([rng.uniform(-25, 25), rng.uniform(-4, 4)]), rng.uniform(-25, 25)
    rho = rng.choice([rng.uniform(-1, 1), 1 - 10 ** rng.uniform(-9, -1),
                      -1 + 10 ** rng.uniform(-9, -1)])
    return (a1 * s1, a2 * s2, s1, s2, rho)


@pytest.mark.slow
@pytest.mark.statement("lemma.relu_moment2")
def test_relu_moment2_sweep(record):
    """Seeded sweep, domain: mu_i/s_i in [-25, 25], s_i in [1e-3, 1e3] (log-uniform),
    rho uniform in [-1, 1] or within 1e-9 .. 1e-1 of +-1."""
    import random
    rng = random.Random(20240611)
    rows = []
    for _ in range(30):
        p = _draw_relu2(rng)
        for label, fn in (("orthant", ref.orthant_prob), ("first", ref.orthant_first),
                          ("second", ref.relu_moment2)):
            rows.append((f"{label}{p}", fn(*p, dps=DPS), cf_relu2(label, *p)))
    _judge(rows, record)


@pytest.mark.slow
@pytest.mark.statement("lemma.mask_moment2")
def test_mask_moment2_sweep(record):
    """Seeded sweep, domain: d in 2..4, entries of u, v uniform in [-1, 1], kappa in
    [1e-2, 10] (log-uniform); wedge and half-space forms, normwise."""
    import random
    rng = random.Random(20240612)
    rows = []
    for _ in range(12):
        d = rng.randint(2, 4)
        u = [rng.uniform(-1, 1) for _ in range(d)]
        v = [rng.uniform(-1, 1) for _ in range(d)]
        kappa = 10 ** rng.uniform(-2, 1)
        rows.append((f"wedge(u={u}, v={v}, kappa={kappa})", ref.mask_moment2(u, v, kappa, dps=DPS),
                     cf_mask2("wedge", u, v, kappa)))
        rows.append((f"half(u={u}, kappa={kappa})", ref.mask_moment2(u, None, kappa, dps=DPS),
                     cf_mask2("half_space", u, None, kappa)))
        rows.append((f"mask1(u={u}, kappa={kappa})", ref.mask_moment1(u, kappa, dps=DPS),
                     cf_mask1(u, kappa)))
    _judge(rows, record)
