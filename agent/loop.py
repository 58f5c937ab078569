"""The optimize loop: Optuna asks, templates render, CPU prepare workers guard and compile, Ray
verifier actors judge, Optuna is told (the stages: agent.pipeline).

Completed trials live in the study storage the moment they are told, so a killed run loses at most
the candidates in flight; the same command resumes the study and finishes it at `trials` completed.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import search
import tasks
from agent.errors import OptimizeInterrupted, PlanError, UsageError
from agent.pipeline import Pending, Pipeline, _summary
from agent.plan import plan as make_plan
from agent.progress import Progress
from kernel_zoo._home import kzoo_home, user_zoo
from templates import params_of
from verifier.worker import VerifyRequest, detect_mode

if TYPE_CHECKING:
    from agent.llm import LLMSettings


@dataclass
class OptimizeOptions:
    task: str
    trials: int = 16
    time_budget: float | None = None
    dtype: str | None = None
    workers: int | None = None
    address: str | None = None
    storage: str | None = None
    zoo: str | None = None
    promote: bool = True
    timeout_s: float = 600.0
    seed: int | None = None
    quiet: bool = False
    local_gpus: int | None = None  # GPU resources to declare to a local Ray instance (tests)
    template: str | None = None  # one of the plan's templates (default: its first, Triton)
    # --- used by `kzoo sweep` (agent/sweep.py) ---
    # params tried first (once per study): a sweep continues from the zoo's current kernel
    warm_start_params: dict[str, Any] | None = None
    # promote only a winner whose re-timed speedup over the best baseline exceeds this (and 1.0)
    promote_min_speedup: float | None = None
    # promote only a winner no slower at any shape than this many ms (by shape, json.dumps of the
    # shape dict with sorted keys): a sweep's entry's fresh times, so a better geometric mean
    # cannot hide a shape that got slower
    promote_max_ms: dict[str, float] | None = None
    # tune one shape bucket's kernel: verify and time at these task shapes only (on a GPU; the
    # interpreter keeps its small shapes), study and promotion under `bucket`
    bucket: str | None = None
    shapes: tuple[dict[str, Any], ...] | None = None
    # --- end sweep options ---
    # `--start`: params tried first (once per study); names left out take the default's choices
    start_params: dict[str, Any] | None = None
    llm: LLMSettings | None = None  # the LLM proposer's rounds after the search (off when None)
    prepare_workers: int | None = None  # CPU workers ahead of the GPUs; 0: none (None: default)


@dataclass
class OptimizeResult:
    payload: dict[str, Any]
    table: list[dict[str, Any]] = field(default_factory=list)
    # the winner's re-timed verdict summary, as a promotion records it (None without a winner)
    best_verdict: dict[str, Any] | None = None


def slower_shapes(verdict: dict[str, Any], max_ms: dict[str, float]) -> list[dict[str, Any]]:
    """The shapes at which a verdict's time exceeds `max_ms` (keyed by the shape's sorted JSON);
    a shape without a time or a limit is not counted."""
    import json

    out = []
    for row in verdict.get("shapes") or []:
        limit = max_ms.get(json.dumps(row.get("shape"), sort_keys=True))
        if limit is not None and row.get("ms") is not None and row["ms"] > limit:
            out.append({"shape": row["shape"], "ms": row["ms"], "limit_ms": limit})
    return out


def _start_params(template, plan, given: dict[str, Any]) -> dict[str, Any]:
    """`--start`'s params over the config the search would start from; a usage error naming the
    problem when they are not a valid point of the template's space."""
    from templates import InvalidConfig

    names = {p.name for p in template.space}
    unknown = sorted(set(given) - names)
    if unknown:
        raise UsageError(f"--start: template {template.name} has no parameter "
                         f"{', '.join(unknown)}; its parameters: {', '.join(sorted(names))}")
    full = {**params_of(template.default_for(plan.shape_bucket)), **given}
    try:
        cfg = template.config(full)
    except InvalidConfig as exc:
        raise UsageError(f"--start: {exc}") from None
    problems = template.violations(cfg)
    if problems:
        raise UsageError(f"--start: template {template.name} refuses this config: "
                         + "; ".join(problems))
    return params_of(cfg)


class _CtrlC:
    """Ctrl-C while the search runs. The handler remembers it, and the loop checks after every
    step (at least once a second) and raises KeyboardInterrupt there, at a point where no library
    is in the middle of its work. While `deferred` is off (outside the search loop: the LLM
    stage, the winner's re-timing), and for a second Ctrl-C always, the handler also raises it at
    once, as Python's own handler does.
    Why not always at once: an exception raised wherever the signal lands leaves libraries half
    done. CI runs of tests/test_scale.py saw a driver finish all 40 trials after one SIGINT (a
    Cython callback swallowed it, ray-project/ray#7734), a traceback printed from a weakref
    callback it landed in, and then the interrupted run's own cleanup fail on "database is
    locked", SQLite's lock left held by a connection whose release the interrupt had cut short.
    Installed only in the main thread and only over Python's default handler (a SIGINT the parent
    made the process ignore stays ignored). Where an immediate interrupt lands in a callback Python
    cannot raise from (a weakref's, a finalizer's), Python would print it as "Exception ignored"
    with a traceback; while installed, the handler's unraisable hook drops that one report (the
    interrupt is remembered and raised again by `check`) and passes every other on."""

    def __init__(self) -> None:
        self.seen = False
        self.deferred = False
        self._previous = None
        self._previous_hook = None

    def _handle(self, signum, frame) -> None:
        again = self.seen
        self.seen = True
        if again or not self.deferred:
            raise KeyboardInterrupt

    def _unraisable(self, report) -> None:
        if self.seen and isinstance(report.exc_value, KeyboardInterrupt):
            return
        (self._previous_hook or sys.__unraisablehook__)(report)

    def install(self) -> None:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._previous_hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
            sys.unraisablehook = self._previous_hook
            self._previous_hook = None

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt


def _best_line(best) -> str | None:
    """The best accepted trial so far, in a few words (None: none yet)."""
    if best is None:
        return None
    verdict = best.verdict or {}
    speedup = verdict.get("speedup_vs_best_baseline")
    timing = (f", {speedup:.2f}x the faster of eager and torch.compile" if speedup is not None
              else " (correct; untimed in the interpreter)")
    return f"trial {best.number}{timing}"


def optimize(opts: OptimizeOptions) -> OptimizeResult:
    from verifier.environment import device_label, environment

    task = tasks.load(opts.task)
    dtype = opts.dtype or task.dtypes[0]
    if dtype not in task.dtypes:
        raise tasks.TaskError(
            f"{task.path}: dtype {dtype} is not among the task's dtypes {list(task.dtypes)} "
            "(KZOO['dtypes'])."
        )
    try:
        plan = make_plan(task)
    except PlanError as exc:
        if opts.llm is None:
            raise
        from agent.llm.proposer import optimize_llm_only  # no template covers it: the LLM alone

        return optimize_llm_only(opts, task, dtype, str(exc))
    if opts.bucket is not None:  # a bucket's kernel: its default and its promotion's bucket
        plan = dataclasses.replace(plan, shape_bucket=opts.bucket)
    template = plan.template_object(opts.template)
    problem = _context_problem(template, plan)
    if problem is not None:
        message = (f"{task.path}: the plan ({plan.describe()}) hands template {template.name} a "
                   f"render context it refuses: {problem}. That is a kernel-zoo planner bug; "
                   "`kzoo analyze` shows the plan, and with --llm MODEL an LLM writes the kernel "
                   "instead.")
        if opts.llm is None:
            raise PlanError(message)
        from agent.llm.proposer import optimize_llm_only

        return optimize_llm_only(opts, task, dtype, message)
    mode = detect_mode()
    if template.needs_gpu and mode == "interpreter":
        first = plan.template_object(None).name
        raise UsageError(f"--template {template.name}: CUDA C++, whose candidates run only on a "
                         "GPU, and this machine has none (Triton's interpreter runs Triton "
                         f"templates alone); leave out --template to search {first}, or run on "
                         "a GPU machine")
    device = device_label()
    storage = opts.storage or search.default_storage()
    name = search.study_name(task.name, task.sha256, template.name, dtype, device,
                             space=template.space, bucket=opts.bucket)
    study = search.open_study(name, storage, seed=opts.seed)
    reclaimed = search.reclaim_stale_trials(study)
    fresh_study = not study.trials
    if opts.start_params is not None:
        study.enqueue_trial(_start_params(template, plan, opts.start_params), skip_if_exists=True)
    if opts.warm_start_params is not None:
        study.enqueue_trial(dict(opts.warm_start_params), skip_if_exists=True)
    if fresh_study:
        # start from the hand-picked heuristic (for the plan's shape bucket, where it has one),
        # then the template's seeds
        for start in template.starts_for(plan.shape_bucket):
            study.enqueue_trial(params_of(start))

    from agent.cluster import PreparePool, VerifierPool, init_ray, local_gpu_count

    cache_dir = str(kzoo_home() / "candidates")
    # Default: one actor per GPU of the cluster (each takes one); two in the interpreter.
    planned_workers = opts.workers or (max(1, local_gpu_count(mode, opts.local_gpus))
                                       if mode == "gpu" else 2)
    planned_prepare = _prepare_workers(opts.prepare_workers, mode, planned_workers)
    ray_info = init_ray(opts.address, mode, planned_workers + planned_prepare, opts.local_gpus)
    default_workers = max(1, ray_info["gpus"]) if mode == "gpu" else 2
    workers = opts.workers or default_workers
    pool = VerifierPool(workers, mode, cache_dir, opts.timeout_s,
                        gpus_per_actor=1 if ray_info["gpus"] else 0)
    preparers = None
    # Each takes a CPU; on a cluster short of free CPUs, fewer (0: the verifiers do it all).
    prepare_workers = max(0, min(_prepare_workers(opts.prepare_workers, mode, workers),
                                 ray_info["cpus"] - workers))
    try:
        if prepare_workers:
            preparers = PreparePool(prepare_workers, pool, mode, cache_dir, opts.timeout_s)
    except BaseException:
        pool.shutdown()
        raise
    progress = Progress(opts.trials, quiet=opts.quiet)
    progress.note(
        f"{task.name} {dtype} on {device} ({mode}); study {name!r} in {storage}; {workers} worker(s)"
        + (f", {prepare_workers} prepare worker(s)" if prepare_workers else ", no prepare stage")
        + (f"; {reclaimed} interrupted trial(s) marked failed" if reclaimed else "")
    )
    started = time.monotonic()
    pipe = Pipeline(
        study=study, template=template, plan=plan, task=task, dtype=dtype, mode=mode,
        verifiers=pool, preparers=preparers,
        max_pruned=search.pruned_budget(template, opts.trials), shapes=opts.shapes,
        on_told=lambda value, verdict: progress.update(search.count_completed(study), value,
                                                       verdict),
    )

    ctrl_c = _CtrlC()
    try:
        ctrl_c.install()
        done = search.count_completed(study)
        if done >= opts.trials:
            progress.note(f"the study already holds {done} completed trial(s), as many as "
                          f"--trials {opts.trials} asks: no new trials (raise --trials to search "
                          "further)")
        progress.update(done, None, None)
        ctrl_c.deferred = True  # the loop below checks at least once a second
        # --time-budget counts from when the first verifier worker is up (Ray takes seconds to
        # start them), and the trials asked but not yet taken are dropped only once one of this
        # run's has completed: a short budget used to end with no trial at all
        budget_from = None
        over_time = False
        done_before = done
        while True:
            if opts.time_budget is not None and budget_from is None and any(
                    pool.is_up(slot) for slot in range(workers)):
                budget_from = time.monotonic()
            over_time = (budget_from is not None
                         and time.monotonic() - budget_from > opts.time_budget)
            if over_time and done > done_before:
                pipe.drop_unstarted("the time budget ran out before a worker took it")
            # Ask ahead: enough to keep every prepare worker and GPU slot fed, never past --trials.
            while not over_time and min(opts.trials - done, pipe.depth) > pipe.outstanding:
                pipe.ask_one()
                done = search.count_completed(study)
                ctrl_c.check()
            if not pipe.outstanding:
                break  # done, or out of time with nothing left running
            pipe.step(wait_s=1.0)
            ctrl_c.check()
            done = search.count_completed(study)
        ctrl_c.check()
        ctrl_c.deferred = False  # no checks from here on: a Ctrl-C interrupts at once
        llm = None
        if opts.llm is not None:  # LLM proposer (agent/llm): its rounds reuse this pool
            from agent.llm.proposer import run_llm_stage

            llm = run_llm_stage(
                opts.llm, task=task, plan=plan, dtype=dtype, mode=mode, device=device, pool=pool,
                storage=storage, trials=opts.trials, seed=opts.seed, progress=progress,
                study=study, template=template,
            )
        throughput = pool.throughput()
        throughput["prepare"] = pipe.prepare_stats()
        best = search.best_accepted(study)
        if llm is not None and llm.beats(best):  # strictly better: on a tie the search keeps it
            template, best = llm.best.template, llm.best.record
        promoted, best_out, best_verdict, slower = None, None, None, []
        run_env = None  # read once where a promotion records it, then reused for the payload
        if best is not None:
            best_verdict = best.verdict
            if mode == "gpu":
                # Re-time the winner with fresh, interleaved baselines before anything is claimed.
                cfg = template.config(best.params)
                source = template.render(cfg, **plan.context)
                request = VerifyRequest(str(task.path), task.source, source, dtype,
                                        refresh_baselines=True, shapes=opts.shapes)
                best_verdict = _summary(_verify_now(pool, request))
                bar = max(1.0, opts.promote_min_speedup or 0.0)
                faster = (best_verdict.get("speedup_vs_best_baseline") or 0.0) > bar
                slower = slower_shapes(best_verdict, opts.promote_max_ms or {})
                if best_verdict.get("accepted") and faster and not slower and opts.promote:
                    zoo_dir = Path(opts.zoo) if opts.zoo else user_zoo()
                    run_env = environment()
                    promoted = _promote(task, plan, template, cfg, source, dtype, best_verdict,
                                        run_env, zoo_dir)
            best_out = {
                "template": template.name,
                "params": best.params,
                "trial": best.number,
                "correct": bool(best_verdict.get("accepted")),
                "reasons": best_verdict.get("reasons", []),
                "ms": best_verdict.get("ms"),
                "speedup_vs_eager": best_verdict.get("speedup_vs_eager"),
                "speedup_vs_compile": best_verdict.get("speedup_vs_compile"),
                "speedup_vs_best_baseline": best_verdict.get("speedup_vs_best_baseline"),
                "roofline_fraction": best_verdict.get("roofline_fraction"),
                # the GPU the verifier timed it on (None in the interpreter)
                "gpu": best_verdict.get("device"),
                "shapes": best_verdict.get("shapes", []),
            }
    except KeyboardInterrupt as interrupt:
        try:
            pipe.fail_all("the run was interrupted")
        except Exception as exc:  # noqa: BLE001 - the run is ending; its asked trials stay RUNNING
            progress.note(f"could not mark the interrupted run's unfinished trials failed "
                          f"({type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}); the next "
                          "run on this study reclaims them")
        so_far = search.best_accepted(study)
        completed = search.count_completed(study)
        payload = {
            "interrupted": True, "task": str(task.path), "op": plan.op, "dtype": dtype,
            "device": device, "environment": environment(), "mode": mode, "study": name,
            "storage": storage,
            "trials": completed, "new_trials": pipe.new_trials,
            "best": None if so_far is None else {
                "template": template.name, "params": so_far.params, "trial": so_far.number,
                "score": so_far.value, "verdict": _summary(so_far.verdict or {})},
            "promoted": None,
        }
        raise OptimizeInterrupted(name, storage, completed, _best_line(so_far),
                                  payload) from interrupt
    finally:
        ctrl_c.restore()
        progress.close()
        pool.shutdown()
        if preparers:
            preparers.shutdown()

    payload = {
        "task": str(task.path),
        "op": plan.op,
        "dtype": dtype,
        "device": device,
        # this process's GPU, driver, CUDA, torch, triton, Python and the date: what a result's
        # numbers were obtained with (a promoted entry's manifest records the same)
        "environment": run_env or environment(),
        "mode": mode,
        "study": name,
        "storage": storage,
        "ray": ray_info,
        "trials": search.count_completed(study),
        "new_trials": pipe.new_trials,
        "pruned_by_constraints": pipe.pruned,
        "duplicates": pipe.duplicates,  # asked again, told the verdict of the same config
        "elapsed_s": round(time.monotonic() - started, 2),
        # whether --time-budget ended the search (trials asked and not yet taken were dropped)
        "time_budget_ran_out": over_time,
        "worker_restarts": pool.restarts,
        "throughput": throughput,
        "best": best_out,
        "promoted": promoted,
        # shapes where the winner was slower than `promote_max_ms` allows: why it was not promoted
        "slower_than_limit": slower,
        "llm": llm.report if llm is not None else None,
    }
    return OptimizeResult(payload, _table(study), best_verdict)


def _context_problem(template, plan) -> str | None:
    """Why the template refuses the plan's render context, or None: checked once, rendering the
    default config, before a study or a Ray instance starts (a refusal inside the search would
    end it with a traceback)."""
    from templates import InvalidConfig

    try:
        template.render(template.default, **plan.context)
    except InvalidConfig as exc:
        return str(exc)
    return None


def _prepare_workers(requested: int | None, mode: str, verifier_workers: int) -> int:
    """Prepare workers asked for, else the default: two per verifier actor on a GPU (compiling a
    candidate takes about as long as verifying one), one in the interpreter (guards and an import
    are quick next to interpreted kernels)."""
    if requested is not None:
        return requested
    return 2 * verifier_workers if mode == "gpu" else 1


def _verify_now(pool, request: VerifyRequest) -> dict:
    """Verify one request on the pool's first free actor and wait for it."""
    while not pool.free_slots:
        pool.collect(wait_s=1.0)
    pool.submit(pool.free_slots[0], request, Pending(None, {}))
    while True:
        finished = pool.collect(wait_s=1.0)
        if finished:
            return finished[0][1]


def _promote(task, plan, template, cfg, source, dtype, verdict, env, zoo_dir: Path,
             also: tuple = ()) -> dict:
    """Promote one verified kernel for `plan`'s shape bucket; `also`, more (plan, cfg, source,
    verdict) of the same op, template and dtype for other buckets (bench/tune_buckets.py's pinned
    borrowers), which land in the same new version."""
    from kernel_zoo.store import promote_many

    _carry_shipped_entry(plan.op, Path(zoo_dir))
    kernels = [(s, {
        "arch": env["arch"], "dtype": dtype, "shape_bucket": p.shape_bucket,
        "template": template.name, "params": params_of(c),
        "task": {"name": task.name, "sha256": task.sha256},
        "device": env["gpu"], "verdict": v, "environment": env,
    }) for p, c, s, v in ((plan, cfg, source, verdict), *also)]
    return promote_many(plan.op, kernels, zoo_dir=zoo_dir)


def _carry_shipped_entry(op: str, zoo_dir: Path) -> None:
    """Before the first promotion of `op` into the user zoo, import the entry the layers below it
    serve (the shipped one), so the new version carries its other configs. Dispatch reads only the
    newest version of the first layer that serves a call, so a user version holding one config
    would otherwise hide the shipped configs of the op's other buckets and dtypes."""
    from kernel_zoo import store

    if zoo_dir.resolve() != user_zoo().resolve() or store.newest_entries(op, [zoo_dir]):
        return
    for entry in store.newest_entries(op):  # layer order: the user zoo (empty here), then shipped
        if entry.zoo.resolve() != zoo_dir.resolve():
            store.import_entry(entry.manifest, store.read_entry_files(entry.path, entry.manifest),
                               zoo_dir=zoo_dir, source=str(entry.path))
            return


def _table(study) -> list[dict[str, Any]]:
    rows = []
    for r in search.completed_trials(study):
        v = r.verdict or {}
        rows.append({
            "trial": r.number, "score": r.value, "accepted": bool(v.get("accepted")),
            "stage": v.get("stage"), "ms": v.get("ms"),
            "speedup_vs_eager": v.get("speedup_vs_eager"),
            "speedup_vs_compile": v.get("speedup_vs_compile"),
            "roofline_fraction": v.get("roofline_fraction"),
            "reason": (v.get("reasons") or [""])[0], "params": r.params,
        })
    rows.sort(key=lambda row: (-(row["score"] or 0.0), row["trial"]))
    return rows
