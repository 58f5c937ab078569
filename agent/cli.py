"""`kzoo`: optimize a task, verify a candidate, inspect the zoo.

Exit codes: 0 success (verify: accepted); 1 a result that is not a success (verify: rejected;
optimize: no correct candidate); 2 a usage error (bad flags, a task file that cannot be used);
`sweep` also exits 3 when it found regressions (agent/sweep_cli.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import kernel_zoo
from agent.argtypes import non_negative_int, positive_float, positive_int, sampler_seed
from agent.jsonout import (OutputError, check_json_target, error_payload, forget_errors,
                           say_error, stdout_for_json, write_json)

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    from agent.llm.cli import add_llm_flags, add_runs_parser
    from agent.zoo_cli import add_zoo_parser

    parser = argparse.ArgumentParser(
        prog="kzoo",
        description="Search Triton kernel templates for a PyTorch op, verify candidates against the "
        "PyTorch reference, and keep the winners in a versioned kernel zoo. Runs on the GPU when "
        "there is one, else in Triton's CPU interpreter (correctness only, never timed).",
    )
    parser.add_argument("--version", action="version", version=f"kzoo {kernel_zoo.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    opt = sub.add_parser(
        "optimize", help="search a template space for a task's op and promote the winner",
        description="Run an Optuna search over the template that covers TASK, verifying every "
        "candidate in Ray verifier actors. The study is stored (SQLite under $KZOO_HOME by "
        "default) and resumed when the same command runs again. On a GPU, a winner that is "
        "correct and faster than the best baseline is promoted to the zoo.",
    )
    opt.add_argument("task", help="KernelBench-format task file (e.g. tasks/softmax.py)")
    opt.add_argument("--trials", type=positive_int, default=16,
                     help="completed trials the study should hold when done (default 16); "
                     "a rerun continues towards this count")
    opt.add_argument("--time-budget", type=positive_float, metavar="SECONDS",
                     help="stop asking for new trials this many seconds after the first worker "
                     "is up; running trials finish, and those no worker has taken are dropped "
                     "once one trial of the run has completed")
    opt.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                     help="dtype to optimize for (default: the task's first dtype)")
    opt.add_argument("--workers", type=positive_int,
                     help="verifier actors (default: one per GPU; 2 in the interpreter)")
    opt.add_argument("--prepare-workers", type=non_negative_int, metavar="N",
                     help="CPU workers that guard, import and compile the next candidates while "
                     "the verifier actors time the current ones (default: 2 per verifier actor on "
                     "a GPU, 1 in the interpreter; 0: none, the verifier actors do it themselves)")
    opt.add_argument("--address", metavar="RAY_ADDRESS",
                     help="join an existing Ray cluster ('auto' or ray://host:10001) instead of "
                     "starting a local instance")
    opt.add_argument("--storage", metavar="URL",
                     help="Optuna storage URL (default sqlite:///$KZOO_HOME/studies.db; "
                     "postgresql://... to share studies)")
    opt.add_argument("--zoo", metavar="DIR",
                     help="zoo folder to promote into (default $KZOO_HOME/zoo)")
    opt.add_argument("--json", metavar="OUT", help="write the result object to OUT ('-': stdout); "
                     "an error, as {error, exit_code, command}")
    opt.add_argument("--no-promote", action="store_true", help="never promote to the zoo")
    opt.add_argument("--timeout", type=positive_float, default=600.0, metavar="SECONDS",
                     help="per-candidate limit before its worker is killed (default 600)")
    opt.add_argument("--seed", type=sampler_seed,
                     help="sampler seed (0 to 2**32 - 1), for reproducible searches")
    opt.add_argument("--template", metavar="NAME",
                     help="search this template instead of the plan's first (e.g. a CUDA C++ "
                     "one, softmax_cuda, which needs a GPU); `kzoo optimize` names the choices "
                     "when it is wrong")
    opt.add_argument("--start", metavar="PARAMS", type=_params_arg,
                     help="JSON object of template parameters to try first, e.g. "
                     "'{\"align_rows\": true}' (names left out take the default's choices; "
                     "@FILE reads it from a file, e.g. a zoo manifest's params)")
    add_llm_flags(opt)

    ver = sub.add_parser(
        "verify", help="check one candidate file against a task",
        description="Run a candidate (a Python file defining ModelNew with Model's constructor "
        "signature) in a separate process against TASK at every shape and seed; time it on a GPU. "
        "Exit 0 when accepted, 1 when rejected, 2 on a usage error.",
    )
    ver.add_argument("--task", required=True, help="KernelBench-format task file")
    ver.add_argument("--candidate", required=True, metavar="FILE", help="candidate module file")
    ver.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                     help="dtype to check (default: the task's first dtype)")
    ver.add_argument("--json", metavar="OUT", help="write the full verdict to OUT ('-': stdout); "
                     "an error, as {error, exit_code, command}")
    ver.add_argument("--timeout", type=positive_float, default=600.0, metavar="SECONDS",
                     help="limit before the candidate's process is killed (default 600)")
    ver.add_argument("--no-time", action="store_true", help="check correctness only")

    ana = sub.add_parser(
        "analyze", help="show the captured graph and the plan for task files (no GPU needed)",
        description="Capture each task's Model.forward on meta tensors (no GPU, no real memory) "
        "and print its graph, the fusion groups and their template families, the library calls "
        "kept, what no template covers, the op's bytes and FLOPs and its roofline floor on this "
        "GPU or the one named by --device. Exit 0 when every file is covered, 1 when one is not, "
        "2 on a usage error.",
    )
    ana.add_argument("tasks", nargs="+", metavar="TASK", help="KernelBench-format task files, or "
                     "folders of them (each folder's .py files that define a task)")
    ana.add_argument("--json", metavar="OUT", help="write a list with one object per file to "
                     "OUT ('-': stdout); an error, as {error, exit_code, command}")
    ana.add_argument("--device", metavar="NAME", help="roofline for this GPU (h100, h200, a100) "
                     "instead of this machine's")

    add_zoo_parser(sub)

    from agent.sweep_cli import add_sweep_parser  # `kzoo sweep`: its own module

    add_sweep_parser(sub)

    add_runs_parser(sub)
    return parser


def _params_arg(text: str) -> dict:
    """`--start`'s value: a JSON object, given inline or as @FILE."""
    source = text
    if text.startswith("@"):
        try:
            source = Path(text[1:]).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise argparse.ArgumentTypeError(f"{text[1:]}: not UTF-8 text; give a JSON file")
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read {text[1:]}: {exc.strerror or exc}")
    try:
        value = json.loads(source)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg} at character {exc.pos}); give an "
                                         "object such as '{\"block\": 4096}'") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object of parameters, got "
                                         f"{type(value).__name__}")
    return value


def _error(message: str, code: int = EXIT_USAGE, *, to_json: bool = True) -> int:
    """Say `kzoo: error: MESSAGE` on stderr and return `code`; main() writes the message to the
    command's --json target too, unless to_json is False (the target is what failed)."""
    say_error(message, to_json=to_json)
    return code


def _command_name(args: argparse.Namespace) -> str:
    """The command as typed: "optimize", "zoo show", "runs list"."""
    action = getattr(args, "zoo_command", None) or getattr(args, "runs_command", None)
    return f"{args.command} {action}" if action else args.command


def _error_to_json(args: argparse.Namespace, code: int) -> None:
    """A command that took --json and ended in a `kzoo: error:` line, with no result written,
    writes {"error", "exit_code", "command"} there as well: `kzoo ... --json - | jq` gets JSON,
    not empty input. `zoo` and `runs` take --json as a flag: their JSON goes to stdout."""
    target = getattr(args, "json", None)
    if target is True:
        target = "-"
    payload = error_payload(_command_name(args), code) if target else None
    if payload is None:
        return
    try:
        write_json(target, payload)
    except OutputError as exc:  # the error said first stands; the target failed as well
        say_error(str(exc), to_json=False)


def cmd_optimize(args) -> int:
    from agent.llm.cli import dry_run, llm_settings, print_llm_summary
    from agent.loop import OptimizeOptions, optimize
    from agent.progress import render_table

    if args.llm_dry_run:
        return dry_run(args)
    check_json_target(args.json)
    opts = OptimizeOptions(
        task=args.task, trials=args.trials, time_budget=args.time_budget, dtype=args.dtype,
        workers=args.workers, prepare_workers=args.prepare_workers, address=args.address,
        storage=args.storage, zoo=args.zoo, promote=not args.no_promote, timeout_s=args.timeout,
        seed=args.seed, template=args.template, llm=llm_settings(args), start_params=args.start,
    )
    result = optimize(opts)
    out = result.payload
    to_stdout = args.json == "-"
    report = sys.stderr if to_stdout else sys.stdout
    print(render_table(result.table), file=report)
    best = out["best"]
    if best is None:
        print(f"\nno correct candidate among {out['trials']} trial(s)", file=report)
    else:
        timing = ("" if best["ms"] is None else
                  f": {best['ms']:.4f} ms over the task's shapes, {best['speedup_vs_eager']:.2f}x "
                  f"eager, {best['speedup_vs_compile']:.2f}x torch.compile, "
                  f"{best['roofline_fraction']:.0%} of copy bandwidth")
        print(f"\nbest: trial {best['trial']} of {out['trials']} ({out['mode']}, {out['dtype']}), "
              f"{'verified correct' if best['correct'] else 'NOT correct on re-check'}{timing}",
              file=report)
        if out["mode"] == "interpreter":
            print("interpreter mode: correctness only; run on a GPU to time and promote",
                  file=report)
    if out["time_budget_ran_out"]:
        print(f"--time-budget {args.time_budget:g} s ended the search at {out['trials']} completed "
              f"trial(s) of --trials {args.trials}", file=report)
    _print_throughput(out["throughput"], report)
    if out.get("llm"):
        print_llm_summary(out["llm"], report)
    if out["promoted"]:
        p = out["promoted"]
        print(f"promoted {p['op']} {p['version']} -> {p['path']}", file=report)
    if args.json:
        write_json(args.json, out)
    return EXIT_OK if best and best["correct"] else EXIT_REJECTED


def _print_throughput(tp: dict, report) -> None:
    per_gpu = ("" if tp.get("candidates_per_gpu_minute") is None else
               f", {tp['candidates_per_gpu_minute']:.1f} per GPU-minute")
    print(f"throughput: {tp['verified']} candidates verified in {tp['wall_s']:.0f} s by "
          f"{tp['actors']} worker(s): {tp['candidates_per_minute']:.1f} per minute, "
          f"{tp['candidates_per_actor_minute']:.1f} per worker-minute{per_gpu}, workers idle "
          f"{tp['idle_fraction']:.0%} of the time", file=report)
    prep = tp.get("prepare") or {}
    if prep.get("workers"):
        compiles = tp.get("verifier_compiles") or {}
        print(f"prepare: {prep['prepared']} candidates prepared by {prep['workers']} CPU "
              f"worker(s) in {prep['prepare_s']:.1f} s of their time ({prep['guard_rejected']} "
              f"rejected by the guards before a GPU, {prep['kernels_compiled']} kernels "
              f"compiled), {prep['bypassed']} sent on unprepared; GPU slots waited "
              f"{prep['gpu_slot_waits']} time(s) for a prepared candidate, "
              f"{prep['gpu_slot_wait_s']:.1f} s in all; verifiers compiled "
              f"{compiles.get('compiled', 0)} kernel(s) themselves", file=report)
    else:
        print("prepare: no prepare stage (--prepare-workers 0); the verifier workers guarded and "
              "compiled every candidate themselves", file=report)


def cmd_verify(args) -> int:
    import tasks
    from kernel_zoo._home import kzoo_home
    from verifier.verdict import Verdict
    from verifier.worker import VerifyRequest, detect_mode, verify_in_subprocess

    check_json_target(args.json)
    task = tasks.load(args.task)
    candidate = Path(args.candidate)
    if candidate.is_dir():
        return _error(f"{candidate}: is a folder; pass one candidate .py file (a module with "
                      "ModelNew)")
    if not candidate.is_file():
        return _error(f"{candidate}: no such candidate file")
    dtype = args.dtype or task.dtypes[0]
    if dtype not in task.dtypes:
        return _error(f"dtype {dtype} is not among the task's dtypes {list(task.dtypes)}")
    try:
        source = candidate.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        return _error(f"{candidate}: not UTF-8 text (byte {err.start}); a candidate is a Python "
                      "source file, saved as UTF-8")
    except OSError as err:
        return _error(f"{candidate}: cannot read it ({err.strerror or err})")
    mode = detect_mode()
    request = VerifyRequest(str(task.path), task.source, source, dtype, time=not args.no_time)
    data = verify_in_subprocess(request, mode, str(kzoo_home() / "candidates"), args.timeout)
    verdict = Verdict.from_dict(data)
    if verdict.stage == "task":  # the task's own code failed, before any candidate ran
        return _error("; ".join(r.split("] ", 1)[-1] for r in verdict.reasons)
                      or f"{task.path}: the task cannot be used")
    report = sys.stderr if args.json == "-" else sys.stdout
    status = "ACCEPTED" if verdict.accepted else f"REJECTED at {verdict.stage}"
    print(f"{candidate}: {status} ({mode}, {dtype})", file=report)
    for reason in verdict.reasons:
        print(f"  - {reason}", file=report)
    for s in verdict.shapes:
        line = f"  {s.shape}: {'correct' if s.correct else 'wrong'}"
        if s.ms is not None:
            line += (f", {s.ms:.4f} ms (eager {s.eager_ms:.4f}, compile {s.compile_ms:.4f}), "
                     f"{s.gbps:.0f} GB/s = {s.roofline_fraction:.0%} of copy bandwidth")
        if s.host_us is not None:
            eager = f" (eager {s.eager_host_us:.0f})" if s.eager_host_us is not None else ""
            line += f", host {s.host_us:.0f} us per call{eager}" + (
                ": host-bound" if s.host_bound else "")
        print(line, file=report)
    if args.json:
        write_json(args.json, verdict.to_dict())
    return EXIT_OK if verdict.accepted else EXIT_REJECTED


def _defines_no_task(path: Path) -> bool:
    """Whether a Python file defines none of a task's three names at its top level (a file that
    does not parse is left to the task loader, which says what is wrong with it)."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return False
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return not names & {"Model", "get_inputs", "get_init_inputs"}


def cmd_analyze(args) -> int:
    from agent.analyze import DEVICES, analyze_file, device_key, print_report
    from agent.errors import PlanError
    from tasks import TaskError

    if args.device is not None and device_key(args.device) is None:
        return _error(f"unknown device {args.device!r}; known: {', '.join(DEVICES)}")
    check_json_target(args.json)
    results, failed = [], False
    paths = []
    for given in args.tasks:
        if Path(given).is_dir():  # a folder: its .py files, in name order
            found = sorted(str(p) for p in Path(given).glob("*.py"))
            if not found:
                return _error(f"{given}: a folder with no .py file in it; pass task files, or a "
                              "folder of them")
            paths.extend(found)
        elif Path(given).is_file():
            paths.append(given)
        else:
            return _error(f"{given}: no such task file or folder")
    for path in paths:
        if len(paths) > 1 and _defines_no_task(Path(path)):
            # a glob over a folder of tasks also names its package files (tasks/__init__.py)
            print(f"== {path}\n  skipped: not a task file (defines none of Model, get_inputs, "
                  "get_init_inputs)", file=sys.stderr)
            continue
        try:
            result = analyze_file(path, args.device)
        except Exception as exc:  # noqa: BLE001 - a file that fails: say why, go on
            if isinstance(exc, (TaskError, PlanError)):  # it cannot be captured or planned
                reason = str(exc)
            else:  # a planner bug on this file
                reason = (f"kzoo failed on this file ({type(exc).__name__}: {exc}); that is a "
                          "kernel-zoo bug, please report it with the file")
            result = {"file": path, "covered": False, "groups": [], "library_calls": [],
                      "unmatched": [], "reason": reason, "error": True}
            print(f"== {path}\n  cannot analyze: {reason}", file=sys.stderr)
        else:
            if args.json != "-":
                print_report(result)
        failed |= not result["covered"]
        results.append(result)
    if not results:
        return _error("none of the files given is a task file (each defines none of Model, "
                      "get_inputs, get_init_inputs)")
    if args.json:
        write_json(args.json, results)
    return EXIT_REJECTED if failed else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from agent.errors import (ClusterError, LLMSetupError, OptimizeError, OptimizeInterrupted,
                              PlanError, UsageError)
    from agent.llm.runs import RunNotFound
    from kernel_zoo._home import HomeError
    from search.study import StorageError
    from tasks import TaskError

    # argparse's own usage errors (a bad option value, a missing argument) exited above, through
    # parser.error, before the --json target was known for sure: they get no JSON error object.
    forget_errors()
    try:
        with stdout_for_json(getattr(args, "json", None) == "-"):
            code = _dispatch(parser, args)
    except (TaskError, PlanError, StorageError, LLMSetupError, RunNotFound, OutputError,
            UsageError, HomeError) as exc:
        # an --json target that cannot be written gets no error object: that write would fail too
        code = _error(str(exc), to_json=not (isinstance(exc, OutputError)
                                             and exc.flag == "--json"))
    except (ClusterError, OptimizeError) as exc:  # the run failed, not the command line
        code = _error(str(exc), EXIT_REJECTED)
    except OptimizeInterrupted as stop:
        best = f"best so far: {stop.best}" if stop.best else "no correct candidate yet"
        target = getattr(args, "json", None)
        if target and stop.payload:
            try:
                write_json(target, stop.payload)
            except OutputError as exc:  # the target itself failed: it gets no error object
                say_error(str(exc), to_json=False)
        from agent.cluster import stopped_by  # only here: it costs ~50 ms to import

        word, code = stopped_by()
        if stop.kept is not None:
            print(f"kzoo: {word}; {stop.kept}", file=sys.stderr)
            return code
        print(f"kzoo: {word} after {stop.completed} completed trial(s), kept in study "
              f"{stop.study!r} ({stop.storage}); {best}. Run the same command again to go on.",
              file=sys.stderr)
        return code
    except KeyboardInterrupt:
        from agent.cluster import stopped_by  # only here: it costs ~50 ms to import

        word, code = stopped_by()
        kept = ("; completed trials are kept in the study" if args.command == "optimize" else "")
        print(f"kzoo: {word}{kept}", file=sys.stderr)
        return code
    except BrokenPipeError:
        return _reader_left()
    _error_to_json(args, code)
    return code


EXIT_PIPE = 128 + 13  # as a tool SIGPIPE ends: `kzoo zoo list | head`, the reader left early


def _reader_left() -> int:
    """stdout's reader closed the pipe: no error line (the reader asked for no more), and
    stdout pointed at /dev/null so that the exit's flush of what is buffered raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from kernel_zoo._home import ensure_home

    if args.command in ("optimize", "verify", "sweep"):
        ensure_home()  # studies, candidate files, reports: a bad KZOO_HOME is said up front
    if args.command == "optimize":
        return cmd_optimize(args)
    if args.command == "verify":
        return cmd_verify(args)
    if args.command == "analyze":
        return cmd_analyze(args)
    if args.command == "zoo":
        from agent.zoo_cli import run_zoo

        return run_zoo(args)
    if args.command == "sweep":
        from agent.sweep_cli import run_sweep_command

        return run_sweep_command(args)
    if args.command == "runs":
        from agent.llm.cli import run_runs

        return run_runs(args)
    parser.error(f"unknown command {args.command}")
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
