"""``maskverify fuzz`` on the execution layer: a campaign split into seeded tasks
(``fuzzing.split``), each run by ``task`` on a worker (which finds the campaign through the
registry), by ``numerics.core.execution`` and merged (``fuzzing.merge``).  The
command's glue lives here, in the application, so that the core's campaign runner
(``numerics.core.fuzzing``) imports nothing of the command line."""
from __future__ import annotations

from pathlib import Path

from numerics.core import cliargs, execution, fuzzing, registry


def task(params: dict) -> dict:
    """One task of a split campaign: ``fuzzing.run`` of the campaign ``params["campaign"]`` (a qualified
    id) with ``examples``, ``seed``, ``deep`` and ``database`` from ``params``; ``to_json`` of the
    result.  ``params["task"]``, the task's index, only tells unseeded tasks apart."""
    pack, short = registry.split(params["campaign"])
    return fuzzing.to_json(fuzzing.run(pack.campaign(short), examples=params["examples"], seed=params["seed"],
                       deep=params["deep"], progress=False, database=params["database"]))


def add_task_arguments(parser) -> None:
    """``maskverify fuzz``'s options for a campaign split into tasks: ``--chunk`` and those of
    ``execution.add_arguments``."""
    parser.add_argument("--chunk", metavar="N", type=cliargs.count(1), default=None,
                        help="examples per task (default: the campaign's default count); a campaign of "
                             "more examples is split into tasks of N, task i with seed S+i")
    execution.add_arguments(parser, store="results/tasks/fuzz")


def run_tasks(campaign_id: str, c: fuzzing.Campaign, args) -> fuzzing.Result:
    """``maskverify fuzz``: the campaign ``c`` (qualified id ``campaign_id``) as ``fuzzing.split``'s tasks
    on the engine the options ask for, merged.  One task with no engine option given runs here,
    as ``fuzzing.run`` (with its per-example progress bar, no store)."""
    examples = args.examples or c.examples * (10 if args.deep else 1)
    database = str(Path(fuzzing.DATABASE_DIR).resolve())
    try:
        params = fuzzing.split(campaign_id, examples, args.chunk or c.examples, args.seed, args.deep, database)
    except ValueError as exc:  # more examples or tasks than one run takes
        raise cliargs.UsageError(str(exc)) from None
    if len(params) == 1 and not execution.chosen(args):
        return fuzzing.run(c, examples=examples, seed=args.seed, deep=args.deep, progress=not args.no_progress)
    store = execution.Store(args.exec_store)
    with execution.engine_from_args(args) as engine:
        # the version covers this task, the core's runner and the module defining the campaign's evaluation
        version = "/".join(execution.module_version(f) for f in (task, fuzzing.run, c.evaluate))
        parts = execution.run(task, params, engine, store=store, resume=args.exec_resume, version=version,
                              desc=f"fuzz {campaign_id}", progress=not args.no_progress)
    return fuzzing.merge(parts)
