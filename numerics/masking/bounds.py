"""What Theorems 5.2 and 5.6 require of an instance, and what the instance has.

Every O(.), Omega(.) of the theorems is read with its hidden constant set to 1 (the paper
gives none); every requirement is printed with the value it asks for, the instance's value,
and their ratio, so that a reader can see how many orders of magnitude apart they are and
redo the comparison with any constant they prefer.

Theorem 5.2 (constants 1):  m >= n^4 K^2/(lambda_0^4 delta^2 tau^2);  eta <= lambda_0/n^2;
(12) epsilon_1 <= delta m/(n K^4), epsilon_2 <= delta lambda_0/(n K^2), epsilon_3 <= lambda_0/sqrt(mn);
then with probability >= 1 - 2 delta - n^2 exp(-n^3/(delta^2 tau^2 lambda_0^3)), (13):
E[L(W_k)] <= (1 - eta lambda_0/2)^k L(W_0) + m n epsilon_2^2/lambda_0^2 + epsilon_1.
Assumption 5.1 asks (8)-(10) for all W; here epsilon_1 (Corollary 5.3) and epsilon_2,
epsilon_3 (Corollary 5.4, constants 1) are evaluated at the initialisation W_0 only, which
can only make the instance look better than a sup over W would.

Theorem 5.6 (constants 1): the same m, eta; (14) kappa <= sqrt(delta lambda_0)/(tau^2 K^2
(m^{1/4} sqrt d + n d)(phi_hat + psi_hat)); (15) sigma_max(X) phi_hat <= lambda_0/sqrt(n);
radius (16): kappa tau^2 m n^2 d^2 (phi_hat^2 + psi_hat^2) + kappa^2 tau^2 m^2 n d
+ kappa tau m n sqrt(d) phi_hat^2.  phi_hat, psi_hat are maxima over the iterates; at W_0
they are a lower bound (so (14), (15) can only be harder along a trajectory).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.core.cliargs import UsageError, check_memory, count, output, real
from theory.core.io import atomic_write

from . import convergence as cv
from . import network as nw
from .training import Config
from .data import initialisation, synthetic_data  # noqa: F401  (re-exported: bounds' own data)


@dataclass(frozen=True)
class Requirement:
    theorem: str
    what: str
    relation: str        # "<=" or ">=": instance REL required
    instance: float
    required: float

    @property
    def ratio(self) -> float:
        """instance / required (<= 1 is satisfied for '<=', >= 1 for '>=')."""
        if self.required == 0:
            return math.inf if self.instance > 0 else 1.0
        return self.instance / self.required

    @property
    def met(self) -> bool:
        return self.instance <= self.required if self.relation == "<=" else self.instance >= self.required


@dataclass(frozen=True)
class Report:
    settings: dict
    lambda0: float
    requirements: list
    quantities: dict

    @property
    def covered(self) -> dict:
        """Theorem -> whether every requirement of it is met."""
        out = {}
        for r in self.requirements:
            out[r.theorem] = out.get(r.theorem, True) and r.met
        return out


def radius_16(kappa: float, tau: float, m: int, n: int, d: int, phi_hat: float, psi_hat: float) -> float:
    """Theorem 5.6's radius (16) with its hidden constants set to 1:
    kappa tau^2 m n^2 d^2 (phi_hat^2 + psi_hat^2) + kappa^2 tau^2 m^2 n d + kappa tau m n sqrt(d) phi_hat^2."""
    return (kappa * tau**2 * m * n**2 * d**2 * (phi_hat**2 + psi_hat**2) + kappa**2 * tau**2 * m**2 * n * d
            + kappa * tau * m * n * math.sqrt(d) * phi_hat**2)


def evaluate(X, y, *, m: int, eta: float, K: int, kappa: float, tau: float, delta: float,
             seed: int = 0) -> Report:
    """The requirements of Theorems 5.2 and 5.6 against the instance (constants 1)."""
    for name, v in (("m", m), ("K", K)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    for name, v in (("eta", eta), ("tau", tau)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0, got {v!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if not kappa >= 0:
        raise ValueError(f"kappa must be >= 0, got {kappa!r}")
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n, d = X.shape
    lam = float(nw.lambda0(X))
    if not lam > 0:
        raise ValueError(f"lambda_0 = {lam:.3g} <= 0: the theorems assume a positive definite NTK Gram "
                         "(Assumption 3.1's pairwise non-parallel inputs)")
    W, a = initialisation(m, d, tau, seed)
    L0 = float(nw.clean_loss(W, a, X, y))
    c3 = cv.corollary_5_3(W, a, X, y, kappa)
    c4 = cv.corollary_5_4(W, a, X, y, kappa)
    dfn = nw.definition_4_1(W, X, y, kappa)
    sigma = float(np.linalg.norm(X, 2))
    eps1, eps3 = c3.eps1, sigma * dfn.phi_max / math.sqrt(m)
    eps2 = c4.A + c4.C
    phi, psi = dfn.phi_max, dfn.psi_max
    def common(thm):
        return [Requirement(thm, "width m >= n^4 K^2/(lambda_0^4 delta^2 tau^2)", ">=", m,
                            n**4 * K**2 / (lam**4 * delta**2 * tau**2)),
                Requirement(thm, "step eta <= lambda_0/n^2", "<=", eta, lam / n**2)]

    R = common("Theorem 5.2")
    R.append(Requirement("Theorem 5.2", "(12) epsilon_1 <= delta m/(n K^4)  [Cor. 5.3 at W_0]", "<=",
                         eps1, delta * m / (n * K**4)))
    R.append(Requirement("Theorem 5.2", "(12) epsilon_2 <= delta lambda_0/(n K^2)  [Cor. 5.4 at W_0]", "<=",
                         eps2, delta * lam / (n * K**2)))
    R.append(Requirement("Theorem 5.2", "(12) epsilon_3 <= lambda_0/sqrt(m n)  [Cor. 5.4 at W_0]", "<=",
                         eps3, lam / math.sqrt(m * n)))
    R += common("Theorem 5.6")
    denom = tau**2 * K**2 * (m**0.25 * math.sqrt(d) + n * d) * (phi + psi)
    R.append(Requirement("Theorem 5.6", "(14) kappa <= sqrt(delta lambda_0)/(tau^2 K^2 (m^1/4 sqrt d + n d)"
                         "(phi_hat + psi_hat))", "<=", kappa,
                         math.sqrt(delta * lam) / denom if denom > 0 else math.inf))
    R.append(Requirement("Theorem 5.6", "(15) sigma_max(X) phi_hat <= lambda_0/sqrt(n)", "<=",
                         sigma * phi, lam / math.sqrt(n)))
    success = 1 - 2 * delta - n**2 * math.exp(-(n**3) / (delta**2 * tau**2 * lam**3))
    quantities = {
        "n": n, "d": d, "lambda_0": lam, "sigma_max(X)": sigma, "L(W_0)": L0,
        "phi_hat (at W_0)": phi, "psi_hat (at W_0)": psi,
        "epsilon_1": eps1, "epsilon_2": eps2, "epsilon_3": eps3,
        "success probability": success,
        "rate 1 - eta lambda_0/2": 1 - eta * lam / 2,
        "steps to shrink L(W_0) by e": 2 / (eta * lam),
        "radius (13): m n eps_2^2/lambda_0^2 + eps_1": m * n * eps2**2 / lam**2 + eps1,
        "radius (16)": radius_16(kappa, tau, m, n, d, phi, psi),
        "weight movement bound tau lambda_0/n": tau * lam / n,
    }
    settings = dict(n=n, d=d, m=m, eta=eta, K=K, kappa=kappa, tau=tau, delta=delta, seed=seed)
    return Report(settings, lam, R, quantities)


def format_report(rep: Report) -> str:
    """The requirements table and the derived quantities, for the terminal."""
    lines = ["hidden constants of O(.) and Omega(.) set to 1; epsilon_i and phi_hat, psi_hat at W_0",
             "settings: " + ", ".join(f"{k}={v}" for k, v in rep.settings.items()), ""]
    w = max(len(r.what) for r in rep.requirements)
    lines.append(f"{'theorem':<12} {'requirement':<{w}}  {'instance':>11}  {'required':>11}  {'ratio':>10}  met")
    for r in rep.requirements:
        lines.append(f"{r.theorem:<12} {r.what:<{w}}  {r.instance:>11.3e}  {r.required:>11.3e}  "
                     f"{r.ratio:>10.2e}  {'yes' if r.met else 'NO'}")
    lines.append("")
    for k, v in rep.quantities.items():
        lines.append(f"  {k}: {v:.6g}" if isinstance(v, float) else f"  {k}: {v}")
    lines.append("")
    for thm, ok in rep.covered.items():
        lines.append(f"{thm}: {'covers this instance' if ok else 'does NOT cover this instance'} "
                     "(with constants 1)")
    return "\n".join(lines)


_FIG3A = Config()
#: the instance ``maskverify bounds`` evaluates by default: Fig. 3(a)'s settings (one source of
#: truth, ``numerics.masking.training.Config``) under the theorems' names, with one kappa of the
#: sweep and a failure probability delta of our choosing (the paper states none)
FIG3 = dict(n=_FIG3A.n, d=_FIG3A.d, m=_FIG3A.m, eta=_FIG3A.lr, K=_FIG3A.steps, tau=_FIG3A.tau, kappa=0.2, delta=0.1)


def add_subcommand(sub) -> None:
    """Register ``maskverify bounds`` on the CLI's subparsers."""
    import argparse

    p = sub.add_parser(
        "bounds", help="what Theorems 5.2 and 5.6 require of an instance, and what it has",
        description="Print, for given n, d, m, eta, K, kappa, tau, delta and data, every requirement "
                    "of Theorems 5.2 and 5.6 (width, step size, (12), (14), (15)), the instance's "
                    "value, the required value and their ratio, and the derived quantities "
                    "(lambda_0 of eq. (11), epsilon_1..3 from Corollaries 5.3 and 5.4, the success "
                    "probability, the radii of (13) and (16)). Defaults: the paper's Fig. 3(a) "
                    "experiment (n = 500, d = 20, m = 100, eta = 0.005, K = 2000).",
        epilog="Every hidden constant of O(.) and Omega(.) is set to 1 (the paper gives none); "
               "epsilon_1..3 and phi_hat, psi_hat are evaluated at the initialisation W_0 "
               "(w_0r ~ N(0, tau^2 I), seeded), which can only flatter the instance: the theorems "
               "ask for sup over W or over the iterates. Data: --data FILE.npz with arrays X (n, d) "
               "and y (n,), or synthetic unit-norm inputs and labels in [-1, 1] (seeded). The paper "
               "does not state tau; the default 1 is ours. Exit status 0 whether or not a theorem "
               "covers the instance.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    positive = real(0.0, open_lo=True)
    for name, typ, default, text in (
            ("--n", count(1), FIG3["n"], "samples (synthetic data)"), ("--d", count(1), FIG3["d"], "input dimension"),
            ("--m", count(1), FIG3["m"], "width"), ("--eta", positive, FIG3["eta"], "step size"),
            ("--K", count(1), FIG3["K"], "iterations"), ("--tau", positive, FIG3["tau"], "initialisation scale"),
            ("--delta", real(0.0, 1.0, open_lo=True, open_hi=True), FIG3["delta"], "failure probability"),
            ("--seed", count(0), 0, "data and W_0 seed")):
        p.add_argument(name, type=typ, default=default, help=f"{text} (default {default})")
    p.add_argument("--kappa", type=real(0.0), nargs="+", default=[FIG3["kappa"]],
                   help="mask standard deviation(s) (default 0.2)")
    p.add_argument("--data", metavar="FILE.npz", help="arrays X (n, d) and y (n,) instead of synthetic data")
    p.add_argument("--json", metavar="FILE", type=output("file"), help="also write the reports as JSON (atomically)")
    p.set_defaults(func=_run)


def memory_needed(n: int, d: int, m: int) -> float:
    """Bytes ``evaluate`` holds at once, from the shapes (generous): X (n, d) and the NTK Gram's
    n x n matrices, W (m, d) and its gradients, (n, m) activations, and the exact pass's pair block
    (``network.PAIR_BUDGET`` pairs at ~40 float64 each)."""
    return 8.0 * (4.0 * n * n + 2.0 * n * d + 6.0 * m * d + 8.0 * n * m) + 40 * 8.0 * min(float(n) * m * m, nw.PAIR_BUDGET)


def _load_data(path: str) -> tuple[np.ndarray, np.ndarray]:
    """X (n, d) and y (n,) from an .npz file (``numpy.savez``: a zip archive of .npy arrays); a
    missing, foreign, damaged or incomplete file is a one-line ``UsageError`` that says which."""
    import zipfile

    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise UsageError(f"--data {path}: cannot read it ({exc.strerror})") from None
    if magic != b"PK\x03\x04":
        raise UsageError(f"--data {path}: not an .npz archive (numpy.savez writes one, with arrays X and y)")
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in ("X", "y") if k not in f.files]
            if missing:
                raise UsageError(f"--data {path}: no array {' or '.join(missing)} (it has {', '.join(f.files) or 'none'}; "
                                 "it needs X (n, d) and y (n,))")
            X, y = np.asarray(f["X"], float), np.asarray(f["y"], float)
    except ValueError as exc:  # object arrays (pickles are never loaded), text that is not a number
        raise UsageError(f"--data {path}: X and y must be arrays of numbers ({str(exc).splitlines()[0]})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise UsageError(f"--data {path}: a damaged .npz archive ({type(exc).__name__})") from None
    if X.ndim != 2 or y.shape != (X.shape[0],) or not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise UsageError(f"--data {path}: X must be (n, d) and y (n,), finite; got {X.shape} and {y.shape}")
    return X, y


def _run(args) -> int:
    import json

    if args.data:
        X, y = _load_data(args.data)
        check_memory(memory_needed(*X.shape, args.m), "maskverify bounds on this data")
    else:
        check_memory(memory_needed(args.n, args.d, args.m), "maskverify bounds at these sizes")
        X, y = synthetic_data(args.n, args.d, args.seed)
    try:  # every kappa first: a value outside the domain prints nothing
        reports = [evaluate(X, y, m=args.m, eta=args.eta, K=args.K, kappa=kappa, tau=args.tau,
                            delta=args.delta, seed=args.seed) for kappa in args.kappa]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for rep in reports:
        print(format_report(rep) + "\n")
    if args.json:
        out = [{"settings": r.settings, "quantities": r.quantities, "covered": r.covered,
                "requirements": [dict(theorem=q.theorem, what=q.what, relation=q.relation,
                                      instance=q.instance, required=q.required, ratio=q.ratio, met=q.met)
                                 for q in r.requirements]} for r in reports]
        atomic_write(args.json, json.dumps(out, indent=1))
        print(f"wrote {args.json}")
    return 0
