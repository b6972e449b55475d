"""Figures 1 and 2 of the paper, redrawn with their Monte Carlo checked by a z-test.

The mask c ~ N(1, kappa^2 I_d) makes the pre-activation z = w^T (x . c) ~ N(mu, s^2) with
mu = w^T x and s = kappa ||w . x||.  Two smoothed ReLUs appear in the paper:

- the exact expectation sigma_tilde = E_c[ReLU(w^T (x . c))] = mu Phi(mu/s) + s varphi(mu/s)
  (eq. (19); ``closed_form.relu_moment1``);
- the proxy of Theorem 4.2, sigma_hat = mu Phi(mu/s) (``closed_form.relu_proxy``).

Their gap sigma_tilde - sigma_hat = s varphi(mu/s) is at most s/sqrt(2 pi) ~ 0.399 s, at
mu = 0 (Remark 4.4).  The paper's Fig. 1(b) caption says sigma_hat matches the Monte Carlo;
it does only where s varphi(mu/s) is below the Monte Carlo's resolution, and the figures
here show the gap.  The Monte Carlo samples raw masks (``montecarlo.mask_mean`` on
ReLU((c . x) @ w)); it never calls a closed form.

Construction (d = 5, x = 1): w(z) = (z/d) 1 + sqrt(1 - z^2/d) e with e = (1, -1, 0, 0, 0)/sqrt 2,
so w^T x = z and ||w . x|| = 1 exactly for |z| <= sqrt(5), which covers z in [-2.1, 2.1];
then s = kappa.  (|w^T x| <= sqrt(d) ||w . x|| by Cauchy-Schwarz, so d >= 5 is needed.)

Outputs per figure NAME in {fig1a, fig1b, fig2a, fig2b}: NAME.png, NAME.pdf (matplotlib,
no display), NAME.csv (the plotted columns) and NAME.json (the same columns, the
construction, the settings, and for the Monte Carlo figures the max |z-score| of the
estimate against sigma_tilde and against sigma_hat with the Bonferroni bound of
``tolerance.ZTest(alpha=1e-6, comparisons=N)``).  Every file is written atomically.
"""
from __future__ import annotations

from theory.core.io import atomic_write

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from scipy.special import ndtr
from tqdm import tqdm

from numerics.core.arrays import DTYPE
from numerics.core.closed_form import relu_moment1, relu_proxy
from numerics.core.montecarlo import Estimate, mask_mean
from numerics.core.tolerance import ZTest

D = 5
X = np.ones(D)
E = np.array([1.0, -1.0, 0.0, 0.0, 0.0]) / math.sqrt(2.0)
Z_RANGE = (-2.1, 2.1)
KAPPAS_1A = (0.01, 0.1, 0.2, 0.5, 1.0)
KAPPAS_1B = np.linspace(0.01, 2.0, 30)
MU_1B = 0.77
KAPPA_2 = 0.2
ALPHA = 1e-6
CONSTRUCTION = ("d = 5, x = (1, 1, 1, 1, 1), w(z) = (z/5) x + sqrt(1 - z^2/5) (1, -1, 0, 0, 0)/sqrt(2): "
                "w^T x = z, ||w . x|| = 1, so s = kappa ||w . x|| = kappa")
REMARK_4_4 = ("sigma_tilde - sigma_hat = s varphi(mu/s) <= s/sqrt(2 pi) = 0.3989 s, the maximum at mu = 0 "
              "(Remark 4.4)")
#: expected positive pre-activations below which a point's Monte Carlo is not z-tested
MIN_POSITIVE = 100
#: elements of one Monte Carlo batch (batch x points) kept in memory at a time
_BATCH_ELEMENTS = 2**22


def weights(z) -> np.ndarray:
    """W of shape (len(z), 5), row w(z) = (z/5) 1 + sqrt(1 - z^2/5) e: w^T 1 = z, ||w . 1|| = 1."""
    z = np.atleast_1d(np.asarray(z, dtype=np.float64))
    if np.any(np.abs(z) > math.sqrt(D)):
        raise ValueError(f"|w^T x| <= sqrt({D}) ||w . x||: z must lie in [-sqrt(5), sqrt(5)], got {z}")
    return z[:, None] / D * X + np.sqrt(1.0 - z**2 / D)[:, None] * E


def masked_relu_mc(W: np.ndarray, kappa: float, samples: int, seed: int, bar: tqdm) -> Estimate:
    """E_c[ReLU(w_j^T (x . c))] for every row w_j of W, from one seeded batch of raw masks.

    The statistic maps masks (b, d) to (b, len(W)), so all rows share each mask draw.
    """
    Wt = torch.as_tensor(W, dtype=DTYPE).T
    x = torch.as_tensor(X, dtype=DTYPE)

    def statistic(c: torch.Tensor) -> torch.Tensor:
        bar.update(c.shape[0] * Wt.shape[1])
        return torch.relu((c * x) @ Wt)

    batch = max(1, _BATCH_ELEMENTS // Wt.shape[1])
    return mask_mean(statistic, D, kappa, samples, seed=seed, batch=batch)


def testable(samples: int, mu: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Points where a z-test of the Monte Carlo is meaningful: N Phi(mu/s) >= 100.

    The number of masks with w^T (x . c) > 0 is Binomial(N, Phi(mu/s)); with few of them
    the sample mean is far from normal (and with none, its stderr is 0 although the law is
    not degenerate, which ``Estimate.z_scores`` would score as +-inf).  P(z > 0) = Phi(mu/s)
    is a property of the Gaussian z, the same under either smoothed ReLU, and the design
    (not the data) fixes which points are tested.
    """
    return samples * ndtr(mu / s) >= MIN_POSITIVE


def z_test(est: Estimate, exact: np.ndarray, ok: np.ndarray, where: np.ndarray, name: str):
    """z = (MC - exact)/stderr at the testable points ``ok`` (NaN elsewhere), and a summary:
    max |z|, where, the Bonferroni bound of ZTest(1e-6, #tested), and the untested points'
    largest |exact| and MC mean (both below the Monte Carlo's resolution)."""
    z = np.where(ok, est.z_scores(exact).numpy(), np.nan)
    mean = est.mean.numpy()
    summary = {"points_tested": int(ok.sum()), "points_untested": int((~ok).sum()),
               "test_rule": f"N Phi(mu/s) >= {MIN_POSITIVE} expected positive pre-activations",
               "untested_max_abs_exact": float(np.abs(exact[~ok]).max(initial=0.0)),
               "untested_max_mc_mean": float(mean[~ok].max(initial=0.0))}
    if ok.any():
        i = int(np.nanargmax(np.abs(z)))
        test = ZTest(alpha=ALPHA, comparisons=int(ok.sum()))
        summary |= {"max_abs_z": float(abs(z[i])), f"at_{name}": float(where[i]),
                    "bonferroni_z_bound": test.z, "within_bound": bool(abs(z[i]) <= test.z), "test": str(test)}
    return z, summary


def _first(where: np.ndarray, hit: np.ndarray) -> float | None:
    """The first ``where`` at which ``hit`` holds, None if nowhere."""
    return float(where[hit][0]) if hit.any() else None


def describe(summary: dict) -> str:
    """One line for a z-test summary."""
    if "max_abs_z" not in summary:
        return "no point has enough positive draws for a z-test"
    return (f"max |z| {summary['max_abs_z']:.2f} over {summary['points_tested']} points "
            f"(Bonferroni bound {summary['bonferroni_z_bound']:.2f})")


@dataclass
class Panel:
    """One figure: its drawing, the plotted columns (equal length) and JSON metadata."""

    name: str
    figure: Figure
    columns: dict[str, np.ndarray]
    meta: dict
    files: list[Path] = field(default_factory=list)


def _residuals(ax, x, mean, stderr, theory: dict, ok: np.ndarray, gap=None):
    """Lower panel: MC - theory with a +-2 stderr band (one line per theory, titled with its
    z-test), the predicted gap s varphi(mu/s), and the points not z-tested shaded."""
    lines = []
    for symbol, (curve, color, summary) in theory.items():
        r = mean - curve
        ax.plot(x, r, color=color, lw=1, label=f"MC - {symbol}")
        ax.fill_between(x, r - 2 * stderr, r + 2 * stderr, color=color, alpha=0.3, lw=0)
        lines.append(f"MC vs {symbol}: {describe(summary)}")
    if gap is not None:
        ax.plot(x, gap, "k--", lw=1, label=r"$s\,\varphi(\mu/s)$ (Remark 4.4)")
    if not ok.all():
        ax.axvspan(x[~ok].min(), x[~ok].max(), color="0.9", label=rf"not z-tested ($N\Phi(\mu/s)<{MIN_POSITIVE}$)")
    ax.axhline(0.0, color="gray", lw=0.5)
    ax.set_ylabel("MC - theory")
    ax.set_title("\n".join(lines), fontsize=8)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def fig1a(points: int) -> Panel:
    """Fig. 1(a): sigma_hat(z; kappa) = z Phi(z/kappa) at ||w . x|| = 1 for several kappa
    (solid), with the exact sigma_tilde = z Phi(z/kappa) + kappa varphi(z/kappa) (dashed)
    and ReLU (dotted)."""
    z = np.linspace(*Z_RANGE, points)
    fig = Figure(figsize=(7, 5))
    ax = fig.subplots()
    ax.plot(z, np.maximum(z, 0.0), "k:", lw=1.5)
    cols = {"z": z, "relu": np.maximum(z, 0.0)}
    max_gap = {}
    for kappa, color in zip(KAPPAS_1A, ("C0", "C1", "C2", "C3", "C4")):
        s = np.full_like(z, kappa)
        hat, tilde = relu_proxy(z, s), relu_moment1(z, s)
        ax.plot(z, hat, color=color, lw=1.5, label=rf"$\kappa={kappa}$")
        ax.plot(z, tilde, color=color, lw=1.2, ls="--")
        cols[f"sigma_hat_kappa={kappa}"], cols[f"sigma_tilde_kappa={kappa}"] = hat, tilde
        i = int(np.argmax(tilde - hat))
        max_gap[str(kappa)] = {"max_gap": float(tilde[i] - hat[i]), "at_z": float(z[i]),
                               "bound_s_over_sqrt_2pi": kappa / math.sqrt(2 * math.pi)}
    kappa_legend = ax.legend(title=r"$\|w\odot x\|=1$", loc="upper left", fontsize=9)
    ax.add_artist(kappa_legend)
    ax.legend(handles=[Line2D([], [], color="k", lw=1.5, label=r"$\hat\sigma=z\,\Phi(z/\kappa)$ (paper's proxy)"),
                       Line2D([], [], color="k", ls="--", label=r"$\tilde\sigma=\mathbb{E}_c[\mathrm{ReLU}]$ (exact)"),
                       Line2D([], [], color="k", ls=":", lw=1.5, label="ReLU")], loc="center left", fontsize=9)
    ax.set_xlabel(r"$z = w^\top x$")
    ax.set_ylabel("activation")
    ax.set_title(r"Fig. 1(a): proxy $\hat\sigma$ (solid) vs exact $\tilde\sigma$ (dashed)")
    ax.grid(alpha=0.3)
    return Panel("fig1a", fig, cols, {
        "paper": "Fig. 1(a)",
        "plotted": "sigma_hat(z; kappa) = z Phi(z/kappa) and sigma_tilde = sigma_hat + kappa varphi(z/kappa) "
                   "at ||w . x|| = 1, ReLU for reference; no Monte Carlo",
        "kappas": list(KAPPAS_1A), "remark_4_4": REMARK_4_4, "max_gap_per_kappa": max_gap})


def fig1b(samples: int, seed: int, bar: tqdm) -> Panel:
    """Fig. 1(b): at fixed w^T x = 0.77, ||w . x|| = 1 (so s = kappa), sigma_hat, sigma_tilde and
    the Monte Carlo E_c[ReLU(w^T (x . c))] as kappa varies; lower panel MC - theory.
    Mask draws for kappa_i use seed + 1 + i (independent across kappa)."""
    w = weights([MU_1B])
    runs = [masked_relu_mc(w, float(k), samples, seed + 1 + i, bar) for i, k in enumerate(KAPPAS_1B)]
    est = Estimate(torch.cat([r.mean for r in runs]), torch.cat([r.stderr for r in runs]), samples)
    mean, se = est.mean.numpy(), est.stderr.numpy()
    mu = np.full_like(KAPPAS_1B, MU_1B)
    hat, tilde = relu_proxy(mu, KAPPAS_1B), relu_moment1(mu, KAPPAS_1B)
    fig = Figure(figsize=(7, 7))
    top, low = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (2, 1)})
    top.plot(KAPPAS_1B, hat, "C0-", label=r"$\hat\sigma=\mu\,\Phi(\mu/s)$ (paper's proxy)")
    top.plot(KAPPAS_1B, tilde, "C1--", label=r"$\tilde\sigma=\mu\,\Phi(\mu/s)+s\,\varphi(\mu/s)$ (exact)")
    top.fill_between(KAPPAS_1B, mean - 2 * se, mean + 2 * se, color="k", alpha=0.2, lw=0)
    top.plot(KAPPAS_1B, mean, "k.", label=r"MC $\mathbb{E}_c[\mathrm{ReLU}(w^\top(x\odot c))]$ $\pm 2$ s.e.")
    top.set_ylabel("activation")
    top.set_title(f"Fig. 1(b): $w^\\top x={MU_1B}$, $\\|w\\odot x\\|=1$, d={D}, x=(1,...,1), "
                  f"w={np.round(w[0], 4).tolist()}\n{samples} masks per $\\kappa$", fontsize=9)
    top.legend(fontsize=8)
    top.grid(alpha=0.3)
    ok = testable(samples, mu, KAPPAS_1B)
    zt, z_tilde = z_test(est, tilde, ok, KAPPAS_1B, "kappa")
    zh, z_hat = z_test(est, hat, ok, KAPPAS_1B, "kappa")
    _residuals(low, KAPPAS_1B, mean, se, {r"$\hat\sigma$": (hat, "C0", z_hat),
                                          r"$\tilde\sigma$": (tilde, "C1", z_tilde)}, ok, gap=tilde - hat)
    low.set_xlabel(r"$\kappa$ ($s=\kappa$)")
    cols = {"kappa": KAPPAS_1B, "sigma_hat": hat, "sigma_tilde": tilde, "mc_mean": mean, "mc_stderr": se,
            "z_vs_sigma_tilde": zt, "z_vs_sigma_hat": zh}
    return Panel("fig1b", fig, cols, {
        "paper": "Fig. 1(b)", "construction": CONSTRUCTION, "w": w[0].tolist(), "x": X.tolist(),
        "w_dot_x": float(w[0] @ X), "norm_w_times_x": float(np.linalg.norm(w[0] * X)),
        "samples_per_kappa": samples, "seeds": f"seed + 1 + i for kappa_i (seed = {seed})",
        "z_mc_vs_sigma_tilde": z_tilde, "z_mc_vs_sigma_hat": z_hat, "remark_4_4": REMARK_4_4,
        "sigma_hat_rejected_from_kappa": _first(KAPPAS_1B, np.abs(zh) > z_hat.get("bonferroni_z_bound", np.inf)),
        "finding": "the paper's caption says sigma_hat matches the Monte Carlo; the Monte Carlo matches "
                   "sigma_tilde, and sigma_hat is off by s varphi(mu/s), visible once kappa is not small"})


def fig2(samples: int, seed: int, points: int, bar: tqdm) -> tuple[Panel, Panel]:
    """Fig. 2 at kappa = 0.2, ||w . x|| = 1 (s = 0.2): (a) the exact sigma_tilde and (b) the proxy
    sigma_hat against one Monte Carlo run over all z at once; the proxy misses s varphi(z/s),
    0.2/sqrt(2 pi) = 0.0798 at z = 0."""
    z = np.linspace(*Z_RANGE, points)
    est = masked_relu_mc(weights(z), KAPPA_2, samples, seed, bar)
    mean, se = est.mean.numpy(), est.stderr.numpy()
    s = np.full_like(z, KAPPA_2)
    hat, tilde = relu_proxy(z, s), relu_moment1(z, s)
    ok = testable(samples, z, s)
    zt, z_tilde = z_test(est, tilde, ok, z, "z")
    zh, z_hat = z_test(est, hat, ok, z, "z")
    i0 = int(np.argmin(np.abs(z)))
    common = {"construction": CONSTRUCTION, "kappa": KAPPA_2, "s": KAPPA_2, "samples": samples, "seed": seed,
              "dependence": "every z uses the same mask draws, so the MC errors are correlated across z "
                            "(smooth residuals); the Bonferroni bound holds under any dependence",
              "z_mc_vs_sigma_tilde": z_tilde, "z_mc_vs_sigma_hat": z_hat, "remark_4_4": REMARK_4_4,
              "at_z_nearest_0": {"z": float(z[i0]), "mc_mean": float(mean[i0]), "mc_stderr": float(se[i0]),
                                 "sigma_tilde": float(tilde[i0]), "sigma_hat": float(hat[i0]),
                                 "gap_s_varphi": float(tilde[i0] - hat[i0]),
                                 "z_vs_sigma_tilde": float(zt[i0]), "z_vs_sigma_hat": float(zh[i0])}}
    panels = []
    for name, symbol, formula, curve, color, key, zcol, zs, gap in (
            ("fig2a", r"$\tilde\sigma$", r"exact $\tilde\sigma=z\,\Phi(z/\sigma)+\sigma\,\varphi(z/\sigma)$",
             tilde, "C1", "sigma_tilde", zt, z_tilde, None),
            ("fig2b", r"$\hat\sigma$", r"proxy $\hat\sigma=z\,\Phi(z/\sigma)$ (Theorem 4.2)",
             hat, "C0", "sigma_hat", zh, z_hat, tilde - hat)):
        fig = Figure(figsize=(7, 7))
        top, low = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (2, 1)})
        top.plot(z, np.maximum(z, 0.0), "k:", lw=1, label="ReLU")
        top.fill_between(z, mean - 2 * se, mean + 2 * se, color="k", alpha=0.2, lw=0)
        top.plot(z, mean, "k-", lw=2.5, alpha=0.4, label=r"MC $\pm 2$ s.e.")
        top.plot(z, curve, color=color, ls="--", lw=1.5, label=formula)
        top.set_ylabel("activation")
        top.set_title(f"Fig. 2({name[-1]}): $\\kappa={KAPPA_2}$, $\\|w\\odot x\\|=1$, $\\sigma=0.2$, "
                      f"{samples} masks per point (the same masks for every z)", fontsize=9)
        top.legend(fontsize=8)
        top.grid(alpha=0.3)
        _residuals(low, z, mean, se, {symbol: (curve, color, zs)}, ok, gap=gap)
        low.set_xlabel(r"$z = w^\top x$")
        cols = {"z": z, key: curve, "mc_mean": mean, "mc_stderr": se, f"z_vs_{key}": zcol}
        panels.append(Panel(name, fig, cols, {"paper": f"Fig. 2({name[-1]})", **common}))
    return panels[0], panels[1]


def _plain(column: np.ndarray) -> list:
    """Floats for the files; NaN (a point not z-tested) becomes None (JSON null, empty CSV cell)."""
    return [v if math.isfinite(v) else None for v in column.tolist()]


def save(panel: Panel, out: Path) -> list[Path]:
    """Write NAME.png, NAME.pdf, NAME.csv, NAME.json atomically (temporary file, then os.replace)."""
    paths = [out / f"{panel.name}.{ext}" for ext in ("png", "pdf", "csv", "json")]
    for path in paths[:2]:
        atomic_write(path, lambda tmp, fmt=path.suffix[1:]: panel.figure.savefig(tmp, format=fmt, dpi=150))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(panel.columns)
    writer.writerows(zip(*(["" if v is None else v for v in _plain(c)] for c in panel.columns.values())))
    atomic_write(paths[2], buf.getvalue())
    payload = {"figure": panel.name, **panel.meta, "columns": {k: _plain(v) for k, v in panel.columns.items()}}
    atomic_write(paths[3], json.dumps(payload, indent=1))
    return paths


def make_all(out, *, samples: int = 200_000, seed: int = 0, points: int = 400,
             progress: bool = True) -> list[Panel]:
    """Draw Figs. 1(a), 1(b), 2(a), 2(b) into directory ``out`` (created if needed)."""
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    if points < 2:
        raise ValueError(f"points must be >= 2, got {points}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    total = samples * (len(KAPPAS_1B) + points)
    with tqdm(total=total, unit="relu", unit_scale=True, disable=not progress, desc="Monte Carlo") as bar:
        panels = [fig1a(points), fig1b(samples, seed, bar), *fig2(samples, seed, points, bar)]
    for panel in panels:
        panel.files = save(panel, out)
    return panels
