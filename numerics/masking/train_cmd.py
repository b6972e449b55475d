"""``maskverify train``: the paper's training experiments from the command line.

Centralised (default): masked gradient descent, eq. (1), for every (seed, kappa) at once
(``numerics.masking.training``), optionally the expected dynamics, analysed by ``numerics.core.floors``
and drawn as Fig. 3(a) (``numerics.masking.fig3a``).  With ``--workers``: FedAvg over a fading
channel, Fig. 3(b) (``numerics.masking.fedavg``).  Results go to ``--out``: NAME.json (settings
and every derived number), NAME.csv (every loss), NAME.png and NAME.pdf, and
checkpoint.pt, from which ``--resume`` continues an interrupted or finished run (to more
steps, if ``--steps`` asks for more).
"""
from __future__ import annotations

from theory.core.io import atomic_write

import sys
from pathlib import Path

import torch
from dataclasses import replace

from numerics.core import execution
from numerics.core.cliargs import UsageError, check_memory, count, output, real
from numerics.masking import fig3a
from numerics.core import floors as fl
from numerics.masking import network as nw
from numerics.masking.fedavg import FIG3B
from numerics.masking import training as tr

CHECKPOINT = "checkpoint.pt"


def add_subcommand(sub) -> None:
    """Register ``maskverify train`` on the CLI's subparsers."""
    d = tr.Config()
    p = sub.add_parser(
        "train", help="masked gradient descent (Fig. 3(a)) and FedAvg over a fading channel (Fig. 3(b))",
        description="Train the two-layer ReLU network of Section 3 with Gaussian input masks, eq. (1): "
                    "full-batch gradient descent, a fresh mask c ~ N(1, kappa^2 I) per sample and step, "
                    "only W trained, the clean loss L(W_k) recorded. Every (seed, kappa) runs in one "
                    "batched tensor program; runs of one seed share data, W_0 and noise across kappa "
                    "(paired). Then: per kappa, whether the run has converged (equivalence test on the "
                    "drift of log L over the last fifth), the floor, the paired excess floor(kappa) - "
                    "floor(0) with 95% intervals, its fitted exponent in kappa, and lambda_0 of the data "
                    "with the rate (1 - eta lambda_0/2)^k of Theorems 5.2/5.6. Defaults: the paper's "
                    "Fig. 3(a) (n=500, d=20, m=100, eta=0.005, 2000 steps, 7 kappas).",
        epilog="Not stated by the paper, chosen here: tau (initialisation scale, default 1), the labels "
               "(--labels random: uniform in [-1, 1]; teacher: a random network of the same form), "
               "the number of seeds. --expected-steps N adds the expected dynamics (gradient descent "
               "on the exact E_C[grad L_C], no sampling) for the first N steps: 1-3 s per step and kappa "
               "at the paper's size on one core (kappa = 0.05 the dearest; bench/bench_expected.py), "
               "so keep N small there or shrink n, m. "
               "--until-converged MAX extends the run, --steps at a time, until every kappa is at its "
               "floor or MAX steps. With --workers W: FedAvg with W workers, --local-steps L ... local "
               "steps per round, --steps total gradient steps per run. Interrupted? Run the same "
               "command with --resume. With --cluster-workers N or --scheduler ADDRESS the centralised "
               "run becomes tasks on Dask (numerics.masking.sweep): one per (kappa, seed) and one per "
               "kappa of the expected dynamics, each stored in --store as it finishes (--resume-tasks "
               "skips those stored, and an expected-dynamics task, which saves its state every 20 "
               "steps, goes on from its last save); the same numbers serially (--cluster-workers 0), on a local "
               "cluster or a remote one, and those of the batched run up to the order of float sums.")
    p.add_argument("--kappa", type=real(0.0, nw.SCALE_MAX), nargs="+", metavar="K",
                   help="mask standard deviations, at most 1e150 (the masked pre-activations' float64 domain, "
                        "numerics.masking.network.SCALE_MAX) (default: Fig. 3(a)'s 0 0.05 0.2 0.4 0.6 1 2; "
                        "with --workers, ours for Fig. 3(b): 0 0.2 0.6 1)")
    p.add_argument("--steps", type=count(1), default=d.steps, help=f"gradient steps per run (default {d.steps})")
    p.add_argument("--seeds", type=count(1), help=f"mask seeds per kappa (default {d.seeds}; with --workers 2)")
    positive = real(0.0, open_lo=True)
    for name, typ, text in (("n", count(1), "samples"), ("d", count(1), "input dimension"), ("m", count(1), "width"),
                            ("lr", positive, "learning rate eta"), ("tau", positive, "initialisation scale")):
        p.add_argument(f"--{name}", type=typ, default=getattr(d, name), help=f"{text} (default {getattr(d, name)})")
    p.add_argument("--labels", choices=("random", "teacher"), default=d.labels,
                   help="random bounded labels or a teacher network's (default random)")
    p.add_argument("--data-seed", type=count(0), default=0, help="seed of the data (default 0)")
    p.add_argument("--init-seed", type=count(0), default=0, help="seed of W_0 and a (default 0)")
    p.add_argument("--mask-seed", type=count(0), default=0, help="seed of the mask streams (default 0)")
    p.add_argument("--vary-init", action="store_true", help="each seed also draws its own W_0 and a")
    p.add_argument("--dtype", choices=tuple(tr.DTYPES), default="float64", help="arithmetic (default float64)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: cuda if available, else cpu (default auto)")
    p.add_argument("--expected-steps", type=count(0), default=0, metavar="N",
                   help="also run the expected dynamics for N steps, seed 0 (default 0: off)")
    p.add_argument("--until-converged", type=count(0), default=0, metavar="MAX",
                   help="extend until every kappa has converged or MAX steps (default 0: off)")
    p.add_argument("--workers", type=count(0), default=0, help="FedAvg workers (default 0: centralised eq. (1))")
    p.add_argument("--local-steps", type=count(1), nargs="+", default=[1, 5, 10], metavar="L",
                   help="FedAvg local steps per round (default 1 5 10)")
    p.add_argument("--backend", choices=("sim", "gloo", "nccl"), default="sim",
                   help="FedAvg: single-process simulation or torch.distributed processes (default sim)")
    p.add_argument("--out", type=output("dir"), default="results/train", help="output directory (default results/train)")
    p.add_argument("--resume", action="store_true", help=f"continue from OUT/{CHECKPOINT}")
    p.add_argument("--checkpoint-every", type=count(1), default=200, metavar="N",
                   help="write the checkpoint every N steps (default 200)")
    p.add_argument("--threads", type=count(0), default=0, metavar="N",
                   help="CPU threads for torch and for the exact pass's pair kernel, which follows "
                        "torch's count (default 0: torch's choice, the machine's cores; small problems on a "
                        "busy machine run faster with 1; the results do not depend on it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    execution.add_arguments(p, store="results/tasks/train", workers_flags=("--cluster-workers",),
                            resume_flag="--resume-tasks")
    p.set_defaults(func=run)


def _device(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available (torch.cuda.is_available() is False)")
    return name


def _save_checkpoint(path: Path, masked: tr.MaskedGD, expected: tr.ExpectedGD | None) -> None:
    state = dict(masked=masked.state(), expected=expected.state() if expected else None)
    atomic_write(path, lambda tmp: torch.save(state, tmp))


def _advance(run, steps: int, path: Path, every: int, both, bar) -> None:
    """Advance ``run`` by ``steps``, checkpointing ``both`` (masked, expected) every ``every`` steps."""
    while steps > 0:
        k = min(steps, every)
        run.advance(k, bar)
        steps -= k
        _save_checkpoint(path, *both)


def _all_converged(run: tr.MaskedGD) -> bool:
    loss = run.losses
    alive = run.diverged_at < 0
    return all(fl.convergence(loss[alive[:, j], j]).converged
               for j in range(loss.shape[1]) if alive[:, j].any())


def _print_summary(s: dict) -> None:
    print(f"lambda_0 = {s['lambda0']:.6g}; rate 1 - eta lambda_0/2 = {s['rate']:.8f}; "
          f"{s['steps']} steps in {s['seconds']:.1f} s; floor = mean over the last {s['window']} steps")
    print(f"{'kappa':>7} {'final L':>11} {'floor':>11} {'+-se':>9}  convergence")
    for p in s["per_kappa"]:
        fmt = lambda v, w: f"{v:>{w}.4g}" if v is not None else f"{'-':>{w}}"  # noqa: E731
        extra = f"  ({p['diverged']} runs diverged at {p['diverged_at']})" if p["diverged"] else ""
        print(f"{p['kappa']:>7g} {fmt(p['final_loss'], 11)} {fmt(p['floor'], 11)} {fmt(p['floor_se'], 9)}  "
              f"{p['verdict']}{extra}")
    for e in s.get("excess", []):
        sign = "> 0" if e["positive"] else ("< 0" if e["negative"] else "indistinguishable from 0")
        print(f"  excess floor kappa={e['kappa']:g}: {e['mean']:.4g} +- {e['half_width']:.2g} (95%), {sign}")
    if "exponent" in s:
        print("  " + s["exponent"]["text"])
    for m in s.get("monotonicity", []):
        print(f"  floor {m['kappa_from']:g} -> {m['kappa_to']:g}: {m['mean']:+.4g} +- {m['half_width']:.2g}: "
              f"{m['verdict']}")
    for r in s.get("expected", []):
        line = (f"  expected dynamics kappa={r['kappa']:g} at step {r['steps']}: L = {r['expected_final']:.6g} "
                f"(masked mean {r['masked_final']:.6g}")
        line += f" +- {r['masked_final_se']:.2g})" if r.get("masked_final_se") is not None else ")"
        if r.get("bias") is not None:
            line += (f"; floor excess = bias {r['bias']:.4g} + variance {r['variance']:.4g} "
                     f"+- {r['variance_half_width']:.2g}")
        print(line)
    if any(not p["converged"] for p in s["per_kappa"]):
        print("  note: a floor of a run that has NOT converged measures unfinished training; "
              "extend with --resume --steps N or --until-converged MAX")


def memory_needed(cfg, workers: int = 1, expected: int = 0) -> float:
    """Bytes the run holds at once, from its shapes (an estimate, generous by design): the data
    X (n, d); per batched (kappa, seed) run and FedAvg worker, the masks (n, d), a few (n, m)
    activations and (m, d) weights, gradients and checkpoints; with the expected dynamics, the
    exact pass's pair block (``network.PAIR_BUDGET`` pairs at ~40 float64 each)."""
    from . import network as nw

    n, d, m = cfg.n, cfg.d, cfg.m
    runs = len(cfg.kappas) * cfg.seeds * workers
    total = 8.0 * (n * d + runs * (2 * n * d + 8 * n * m + 6 * m * d))
    if expected:
        total += 40 * 8.0 * min(float(n) * m * m, nw.PAIR_BUDGET)
    return total


def run(args) -> int:
    from tqdm import tqdm

    try:
        device = _device(args.device)
        defaults = FIG3B if args.workers else dict(kappas=tr.FIG3A["kappas"], seeds=tr.Config.seeds)
        cfg = tr.Config(n=args.n, d=args.d, m=args.m, lr=args.lr, steps=args.steps,
                        kappas=tuple(args.kappa or defaults["kappas"]),
                        seeds=args.seeds or defaults["seeds"], tau=args.tau, labels=args.labels, data_seed=args.data_seed,
                        init_seed=args.init_seed, mask_seed=args.mask_seed, vary_init=args.vary_init,
                        dtype=args.dtype)
    except ValueError as err:
        print(f"maskverify train: {err}", file=sys.stderr)
        return 2
    check_memory(memory_needed(cfg, args.workers or 1, args.expected_steps), "maskverify train at these sizes")
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.workers:
        return _run_fedavg(args, cfg, device)
    if execution.chosen(args):
        return _run_tasks(args, cfg, device)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt = args.out / CHECKPOINT
    expected = None
    if ckpt.exists():
        if not args.resume:
            print(f"maskverify train: {args.out} already holds a run ({CHECKPOINT}); pass --resume to "
                  "continue it, or choose another --out", file=sys.stderr)
            return 2
        try:
            state = torch.load(ckpt, weights_only=False)
            if not (isinstance(state, dict) and {"masked", "expected"} <= state.keys()):
                raise TypeError("not a dict with 'masked' and 'expected'")
        except Exception as err:  # noqa: BLE001 -- torch.load raises many kinds on a torn or foreign file
            print(f"maskverify train: cannot resume: {ckpt} is not a checkpoint of maskverify train "
                  f"({type(err).__name__}); remove it, or choose another --out, to start afresh", file=sys.stderr)
            return 2
        try:
            masked = tr.MaskedGD.from_state(state["masked"], cfg, device=device)
            if state["expected"] is not None:
                expected = tr.ExpectedGD.from_state(state["expected"], cfg)
        except (ValueError, KeyError, TypeError) as err:
            print(f"maskverify train: cannot resume from {ckpt}: {err}", file=sys.stderr)
            return 2
        print(f"resuming at step {masked.step} from {ckpt}")
    else:
        masked = tr.MaskedGD(cfg, device=device)
    ks = [k for k in cfg.kappas if k > 0]
    if args.expected_steps and expected is None and ks:
        expected = tr.ExpectedGD(cfg, ks)
    bar_off = args.no_progress
    with tqdm(total=max(0, cfg.steps - masked.step), desc="masked GD", unit="step", disable=bar_off) as bar:
        _advance(masked, cfg.steps - masked.step, ckpt, args.checkpoint_every, (masked, expected), bar)
    while args.until_converged and masked.step < args.until_converged and not _all_converged(masked):
        more = min(cfg.steps, args.until_converged - masked.step)
        with tqdm(total=more, desc=f"extending from {masked.step}", unit="step", disable=bar_off) as bar:
            _advance(masked, more, ckpt, args.checkpoint_every, (masked, expected), bar)
    if expected is not None:
        todo = max(0, min(args.expected_steps, masked.step) - expected.step)
        with tqdm(total=todo * len(ks), desc="expected dynamics", unit="eval", disable=bar_off) as bar:
            _advance(expected, todo, ckpt, max(1, args.checkpoint_every // 20), (masked, expected), bar)
    traj = masked.trajectories()
    exp = expected.result() if expected is not None else None
    lam = float(nw.lambda0(masked.X.double().cpu().numpy()))
    summary = fig3a.summarise(traj, lam, exp)
    summary["device"] = device
    paths = fig3a.save(traj, summary, args.out, exp)
    _print_summary(summary)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _run_tasks(args, cfg: tr.Config, device: str) -> int:
    from numerics.masking import sweep

    if args.resume or args.until_converged:
        raise UsageError("--resume and --until-converged continue a batched run's checkpoint; a run as tasks "
                         "(--cluster-workers/--scheduler) resumes with --resume-tasks")
    with execution.engine_from_args(args) as engine:
        try:
            traj, exp = sweep.run(cfg, engine, store=execution.Store(args.exec_store), resume=args.exec_resume,
                                  device=device, expected_steps=args.expected_steps, progress=not args.no_progress)
        except execution.TasksFailed as exc:
            print(f"maskverify train: {exc}", file=sys.stderr)
            return 1
    summary = fig3a.summarise(traj, float(nw.lambda0(traj_data(cfg))), exp)
    summary["device"] = device
    args.out.mkdir(parents=True, exist_ok=True)
    paths = fig3a.save(traj, summary, args.out, exp)
    _print_summary(summary)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def traj_data(cfg: tr.Config):
    """The inputs X of ``cfg`` (float64, numpy), for lambda_0."""
    return tr.problem(replace(cfg, dtype="float64")).X.double().cpu().numpy()


def _run_fedavg(args, cfg: tr.Config, device: str) -> int:
    from numerics.masking import fedavg

    if args.resume:
        print("maskverify train: --resume is for centralised runs; a FedAvg run is short and starts over",
              file=sys.stderr)
        return 2
    try:
        result = fedavg.run_fedavg(cfg, workers=args.workers, local_steps=args.local_steps, backend=args.backend,
                                   device=device, progress=not args.no_progress)
    except ValueError as err:
        print(f"maskverify train: {err}", file=sys.stderr)
        return 2
    paths = fedavg.save_fig3b(result, args.out)
    print(fedavg.describe(result))
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0
