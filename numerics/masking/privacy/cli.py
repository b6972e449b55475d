"""``maskverify privacy``: Section 6's accuracy and membership-inference experiments.

``maskverify privacy [accuracy|attack|dp|all]`` runs the sub-experiment(s) (``experiment``)
on scikit-learn's digits, or on CIFAR-10 with ``--data DIR``, writes NAME.json, NAME.csv and
the figures (PNG, PDF) into ``--out`` (``figures``), and prints each claim with its verdict
and interval.  With the execution layer's options (``--workers``, ``--scheduler``, ``--store``)
the runs are tasks on Dask (``tasks``); ``--resume`` then also skips the tasks stored.
``FIGURES`` are the pack's figure producers (``numerics.core.pack.Figure``).
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from numerics.core import execution
from numerics.core.cliargs import UsageError, count, output, real
from numerics.core.pack import Figure

from . import experiment as ex
from .models import MODELS

DESCRIPTION = (
    "Section 6 of the masking paper: train with the Gaussian input mask (each training input x "
    "multiplied entrywise by c ~ N(1, kappa^2 I), fresh per sample and step, training only) and measure "
    "test accuracy (accuracy: Fig. 4), membership inference on the target model (attack: ML-Leaks "
    "adversary 1 with a shadow model, and a loss-threshold attack; Figs. 5-7) and the privacy-utility "
    "trade-off against DP-SGD through Opacus at matched accuracy (dp: Figs. 9-10). Seeds are the "
    "replicates; every claim is decided by a test over seeds (paired differences, Page's trend test "
    "and slope intervals) and printed with its 95% interval.")
EPILOG = (
    "Data: scikit-learn's bundled digits (default, no download) or, with --data DIR, the CIFAR-10 python "
    "batches (data_batch_1..5, test_batch). Defaults on digits are shortened to run in minutes; on CIFAR-10 "
    "they are the authors' (80 epochs for accuracy, 50 for the attacks) with 3 seeds. Interrupted? Run the "
    "same command with --resume: finished runs are kept in OUT/runs.json. With --workers N or --scheduler "
    "ADDRESS every run (one model for accuracy; a target and its shadow for the attacks, per model, kappa or "
    "noise multiplier and seed) is a task on Dask, stored in --store as it finishes (--resume also skips "
    "those); the same numbers serially (--workers 0), on a local cluster or a remote one. Without them the "
    "runs go one after another in this process, with torch's threads (--threads).")


def add_subcommand(sub) -> None:
    """Register ``maskverify privacy`` on the CLI's subparsers."""
    p = sub.add_parser("privacy", help="accuracy and membership inference under Gaussian input masks (Figs. 4-7, 9-10)",
                       description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("experiment", nargs="?", choices=ex.EXPERIMENTS + ("all",), default="all",
                   help="which sub-experiment (default all)")
    p.add_argument("--kappa", type=real(0.0), nargs="+", metavar="K",
                   help="mask standard deviations, 0 included (default: accuracy 0 0.2 0.5 0.7 1 1.25; "
                        "attack 0 0.5 1.2 1.8; dp also 3 5)")
    p.add_argument("--noise", type=real(0.0, open_lo=True), nargs="+", metavar="SIGMA",
                   help="DP-SGD noise multipliers (dp; default 0.5 1 2)")
    p.add_argument("--seeds", type=count(2), help="seeds, the replicates of the tests (default 3)")
    p.add_argument("--epochs", type=count(1), help="training epochs (default on digits: accuracy 20, attack 30, "
                                                   "dp 15; on CIFAR-10: 80, 50, 50)")
    p.add_argument("--model", choices=MODELS, nargs="+",
                   help="networks (default: mlp cnn; dp: cnn improved)")
    p.add_argument("--data", type=Path, metavar="DIR", help="CIFAR-10 python batches (default: digits)")
    p.add_argument("--data-seed", type=count(0), default=0, help="seed of the data split (default 0)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: cuda if available, else cpu (default auto)")
    p.add_argument("--out", type=output("dir"), default="results/privacy", help="output folder (default results/privacy)")
    p.add_argument("--resume", action="store_true", help="continue the runs in OUT/runs.json")
    p.add_argument("--threads", type=count(0), default=0, metavar="N",
                   help="CPU threads for torch (default 0: torch's choice)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    execution.add_arguments(p, store="results/tasks/privacy", resume_flag=None)
    p.set_defaults(func=run)


def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available (torch.cuda.is_available() is False)")
    return name


def settings(args, experiment: str) -> ex.Settings:
    d = ex.defaults(experiment, cifar=args.data is not None)
    return ex.Settings(experiment, tuple(args.model or d["models"]), tuple(args.kappa or d["kappas"]),
                       args.seeds or d["seeds"], args.epochs or d["epochs"],
                       tuple(args.noise or d["noise"]) if experiment == "dp" else (),
                       None if args.data is None else str(args.data.resolve()), args.data_seed)


def describe(summary: dict) -> str:
    return "\n".join(f"  {c['id']}: {c['verdict'].upper()}: {c['claim']}\n      {c['detail']}"
                     for c in summary["claims"])


def run(args) -> int:
    import torch

    from . import figures

    device = _device(args.device)
    wanted = ex.EXPERIMENTS if args.experiment == "all" else (args.experiment,)
    try:
        configs = [settings(args, e) for e in wanted]
        if args.data is not None:
            from . import data
            data.cifar10(args.data)               # refuse missing or malformed data before any training
    except ValueError as err:
        raise UsageError(str(err)) from None
    if args.threads:
        torch.set_num_threads(args.threads)
    engine = execution.engine_from_args(args) if execution.chosen(args) else None
    with engine or contextlib.nullcontext():
        for i, cfg in enumerate(configs):
            try:
                runs = ex.run(cfg, args.out, resume=args.resume or i > 0, device=device, progress=not args.no_progress,
                              engine=engine, task_store=execution.Store(args.exec_store), task_resume=args.resume)
            except ValueError as err:
                raise UsageError(str(err)) from None
            except execution.TasksFailed as exc:
                print(f"maskverify privacy: {exc}", file=sys.stderr)
                return 1
            summary, paths = figures.save(cfg, runs, args.out)
            print(f"{cfg.experiment} ({cfg.data or 'digits'}, {cfg.seeds} seeds, {cfg.epochs} epochs):")
            print(describe(summary))
            print("  wrote " + ", ".join(str(p) for p in paths))
    sys.stdout.flush()
    return 0


#: the reduced runs of the report's quick figures (digits)
QUICK = {"accuracy": dict(seeds=2, epochs=5), "attack": dict(seeds=2, epochs=10), "dp": dict(seeds=2, epochs=5)}


def _figure(experiment: str, stems: tuple[str, ...]):
    def produce(out_dir: Path, quick: bool, progress: bool, seed: int = 0, records=None) -> list[Path]:
        """``records`` (``execution.Records``, from a report): every run is a task of the execution
        layer, taken from the stored records where they hold it (its own run store is then a
        throwaway folder, so that every run goes through them)."""
        import tempfile

        from . import figures

        d = ex.defaults(experiment, cifar=False) | (QUICK[experiment] if quick else {})
        cfg = ex.Settings(experiment, d["models"], d["kappas"], d["seeds"], d["epochs"], d["noise"])
        out = Path(out_dir) / "privacy"
        if records is None:
            runs = ex.run(cfg, out, resume=True, progress=progress)
        else:
            out.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory() as scratch:
                runs = ex.run(cfg, Path(scratch), progress=progress, engine=records.engine,
                              task_store=records.store, task_resume=records.resume)
        paths = figures.save(cfg, runs, out)[1]
        return [p for stem in stems for p in paths if p.stem == stem]
    return produce


FIGURES = (
    Figure("fig4", "Fig. 4: test accuracy against the mask's κ for the MLP and the standard CNN (digits, mean "
                   "over seeds, 95% intervals), with the verdicts of emp.fig4.* (paired differences to κ = 0, "
                   "Page's trend test beyond κ = 0.2).", _figure("accuracy", ("fig4",)), records=True),
    Figure("fig5", "Fig. 5: membership-inference AUC on the target (ML-Leaks adversary 1 with a masked shadow; "
                   "loss-threshold attack as second opinion) against κ, MLP and CNN (digits); the paper's CIFAR-10 "
                   "CNN AUCs dashed for reference.", _figure("attack", ("fig5",)), records=True),
    Figure("fig6_7", "Figs. 6-7: ML-Leaks attack precision and recall on the MLP and CNN targets against κ (digits).",
           _figure("attack", ("fig6_7",)), records=True),
    Figure("fig9", "Fig. 9: privacy-utility of the standard CNN: attack precision and recall against test "
                   "accuracy, Gaussian mask (κ) and DP-SGD (Opacus, noise multiplier σ, clip 1, δ = 1e-5), with "
                   "the gap at matched accuracy (digits).", _figure("dp", ("fig9",)), records=True),
    Figure("fig10", "Fig. 10: the same for the improved CNN (BatchNorm; GroupNorm under DP-SGD), and the claim "
                    "that its mask curve stays closer to DP-SGD than the standard CNN's (digits).",
           _figure("dp", ("fig10",)), records=True),
)
