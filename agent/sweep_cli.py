"""`kzoo sweep`: re-verify, re-time and re-tune the zoo on this device; report with plots.

Exit codes: 0 clean; 3 regressions found (see agent/sweep.py for the rule); 1 failures (a task
file gone, Ray failing, an entry that cannot be read); 2 a usage error. Failures take precedence
over regressions: the sweep's report is then incomplete.

`agent/cli.py` calls `add_sweep_parser(subparsers)` and hands `args.command == "sweep"` to
`run_sweep_command(args)`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any
from agent.argtypes import non_negative_int, positive_float, positive_int, sampler_seed


def _op_list(text: str) -> list[str]:
    ops = [op.strip() for op in text.split(",") if op.strip()]
    if not ops:
        raise argparse.ArgumentTypeError("name at least one op, e.g. --ops softmax")
    return ops


def add_sweep_parser(subparsers: Any) -> None:
    sweep = subparsers.add_parser(
        "sweep", help="re-verify, re-time and re-tune every zoo entry on this device; report",
        description="For each zoo op, dtype and shape bucket served on this device: check the "
        "entry's kernel file against its sha256, re-run it against its task with the verifier "
        "(on a GPU: timed beside eager PyTorch and torch.compile in the same run, a shape "
        "bucket's kernel at its bucket's shapes), compare with what its manifest recorded "
        "(environment and speedups), continue its Optuna study warm-started from the entry's "
        "params (a shape bucket's kernel in a study of its own, at its bucket's shapes), and "
        "promote an improvement as a new version. "
        "Writes report.md, report.html, summary.json and PNG plots to --report. Resumable: "
        "the same command after a kill skips finished steps. In Triton's interpreter (no GPU) "
        "nothing is timed: correctness only. Exit 0 clean, 3 regressions, 1 failures, 2 usage "
        "error.",
    )
    which = sweep.add_mutually_exclusive_group()
    which.add_argument("--ops", type=_op_list, metavar="A,B",
                       help="only these ops (comma-separated)")
    which.add_argument("--all", action="store_true", help="every op in the zoo (the default)")
    sweep.add_argument("--time-budget", type=positive_float, metavar="SECONDS",
                       help="no new work starts after about this long (a tenth, at most 60 s, "
                       "is kept for the last verdicts and the report); a rerun finishes the rest")
    sweep.add_argument("--trials-per-op", type=non_negative_int, default=8, metavar="N",
                       help="new trials per unit's study (default 8; 0: re-verify only)")
    sweep.add_argument("--storage", metavar="URL",
                       help="Optuna storage URL (default sqlite:///$KZOO_HOME/studies.db)")
    sweep.add_argument("--zoo", metavar="DIR",
                       help="sweep this zoo folder only and promote into it (default: the user "
                       "zoo over the shipped one; promotions go to $KZOO_HOME/zoo)")
    sweep.add_argument("--address", metavar="RAY_ADDRESS",
                       help="join an existing Ray cluster instead of starting a local instance")
    sweep.add_argument("--report", metavar="DIR",
                       help="report and state folder (default $KZOO_HOME/sweeps/DATE-DEVICE); "
                       "the same folder resumes the same sweep")
    sweep.add_argument("--json", metavar="OUT",
                       help="write the summary, or the error that stopped the sweep, to OUT as "
                       "JSON ('-': stdout)")
    sweep.add_argument("--regression-threshold", type=positive_float, default=0.9,
                       metavar="T", help="a fresh speedup below T x a baseline, or below T of "
                       "the recorded one, is a regression (default 0.9)")
    sweep.add_argument("--min-improvement", type=positive_float, default=1.02, metavar="X",
                       help="promote only a winner X times faster, relative to the best "
                       "baseline, than the entry it would replace (default 1.02)")
    sweep.add_argument("--history", metavar="FILE",
                       help="sweep history, one JSON line per unit per sweep (default "
                       "$KZOO_HOME/sweeps/history.jsonl)")
    sweep.add_argument("--workers", type=positive_int,
                       help="verifier actors (default: one per GPU; 2 in the interpreter)")
    sweep.add_argument("--timeout", type=positive_float, default=600.0, metavar="SECONDS",
                       help="per-kernel limit before its worker is killed (default 600)")
    sweep.add_argument("--seed", type=sampler_seed, help="sampler seed (0 to 2**32 - 1), for "
                       "reproducible searches")
    sweep.add_argument("--fresh", action="store_true",
                       help="discard the report folder's sweep state and start over")


def run_sweep_command(args: argparse.Namespace) -> int:
    from agent.jsonout import (OutputError, check_json_target, check_output_file,
                               check_output_folder, say_error, write_json)
    from agent.sweep import EXIT_USAGE, SweepInterrupted, SweepOptions, SweepUsageError, run_sweep
    from kernel_zoo.store import ZooError

    try:  # said before the sweep, not after its hours of work
        check_json_target(args.json)
        if args.history is not None:  # a file the sweep appends to
            check_output_file("--history", args.history, "history.jsonl")
        if args.report is not None:  # the report and state folder
            check_output_folder("--report", args.report)
    except OutputError as err:  # --history or --report: said in the --json target too
        say_error(str(err), to_json=err.flag != "--json")
        return EXIT_USAGE
    opts = SweepOptions(
        ops=args.ops, time_budget=args.time_budget, trials_per_op=args.trials_per_op,
        storage=args.storage, zoo=args.zoo, address=args.address, report=args.report,
        history=args.history, workers=args.workers, timeout_s=args.timeout, seed=args.seed,
        regression_threshold=args.regression_threshold, min_improvement=args.min_improvement,
        fresh=args.fresh,
    )
    try:
        result = run_sweep(opts)
    except (SweepUsageError, ZooError) as err:
        say_error(str(err))
        return EXIT_USAGE
    except SweepInterrupted as stop:
        return _interrupted(args, stop.result)
    summary = result.summary
    out = sys.stderr if args.json == "-" else sys.stdout
    state = "complete" if summary["complete"] else f"INCOMPLETE ({summary['incomplete_reason']})"
    print(f"sweep {state}: {len(summary['units'])} unit(s), {len(summary['regressions'])} "
          f"regression(s), {len(summary['failures'])} failure(s), "
          f"{len(summary['promotions'])} promotion(s)", file=out)
    for r in summary["regressions"]:
        print(f"  regression {r['unit']} ({r['version']}): [{r['kind']}] {r['message']}",
              file=out)
    for f in summary["failures"]:
        print(f"  failure {f.get('unit') or f.get('op') or 'sweep'}: {f['message']}", file=out)
    tp = summary.get("throughput")
    if tp:
        print(f"throughput: {tp['verified']} candidates verified in {tp['worker_seconds'] / 60:.1f} "
              f"worker-minutes ({'GPU' if summary['mode'] == 'gpu' else 'interpreter'}): "
              f"{tp['candidates_per_worker_minute']:.1f} per worker-minute, workers idle "
              f"{tp['idle_fraction']:.0%} of the time", file=out)
    print(f"report: {result.report_dir / 'report.md'} (also report.html, summary.json)",
          file=out)
    if args.json:
        try:
            write_json(args.json, summary)
        except OutputError as err:  # checked before the sweep; the folder may have gone since
            say_error(str(err), to_json=False)
            return EXIT_USAGE
    return result.exit_code


def _interrupted(args: argparse.Namespace, result) -> int:
    """A sweep a Ctrl-C (or a SIGTERM) stopped: the summary as far as it got, marked interrupted,
    to --json; one line on what is kept; 130 (143 for a SIGTERM)."""
    from agent.cluster import stopped_by
    from agent.jsonout import OutputError, say_error, write_json

    summary = result.summary
    done = sum(1 for unit in summary["units"] for step in ("verify", "tune") if unit.get(step))
    word, code = stopped_by()
    if args.json:
        try:
            write_json(args.json, {"interrupted": True, **summary})
        except OutputError as err:
            say_error(str(err), to_json=False)
    print(f"kzoo: {word}; {done} of {2 * len(summary['units'])} step(s) done, kept in "
          f"{result.report_dir} (report.md says how far it got). Run the same command again to go "
          "on.", file=sys.stderr)
    return code
