"""The optimize loop: Optuna asks, templates render, Ray verifier actors judge, Optuna is told.

Completed trials live in the study storage the moment they are told, so a killed run loses at most
the candidates in flight; the same command resumes the study and finishes it at `trials` completed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import search
import tasks
from agent.errors import OptimizeError, PlanError
from agent.plan import plan as make_plan
from agent.progress import Progress
from kernel_zoo._home import kzoo_home, user_zoo
from templates import get_template, params_of
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
    # --- end sweep options ---
    llm: LLMSettings | None = None  # the LLM proposer's rounds after the search (off when None)


@dataclass
class Pending:
    trial: Any
    params: dict[str, Any]
    timeout_reason: str | None = None


@dataclass
class OptimizeResult:
    payload: dict[str, Any]
    table: list[dict[str, Any]] = field(default_factory=list)
    # the winner's re-timed verdict summary, as a promotion records it (None without a winner)
    best_verdict: dict[str, Any] | None = None


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
    template = get_template(_template_name(plan, opts.template))
    mode = detect_mode()
    device = device_label()
    storage = opts.storage or search.default_storage()
    name = search.study_name(task.name, task.sha256, template.name, dtype, device)
    study = search.open_study(name, storage, seed=opts.seed)
    reclaimed = search.reclaim_stale_trials(study)
    fresh_study = not study.trials
    if opts.warm_start_params is not None:
        study.enqueue_trial(dict(opts.warm_start_params), skip_if_exists=True)
    if fresh_study:
        study.enqueue_trial(params_of(template.default))  # start from the hand-picked heuristic

    from agent.cluster import VerifierPool, init_ray

    cache_dir = str(kzoo_home() / "candidates")
    ray_info = init_ray(opts.address, mode, opts.workers or 1, opts.local_gpus)
    # Default: one actor per GPU of the cluster (each takes one); two in the interpreter.
    default_workers = max(1, ray_info["gpus"]) if mode == "gpu" else 2
    workers = opts.workers or default_workers
    pool = VerifierPool(workers, mode, cache_dir, opts.timeout_s,
                        gpus_per_actor=1 if ray_info["gpus"] else 0)
    progress = Progress(opts.trials, quiet=opts.quiet)
    progress.note(
        f"{task.name} {dtype} on {device} ({mode}); study {name!r} in {storage}; {workers} worker(s)"
        + (f"; {reclaimed} interrupted trial(s) marked failed" if reclaimed else "")
    )
    started = time.monotonic()
    seen: dict[str, tuple[float, str]] = {
        json.dumps(r.params, sort_keys=True): (r.value or 0.0, json.dumps(r.verdict))
        for r in search.completed_trials(study) if r.verdict
    }

    def tell(trial, params: dict, value: float, verdict: dict) -> None:
        trial.set_user_attr("verdict", json.dumps(verdict))
        study.tell(trial, value)
        seen[json.dumps(params, sort_keys=True)] = (value, json.dumps(verdict))
        progress.update(search.count_completed(study), value, verdict)

    new_trials = pruned = 0
    try:
        done = search.count_completed(study)
        progress.update(done, None, None)
        while True:
            over_time = opts.time_budget is not None and time.monotonic() - started > opts.time_budget
            want = opts.trials - done - len(pool.inflight)
            while want > 0 and pool.free_slots and not over_time:
                trial = study.ask()
                trial.set_user_attr(search.study.DRIVER_ATTR, search.this_driver())
                cfg = search.suggest(trial, template)
                params = params_of(cfg)
                key = json.dumps(params, sort_keys=True)
                problems = template.violations(cfg)
                if problems:
                    # Pruned, not completed: it never compiled, so it does not count as a trial.
                    trial.set_user_attr("constraints", problems)
                    study.tell(trial, state=_state("PRUNED"))
                    pruned += 1
                    if pruned > 20 * opts.trials:
                        raise OptimizeError("the sampler keeps proposing configs the template's "
                                           "constraints reject; the space may be mostly invalid")
                elif key in seen:  # TPE repeats categorical points: reuse, never re-verify
                    value, verdict_json = seen[key]
                    trial.set_user_attr("duplicate", True)
                    tell(trial, params, value, json.loads(verdict_json))
                else:
                    source = template.render(cfg, **plan.context)
                    request = VerifyRequest(str(task.path), task.source, source, dtype)
                    pool.submit(pool.free_slots[0], request, Pending(trial, params))
                    new_trials += 1
                done = search.count_completed(study)
                want = opts.trials - done - len(pool.inflight)
            if not pool.inflight and (want <= 0 or over_time or not pool.recovering):
                break  # done; or nothing running and nothing coming back to run it
            for pending, verdict in pool.collect(wait_s=1.0):
                verdict["dtype"] = verdict.get("dtype") or dtype
                summary = _summary(verdict)
                tell(pending.trial, pending.params, search.score(summary), summary)
            done = search.count_completed(study)
        llm = None
        if opts.llm is not None:  # LLM proposer (agent/llm): its rounds reuse this pool
            from agent.llm.proposer import run_llm_stage

            llm = run_llm_stage(
                opts.llm, task=task, plan=plan, dtype=dtype, mode=mode, device=device, pool=pool,
                storage=storage, trials=opts.trials, seed=opts.seed, progress=progress,
                study=study, template=template,
            )
        throughput = pool.throughput()
        best = search.best_accepted(study)
        if llm is not None and llm.beats(best):  # strictly better: on a tie the search keeps it
            template, best = llm.best.template, llm.best.record
        promoted, best_out, best_verdict = None, None, None
        if best is not None:
            best_verdict = best.verdict
            if mode == "gpu":
                # Re-time the winner with fresh, interleaved baselines before anything is claimed.
                cfg = template.config(best.params)
                source = template.render(cfg, **plan.context)
                request = VerifyRequest(str(task.path), task.source, source, dtype,
                                        refresh_baselines=True)
                best_verdict = _summary(_verify_now(pool, request))
                bar = max(1.0, opts.promote_min_speedup or 0.0)
                faster = (best_verdict.get("speedup_vs_best_baseline") or 0.0) > bar
                if best_verdict.get("accepted") and faster and opts.promote:
                    zoo_dir = Path(opts.zoo) if opts.zoo else user_zoo()
                    promoted = _promote(task, plan, template, cfg, source, dtype, best_verdict,
                                        environment(), zoo_dir)
            best_out = {
                "template": template.name,
                "params": best.params,
                "trial": best.number,
                "correct": bool(best_verdict.get("accepted")),
                "reasons": best_verdict.get("reasons", []),
                "ms": best_verdict.get("ms"),
                "speedup_vs_eager": best_verdict.get("speedup_vs_eager"),
                "speedup_vs_compile": best_verdict.get("speedup_vs_compile"),
                "roofline_fraction": best_verdict.get("roofline_fraction"),
                "shapes": best_verdict.get("shapes", []),
            }
    except KeyboardInterrupt:
        for pending in (i.payload for i in pool.inflight.values()):
            study.tell(pending.trial, state=_state("FAIL"))
        raise
    finally:
        progress.close()
        pool.shutdown()

    payload = {
        "task": str(task.path),
        "op": plan.op,
        "dtype": dtype,
        "device": device,
        "mode": mode,
        "study": name,
        "storage": storage,
        "ray": ray_info,
        "trials": search.count_completed(study),
        "new_trials": new_trials,
        "pruned_by_constraints": pruned,
        "elapsed_s": round(time.monotonic() - started, 2),
        "worker_restarts": pool.restarts,
        "throughput": throughput,
        "best": best_out,
        "promoted": promoted,
        "llm": llm.report if llm is not None else None,
    }
    return OptimizeResult(payload, _table(study), best_verdict)


def _template_name(plan, wanted: str | None) -> str:
    """The plan's own template, or one of its alternatives (a CUDA C++ one) when asked for."""
    choices = (plan.template, *plan.alternatives)
    if wanted is None:
        return plan.template
    if wanted not in choices:
        raise PlanError(f"template {wanted!r} does not cover {plan.op}; "
                            f"its templates: {', '.join(choices)}")
    return wanted


def _state(name: str):
    from optuna.trial import TrialState

    return TrialState[name]


def _summary(verdict: dict) -> dict:
    from verifier.verdict import Verdict

    if "shapes" in verdict and verdict.get("shapes") and "comparisons" in verdict["shapes"][0]:
        return Verdict.from_dict(verdict).summary()
    return verdict


def _verify_now(pool, request: VerifyRequest) -> dict:
    """Verify one request on the pool's first free actor and wait for it."""
    while not pool.free_slots:
        pool.collect(wait_s=1.0)
    pool.submit(pool.free_slots[0], request, Pending(None, {}))
    while True:
        finished = pool.collect(wait_s=1.0)
        if finished:
            return finished[0][1]


def _promote(task, plan, template, cfg, source, dtype, verdict, env, zoo_dir: Path) -> dict:
    from kernel_zoo.store import promote

    record = {
        "arch": env["arch"], "dtype": dtype, "shape_bucket": plan.shape_bucket,
        "template": template.name, "params": params_of(cfg),
        "task": {"name": task.name, "sha256": task.sha256},
        "device": env["gpu"], "verdict": verdict, "environment": env,
    }
    return promote(plan.op, source, record, zoo_dir=zoo_dir)


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
