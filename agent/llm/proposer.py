"""The LLM rounds: prompt, sample, parse, verify on the pool, feed verdicts back; under a budget.

It runs after the template search, on the same verifier pool. Its best candidate replaces the
template search's only with a strictly higher score (the interpreter scores every correct candidate
1.0, so there the earlier one stays).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import search
from agent.llm import LLMSettings
from agent.llm.answers import ModuleAnswer, TemplateAnswer, gist, module_template, parse_answer
from agent.llm.feedback import sample_text, verdict_text
from agent.llm.jobs import ModuleJob, TemplateJob, run_jobs
from agent.llm.prompt import PromptFacts, describe_target, render_messages, zoo_examples
from agent.llm.runs import RunLog
from templates.base import Template
from verifier.worker import VerifyRequest


@dataclass
class Leader:
    """A candidate that leads: enough to show it in a prompt and to re-time and promote it."""

    score: float
    template: Template
    record: search.TrialRecord
    source: str
    origin: str  # "template search" or "round R sample K"

    def for_prompt(self) -> dict[str, Any]:
        return {"name": self.template.name, "params": self.record.params, "source": self.source,
                "verdict_lines": verdict_text(self.record.verdict or {})}

    def report(self) -> dict[str, Any]:
        verdict = self.record.verdict or {}
        return {"template": self.template.name, "params": self.record.params,
                "origin": self.origin, "score": self.score, "accepted": verdict.get("accepted"),
                "ms": verdict.get("ms"), "speedup_vs_eager": verdict.get("speedup_vs_eager"),
                "speedup_vs_compile": verdict.get("speedup_vs_compile"),
                "roofline_fraction": verdict.get("roofline_fraction")}


@dataclass
class LLMOutcome:
    report: dict[str, Any]
    best: Leader | None = None  # the best LLM-written candidate, if any was accepted
    samples: list[dict[str, Any]] = field(default_factory=list)

    def beats(self, record: search.TrialRecord | None) -> bool:
        """Whether the LLM's best should replace `record` (the template search's best)."""
        if self.best is None:
            return False
        return record is None or self.best.score > (record.value or 0.0)


def _leader_from_study(study, template: Template, context: dict) -> Leader | None:
    best = search.best_accepted(study)
    if best is None:
        return None
    source = template.render(template.config(best.params), **context)
    return Leader(best.value or 0.0, template, best, source, "template search")


def _ask_all(client, messages: list[dict[str, str]], samples: int) -> list[tuple[int, Any]]:
    """Every sample's Reply, or the exception that stopped its request; requests run in parallel,
    each in a daemon thread waited for in short joins: a Ctrl-C stops the run at once, and the
    requests still out end with the process. (A thread pool's exit waited for them: one Ctrl-C
    sat through the rest of a slow request, its retries included, minutes of them.)"""
    results: list[Any] = [None] * samples

    def one(index: int) -> None:
        try:
            results[index] = client.complete(messages, admitted=True)  # budget checked already
        except Exception as exc:  # RequestFailed, BudgetExhausted: data for the round
            results[index] = exc

    threads = [threading.Thread(target=one, args=(i,), name=f"kzoo-llm-sample-{i + 1}",
                                daemon=True) for i in range(samples)]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.2)
    return list(enumerate(results, start=1))


def _facts(settings: LLMSettings, task, dtype: str, mode: str, plan, plan_problem: str | None,
           copy_gbps: float | None) -> PromptFacts:
    op = plan.op if plan is not None else (task.op or task.name)
    return PromptFacts(
        task=task, dtype=dtype, mode=mode, plan=plan, plan_problem=plan_problem,
        target=describe_target(mode, dtype, copy_gbps), examples=zoo_examples(op, dtype),
        samples=settings.samples, rounds=settings.rounds,
    )


def first_prompt(settings: LLMSettings, task, dtype: str, plan, plan_problem: str | None = None):
    """The messages of round 1 as a run would send them before any verdict (for --llm-dry-run)."""
    from verifier.worker import detect_mode

    facts = _facts(settings, task, dtype, detect_mode(), plan, plan_problem, None)
    return render_messages(facts, 1, None, [])


def run_llm_stage(
    settings: LLMSettings, *, task, plan, dtype: str, mode: str, device: str, pool,
    storage: str, trials: int, seed: int | None, progress, study=None,
    template: Template | None = None, plan_problem: str | None = None,
) -> LLMOutcome:
    """Run the rounds; returns the report for the result JSON and the LLM's best candidate."""
    from agent.llm.client import BudgetExhausted, ChatClient, RequestFailed

    context = dict(plan.context) if plan is not None else {}
    incumbent = (_leader_from_study(study, template, context)
                 if study is not None and template is not None else None)
    copy_gbps = (incumbent.record.verdict or {}).get("copy_gbps") if incumbent else None
    facts = _facts(settings, task, dtype, mode, plan, plan_problem, copy_gbps)
    client = ChatClient(settings)
    run = RunLog(task.name, {
        "task": str(task.path), "task_sha256": task.sha256, "op": facts.op, "dtype": dtype,
        "device": device, "mode": mode, "model": settings.model, "settings": settings.public(),
        "plan": plan.describe() if plan is not None else None, "plan_problem": plan_problem,
        "incumbent": incumbent.report() if incumbent else None,
    })
    progress.note(f"LLM {settings.model}: {settings.rounds} round(s) of {settings.samples} "
                  f"sample(s), budget {settings.budget_tokens} tokens; run {run.id}")

    def request_for(source: str) -> VerifyRequest:
        return VerifyRequest(str(task.path), task.source, source, dtype)

    history: list[dict[str, Any]] = []
    all_samples: list[dict[str, Any]] = []
    llm_best: Leader | None = None
    stop_reason: str | None = None
    status = "done"
    rounds_done = 0
    try:
        for round_index in range(1, settings.rounds + 1):
            if client.budget.exhausted:
                stop_reason = (f"token budget spent ({client.budget.used} of "
                               f"{client.budget.limit}) before round {round_index}")
                status = "budget"
                break
            leader = _better(incumbent, llm_best)
            messages = render_messages(facts, round_index, leader.for_prompt() if leader else None,
                                       history)
            run.prompt(round_index, messages)
            replies = _ask_all(client, messages, settings.samples)
            jobs, records = [], []
            fatal = None
            for sample, reply in replies:
                if isinstance(reply, Exception):
                    reason = str(reply)
                    run.answer(round_index, sample, None, {"error": reason})
                    records.append({"sample": sample, "kind": "failed", "reason": reason})
                    if isinstance(reply, BudgetExhausted):
                        stop_reason = f"{reason}; stopped during round {round_index}"
                        status = "budget"
                    elif isinstance(reply, RequestFailed) and not reply.retryable:
                        fatal = reason
                    continue
                run.answer(round_index, sample, reply.text, reply.record())
                tokens = {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens}
                answer = parse_answer(reply.text, context, f"launch_{facts.op}")
                if isinstance(answer, ModuleAnswer):
                    jobs.append(ModuleJob(sample, module_template(answer.source),
                                          request_for(answer.source)))
                elif isinstance(answer, TemplateAnswer):
                    name = search.study_name(task.name, task.sha256, answer.template.name, dtype,
                                             device, space=answer.template.space)
                    study_t = search.open_study(name, storage, seed=seed)
                    jobs.append(TemplateJob(sample, answer.template, study_t, trials, context,
                                            request_for))
                else:
                    records.append({"sample": sample, "kind": "unparseable",
                                    "reason": answer.reason, "tokens": tokens,
                                    "gist": gist(reply.text)})
                    continue
                jobs[-1].tokens = tokens
                jobs[-1].gist = gist(reply.text)
            if all(isinstance(r, Exception) for _, r in replies) and not stop_reason:
                stop_reason = f"no answer in round {round_index}: {fatal or records[0]['reason']}"
                status = "failed"
            if jobs:
                progress.note(f"LLM round {round_index}: verifying {len(jobs)} answer(s)")
                run_jobs(pool, jobs)
            for job in jobs:
                record = job.record()
                record["tokens"] = job.tokens
                record["gist"] = job.gist
                found = job.best()
                record["best_score"] = found[0] if found else 0.0
                if isinstance(job, TemplateJob):
                    record["template_source"] = job.template.source
                if found is not None:
                    score, params, verdict, number = found
                    candidate = Leader(
                        score, job.template, search.TrialRecord(number, params, score, verdict),
                        job.template.render(job.template.config(params), **context),
                        f"round {round_index} sample {job.sample}",
                    )
                    if llm_best is None or candidate.score > llm_best.score:
                        llm_best = candidate
                records.append(record)
            records.sort(key=lambda r: r["sample"])
            lines = [line for record in records for line in sample_text(record)]
            for record in records:
                run.outcome(round_index, record)
            run.feedback(round_index, lines)
            history.append({"round": round_index, "lines": lines})
            all_samples += [{**r, "round": round_index} for r in records]
            rounds_done = round_index
            accepted = sum(1 for r in records if r.get("best_score"))
            progress.note(f"LLM round {round_index}: {accepted} of {len(records)} answer(s) "
                          f"accepted; {client.budget.used} tokens used so far")
            if stop_reason:
                break
    except BaseException as exc:  # the run folder says how it ended, whatever ended it
        interrupted = isinstance(exc, KeyboardInterrupt)
        run.finish("interrupted" if interrupted else "failed",
                   "interrupted" if interrupted else f"{type(exc).__name__}: {exc}",
                   client.budget.record(), llm_best.report() if llm_best else None)
        if interrupted:  # for a caller with no study to speak of: where the run is recorded
            exc.llm_run = {"run_id": run.id, "run_dir": str(run.path), "status": "interrupted",
                           "rounds": rounds_done, "tokens": client.budget.record(),
                           "best": llm_best.report() if llm_best else None}
        raise
    if stop_reason:
        progress.note(f"LLM stopped: {stop_reason}")
    run.finish(status, stop_reason, client.budget.record(),
               llm_best.report() if llm_best else None)
    report = {
        "model": settings.model, "base_url": settings.base_url, "run_id": run.id,
        "run_dir": str(run.path), "status": status, "stop_reason": stop_reason,
        "rounds": rounds_done, "samples": len(all_samples), "tokens": client.budget.record(),
        "best": llm_best.report() if llm_best else None,
    }
    return LLMOutcome(report, llm_best, all_samples)


def _better(a: Leader | None, b: Leader | None) -> Leader | None:
    """The leader of the two; on a tie the first (the earlier) keeps the lead."""
    if a is None:
        return b
    if b is None:
        return a
    return b if b.score > a.score else a


def optimize_llm_only(opts, task, dtype: str, plan_problem: str):
    """`optimize --llm` for an op no template family covers: the LLM rounds alone, on a pool of
    their own. Nothing is promoted: the zoo dispatches only ops it has a registered entry point for;
    the winner stays in the run folder."""
    import time

    from agent.cluster import VerifierPool, init_ray
    from agent.loop import OptimizeResult
    from agent.progress import Progress
    from kernel_zoo._home import kzoo_home
    from verifier.environment import device_label, environment
    from verifier.worker import detect_mode

    mode = detect_mode()
    device = device_label()
    storage = opts.storage or search.default_storage()
    ray_info = init_ray(opts.address, mode, opts.workers or 1, opts.local_gpus)
    workers = opts.workers or (max(1, ray_info["gpus"]) if mode == "gpu" else 2)
    pool = VerifierPool(workers, mode, str(kzoo_home() / "candidates"), opts.timeout_s,
                        gpus_per_actor=1 if ray_info["gpus"] else 0)
    progress = Progress(1, quiet=opts.quiet)
    progress.note(f"{task.name} {dtype} on {device} ({mode}): no template covers the op; the LLM "
                  f"writes it from the task alone; {workers} worker(s)")
    started = time.monotonic()
    try:
        outcome = run_llm_stage(
            opts.llm, task=task, plan=None, dtype=dtype, mode=mode, device=device, pool=pool,
            storage=storage, trials=opts.trials, seed=opts.seed, progress=progress,
            plan_problem=plan_problem,
        )
    except KeyboardInterrupt as interrupt:  # no study here: the run folder is what is kept
        from agent.errors import OptimizeInterrupted

        run = getattr(interrupt, "llm_run", None)
        payload = {
            "interrupted": True, "task": str(task.path), "op": task.op or task.name,
            "dtype": dtype, "device": device, "environment": environment(), "mode": mode,
            "study": None, "trials": 0, "best": None, "promoted": None,
            "plan_problem": plan_problem, "llm": run,
        }
        kept = ("nothing was recorded yet" if run is None else
                f"LLM run {run['run_id']} is recorded in {run['run_dir']} (kzoo runs show "
                f"{run['run_id']}); run the same command again for a new run")
        raise OptimizeInterrupted(None, storage, 0, None, payload, kept=kept) from interrupt
    finally:
        progress.close()
        pool.shutdown()
    best = None
    if outcome.best is not None:
        verdict = outcome.best.record.verdict or {}
        best = {
            "template": outcome.best.template.name, "params": outcome.best.record.params,
            "trial": outcome.best.record.number, "correct": bool(verdict.get("accepted")),
            **{key: verdict.get(key) for key in ("ms", "speedup_vs_eager", "speedup_vs_compile",
                                                 "speedup_vs_best_baseline",
                                                 "roofline_fraction")},
            "gpu": verdict.get("device"),
            "shapes": verdict.get("shapes", []), "origin": outcome.best.origin,
        }
    payload = {
        "task": str(task.path), "op": task.op or task.name, "dtype": dtype, "device": device,
        "environment": environment(), "mode": mode, "study": None, "storage": storage,
        "ray": ray_info, "trials": 0, "new_trials": 0, "pruned_by_constraints": 0,
        # the LLM's rounds and token budget bound this path; --time-budget bounds a search
        "time_budget_ran_out": False,
        "elapsed_s": round(time.monotonic() - started, 2), "worker_restarts": pool.restarts,
        "throughput": pool.throughput(), "best": best, "promoted": None,
        "plan_problem": plan_problem, "llm": outcome.report,
    }
    return OptimizeResult(payload, [])
