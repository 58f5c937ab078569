"""Verify a round's answers together on the Ray pool: a module is one verification, a template is
an Optuna study of its own that asks configs until it holds `trials` completed ones.

Free pool slots go round-robin over the jobs that still want work, so the samples of a round (and
the configs of a template) are verified in parallel.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import search
from templates.base import Template, params_of
from verifier.worker import VerifyRequest


@dataclass
class Work:
    """What rides with a request through the pool (the pool sets timeout_reason on a timeout)."""

    job: Any
    trial: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    timeout_reason: str | None = None


def summarize(verdict: dict[str, Any]) -> dict[str, Any]:
    """The compact verdict (reasons, exploits, timings per shape) from the pool's full one."""
    from verifier.verdict import Verdict

    if verdict.get("shapes") and "comparisons" in verdict["shapes"][0]:
        return Verdict.from_dict(verdict).summary()
    return verdict


class ModuleJob:
    def __init__(self, sample: int, template: Template, request: VerifyRequest):
        self.sample = sample
        self.template = template
        self.request = request
        self.sent = False
        self.verdict: dict[str, Any] | None = None
        self.tokens: dict[str, int] = {}
        self.gist = ""  # how the feedback refers to the answer

    def next_work(self) -> tuple[VerifyRequest, Work] | None:
        if self.sent:
            return None
        self.sent = True
        return self.request, Work(self, source=self.request.source)

    @property
    def done(self) -> bool:
        return self.verdict is not None

    def finish(self, work: Work, verdict: dict[str, Any]) -> None:
        self.verdict = verdict

    def best(self) -> tuple[float, dict[str, Any], dict[str, Any], int] | None:
        """(score, params, verdict, trial number) of the accepted result, if any."""
        if self.verdict and self.verdict.get("accepted"):
            return search.score(self.verdict), {}, self.verdict, 0
        return None

    def record(self) -> dict[str, Any]:
        return {"sample": self.sample, "kind": "module", "name": self.template.name,
                "verdict": self.verdict, "source": self.request.source,
                "score": search.score(self.verdict or {})}


class TemplateJob:
    """One LLM template's own study (named after the template, so never the built-in one's)."""

    def __init__(self, sample: int, template: Template, study, trials: int, context: dict,
                 request_for):
        self.sample = sample
        self.template = template
        self.study = study
        self.trials = trials
        self.context = context
        self.request_for = request_for  # source -> VerifyRequest
        self.inflight = 0
        self.pruned = 0
        self.max_pruned = search.pruned_budget(template, trials)  # as the built-in search's
        self.stopped: str | None = None
        self.results: list[dict[str, Any]] = []
        self.tokens: dict[str, int] = {}
        self.gist = ""  # how the feedback refers to the answer
        self.seen: dict[str, tuple[float, dict]] = {
            json.dumps(r.params, sort_keys=True): (r.value or 0.0, r.verdict)
            for r in search.completed_trials(study) if r.verdict
        }
        if not study.trials:
            study.enqueue_trial(params_of(template.default))

    def _completed(self) -> int:
        return search.count_completed(self.study)

    @property
    def done(self) -> bool:
        return self.inflight == 0 and (self.stopped is not None or self._completed() >= self.trials)

    def next_work(self) -> tuple[VerifyRequest, Work] | None:
        while self.stopped is None and self._completed() + self.inflight < self.trials:
            trial = self.study.ask()
            trial.set_user_attr(search.study.DRIVER_ATTR, search.this_driver())
            cfg = search.suggest(trial, self.template)
            params = params_of(cfg)
            key = json.dumps(params, sort_keys=True)
            problems = self.template.violations(cfg)
            if problems:
                search.reject(self.study, trial, problems)
                self.pruned += 1
                if self.pruned > self.max_pruned:
                    self.stopped = ("its constraints rejected nearly every config the sampler "
                                    "proposed")
                continue
            if key in self.seen:  # TPE repeats categorical points: reuse, never re-verify
                value, verdict = self.seen[key]
                trial.set_user_attr("duplicate", True)
                self._tell(trial, params, value, verdict, "")
                continue
            try:
                source = self.template.render(cfg, **self.context)
            except Exception as exc:  # a Jinja error at this config is the answer's fault
                from verifier.verdict import Verdict

                verdict = Verdict.failure("error", "", "", f"rendering failed at {params}: "
                                          f"{type(exc).__name__}: {exc}").summary()
                self._tell(trial, params, 0.0, verdict, "")
                continue
            self.inflight += 1
            return self.request_for(source), Work(self, trial, params, source)
        return None

    def _tell(self, trial, params: dict, value: float, verdict: dict, source: str) -> None:
        trial.set_user_attr("verdict", json.dumps(verdict))
        self.study.tell(trial, value)
        self.seen[json.dumps(params, sort_keys=True)] = (value, verdict)
        self.results.append({"trial": trial.number, "params": params, "score": value,
                             "verdict": verdict, "source": source})

    def finish(self, work: Work, verdict: dict[str, Any]) -> None:
        self.inflight -= 1
        self._tell(work.trial, work.params, search.score(verdict), verdict, work.source)

    def fail_inflight(self, work: Work) -> None:
        self.inflight -= 1
        self.study.tell(work.trial, state=_state("FAIL"))

    def best(self) -> tuple[float, dict[str, Any], dict[str, Any], int] | None:
        record = search.best_accepted(self.study)
        if record is None:
            return None
        return record.value or 0.0, record.params, record.verdict, record.number

    def record(self) -> dict[str, Any]:
        return {"sample": self.sample, "kind": "template", "name": self.template.name,
                "study": self.study.study_name, "trials": self.results, "pruned": self.pruned,
                "stopped": self.stopped, "space": {p.name: list(p.choices)
                                                   for p in self.template.space}}


def _state(name: str):
    from optuna.trial import TrialState

    return TrialState[name]


def run_jobs(pool, jobs: list, on_verdict=None) -> None:
    """Verify every job's work on the pool's free slots until all jobs are done."""
    try:
        while True:
            wanting = [j for j in jobs if not j.done]
            progressed = True
            while pool.free_slots and progressed:
                progressed = False
                for job in wanting:
                    if not pool.free_slots:
                        break
                    work = job.next_work()
                    if work is not None:
                        pool.submit(pool.free_slots[0], *work)
                        progressed = True
            if not pool.inflight and all(j.done for j in jobs):
                return
            if not pool.inflight and not pool.recovering and not pool.free_slots:
                return  # nothing can run; cannot happen with a live pool, but never spin
            for work, verdict in pool.collect(wait_s=1.0):
                summary = summarize(verdict)
                work.job.finish(work, summary)
                if on_verdict is not None:
                    on_verdict(work.job, summary)
    except KeyboardInterrupt:
        for ref, info in list(pool.inflight.items()):
            if isinstance(info.payload, Work):
                if isinstance(info.payload.job, TemplateJob):
                    info.payload.job.fail_inflight(info.payload)
                # Handled here: the loop's own handler fails what is left in flight in its study.
                del pool.inflight[ref]
        raise
