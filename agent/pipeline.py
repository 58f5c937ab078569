"""Between Optuna and the GPUs: ask a batch ahead, prepare on CPU workers, verify, tell.

A trial moves through: asked (Optuna, ahead of need; the TPE sampler's constant liar counts the
trials still running as bad results, so a batch spreads out instead of repeating one point) ->
rendered (here, a Jinja call of a millisecond) -> prepared (agent.cluster.PreparePool: guards,
import check, compilation into Triton's cache, in CPU-only processes) -> ready -> verified (a GPU
slot) -> told. The pipeline holds at most one candidate verifying and one ready per GPU slot plus
one per prepare worker, so the GPUs never wait on rendering or compiling when the CPUs keep up;
when they do not (or while the prepare workers start), a free GPU slot takes an unprepared
candidate and compiles it itself rather than idle.

A candidate the guards reject is told from its prepare result and never takes a GPU slot. With no
prepare workers a rendered candidate goes straight to a verifier slot, which then guards and
compiles it itself (the loop as it was before the prepare stage: the baseline it is measured against).
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import search
from agent.cluster import PreparePool, VerifierPool, wait_any
from agent.errors import OptimizeError
from verifier.prepare import PrepareRequest
from verifier.worker import VerifyRequest


@dataclass
class Pending:
    trial: Any
    params: dict[str, Any]
    key: str = ""
    source: str = ""
    node_id: str | None = None  # where it was prepared: its compiled kernels are cached there
    duplicates: list["Pending"] = field(default_factory=list)  # asked while it was on its way


def params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


class Pipeline:
    def __init__(self, *, study, template, plan, task, dtype: str, mode: str,
                 verifiers: VerifierPool, preparers: PreparePool | None,
                 on_told: Callable[[float, dict], None], max_pruned: int,
                 shapes: tuple[dict, ...] | None = None):
        self.study = study
        self.shapes = shapes  # the task shapes to verify at on a GPU (None: all of them)
        self.template = template
        self.plan = plan
        self.task = task
        self.dtype = dtype
        self.mode = mode
        self.verifiers = verifiers
        self.preparers = preparers
        self.on_told = on_told
        self.max_pruned = max_pruned
        self.to_prepare: deque[Pending] = deque()
        self.ready: list[Pending] = []
        self.leads: dict[str, Pending] = {}  # params key -> the trial on its way with those params
        self.seen: dict[str, tuple[float, str]] = {
            params_key(r.params): (r.value or 0.0, json.dumps(r.verdict))
            for r in search.completed_trials(study) if r.verdict
        }
        self.new_trials = 0
        self.pruned = 0
        self.duplicates = 0
        self.abandoned = 0
        self.prepare_numbers = {"guard_rejected": 0, "failed": 0, "import_errors": 0,
                                "warmup_errors": 0, "kernels_compiled": 0,
                                "compile_cache_hits": 0, "compile_s": 0.0, "shapes_warmed": 0}
        self.slot_waits = 0
        self.bypassed = 0
        self.slot_wait_s = 0.0
        self._starved: dict[int, float] = {}  # GPU slot -> since when it waits for a preparer

    # ---- sizes -------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Trials the pipeline holds at most: verifying and ready per GPU slot, one per preparer."""
        slots = len(self.verifiers.actors)
        if self.preparers is None:
            return slots
        return 2 * slots + len(self.preparers.actors)

    @property
    def outstanding(self) -> int:
        """Asked trials not told yet (duplicates waiting on another trial's verdict included)."""
        pools = [self.verifiers] + ([self.preparers] if self.preparers else [])
        leads = sum(len(p.inflight) for p in pools) + len(self.to_prepare) + len(self.ready)
        return leads + sum(len(p.duplicates) for p in self.leads.values())

    @property
    def recovering(self) -> bool:
        return bool(self.verifiers.recovering or (self.preparers and self.preparers.recovering))

    # ---- asking ------------------------------------------------------------------------------
    def ask_one(self) -> None:
        """Ask Optuna for a trial and send it on its way (or tell it now when it need not run)."""
        trial = self.study.ask()
        trial.set_user_attr(search.study.DRIVER_ATTR, search.this_driver())
        cfg = search.suggest(trial, self.template)
        params = _params_of(cfg)
        key = params_key(params)
        problems = self.template.violations(cfg)
        if problems:
            search.reject(self.study, trial, problems)  # never compiled: not a trial
            self.pruned += 1
            if self.pruned > self.max_pruned:
                raise OptimizeError("the sampler keeps proposing configs the template's "
                                    "constraints reject; the space may be mostly invalid")
        elif key in self.seen:  # TPE repeats categorical points: reuse, never re-verify
            value, verdict_json = self.seen[key]
            trial.set_user_attr("duplicate", True)
            self.duplicates += 1
            self._tell(trial, params, value, json.loads(verdict_json))
        elif key in self.leads:  # the same point is on its way already: share its verdict
            self.leads[key].duplicates.append(Pending(trial, params, key))
            self.duplicates += 1
        else:
            self.submit_source(Pending(trial, params, key),
                               self.template.render(cfg, **self.plan.context))

    def submit_source(self, pending: Pending, source: str) -> None:
        """Send a rendered candidate on: to the prepare stage, or straight to a GPU slot."""
        pending.source = source
        self.leads[pending.key] = pending
        self.new_trials += 1
        (self.to_prepare if self.preparers else self.ready).append(pending)
        self._dispatch()

    # ---- moving candidates along -------------------------------------------------------------
    def step(self, wait_s: float = 1.0) -> None:
        """Wait for the next result of either stage (at most `wait_s`) and act on all that came."""
        self._dispatch()
        pools = [self.verifiers] + ([self.preparers] if self.preparers else [])
        wait_any(pools, wait_s)
        if self.preparers:
            for pending, result in self.preparers.collect(wait_s=0):
                self._prepared(pending, result)
        for pending, verdict in self.verifiers.collect(wait_s=0):
            verdict["dtype"] = verdict.get("dtype") or self.dtype
            self._conclude(pending, _summary(verdict))
        self._dispatch()

    def _dispatch(self) -> None:
        if self.preparers:
            for slot in self.preparers.free_slots:
                if not self.to_prepare:
                    break
                pending = self.to_prepare.popleft()
                self.preparers.submit(slot, PrepareRequest(
                    str(self.task.path), self.task.source, pending.source, self.dtype), pending)
        now = time.monotonic()
        for slot in self.verifiers.free_slots:
            pending = self._next_ready(slot) or self._bypass(slot)
            if pending is None:
                break
            request = VerifyRequest(str(self.task.path), self.task.source, pending.source,
                                    self.dtype, shapes=self.shapes)
            self.verifiers.submit(slot, request, pending)
            if slot in self._starved:
                self.slot_wait_s += now - self._starved.pop(slot)
                self.slot_waits += 1
        coming = bool(self.preparers and (self.preparers.inflight or self.to_prepare))
        for slot in self.verifiers.free_slots:
            if coming and self.verifiers.is_up(slot):  # a verifier still starting waits on itself
                self._starved.setdefault(slot, now)
            elif slot in self._starved:  # nothing on its way: idle, but not for the prepare stage
                self.slot_wait_s += now - self._starved.pop(slot)

    def _next_ready(self, slot: int) -> Pending | None:
        if not self.ready:
            return None
        homes = self.verifiers.homes
        node = homes[slot]["node_id"] if slot < len(homes) else None
        # Prefer a candidate prepared on this slot's node: its kernels are in that node's cache.
        pick = next((i for i, p in enumerate(self.ready) if p.node_id == node), 0)
        return self.ready.pop(pick)

    def _bypass(self, slot: int) -> Pending | None:
        """The verifier actor in `slot` is up and free, nothing is ready and no prepare worker is
        free (all busy, or still starting): rather than idle, the GPU takes the next unprepared
        candidate and compiles it itself, as with no prepare stage. The guards, a millisecond's
        work, run here first, so a candidate they reject still never takes a GPU slot."""
        from verifier.core import guard_verdict

        if self.preparers is None or not self.verifiers.is_up(slot):
            return None
        while self.to_prepare:
            pending = self.to_prepare.popleft()
            rejected = guard_verdict(pending.source, self.mode, self.dtype,
                                     self.verifiers.device_name(), self.task)
            if rejected is None:
                self.bypassed += 1
                return pending
            self.prepare_numbers["guard_rejected"] += 1
            self._conclude(pending, _summary(rejected.to_dict()))
        return None

    def _prepared(self, pending: Pending, result: dict) -> None:
        numbers = self.prepare_numbers
        numbers["import_errors"] += bool(result.get("import_error"))
        numbers["warmup_errors"] += bool(result.get("warmup_error"))
        numbers["kernels_compiled"] += result.get("compiled", 0)
        numbers["compile_cache_hits"] += result.get("cache_hits", 0)
        numbers["compile_s"] += result.get("compile_s", 0.0)
        numbers["shapes_warmed"] += result.get("shapes_warmed", 0)
        verdict = result.get("verdict")
        if verdict is not None:  # rejected by the guards, or its prepare worker crashed or hung
            numbers["failed" if result.get("failed") else "guard_rejected"] += 1
            verdict["dtype"] = verdict.get("dtype") or self.dtype
            self._conclude(pending, _summary(verdict))
            return
        pending.node_id = (result.get("worker") or {}).get("node_id")
        self.ready.append(pending)

    # ---- telling -----------------------------------------------------------------------------
    def _tell(self, trial, params: dict, value: float, verdict: dict) -> None:
        trial.set_user_attr("verdict", json.dumps(verdict))
        self.study.tell(trial, value)
        self.seen[params_key(params)] = (value, json.dumps(verdict))
        self.on_told(value, verdict)

    def _conclude(self, pending: Pending, summary: dict) -> None:
        value = search.score(summary)
        self._tell(pending.trial, pending.params, value, summary)
        self.leads.pop(pending.key, None)
        for duplicate in pending.duplicates:
            duplicate.trial.set_user_attr("duplicate", True)
            self._tell(duplicate.trial, duplicate.params, value, summary)

    def _fail(self, pending: Pending, reason: str) -> None:
        for p in [pending, *pending.duplicates]:
            p.trial.set_user_attr("abandoned", reason)
            self.study.tell(p.trial, state=_state("FAIL"))
            self.abandoned += 1
        self.leads.pop(pending.key, None)

    def drop_unstarted(self, reason: str) -> None:
        """Fail the trials that have not reached a GPU (the time budget ran out): told FAIL, they
        are not results and do not count toward --trials."""
        unstarted = list(self.to_prepare) + self.ready
        if self.preparers:
            unstarted += self.preparers.abandon()
        self.to_prepare.clear()
        self.ready.clear()
        for pending in unstarted:
            self._fail(pending, reason)

    def fail_all(self, reason: str) -> None:
        """Fail every trial still asked (an interrupted run)."""
        self.drop_unstarted(reason)
        for pending in self.verifiers.abandon():
            if pending.trial is not None:
                self._fail(pending, reason)

    # ---- numbers -----------------------------------------------------------------------------
    def prepare_stats(self) -> dict[str, Any]:
        """The prepare stage's numbers, and how long GPU slots sat waiting on it."""
        preparers = self.preparers
        prepared = preparers.prepared if preparers else 0
        seconds = preparers.seconds if preparers else 0.0
        return {
            "workers": len(preparers.actors) if preparers else 0,
            "prepared": prepared,
            "prepare_s": round(seconds, 2),
            "mean_prepare_s": round(seconds / prepared, 3) if prepared else None,
            **{k: round(v, 2) if isinstance(v, float) else v
               for k, v in self.prepare_numbers.items()},
            "restarts": preparers.restarts if preparers else 0,
            "worker_pids": sorted(preparers.workers_seen) if preparers else [],
            "bypassed": self.bypassed,
            "gpu_slot_waits": self.slot_waits,
            "gpu_slot_wait_s": round(self.slot_wait_s + sum(
                time.monotonic() - since for since in self._starved.values()), 2),
            "lookahead": self.depth,
        }


def _params_of(cfg) -> dict[str, Any]:
    from templates import params_of

    return params_of(cfg)


def _state(name: str):
    from optuna.trial import TrialState

    return TrialState[name]


def _summary(verdict: dict) -> dict:
    from verifier.verdict import Verdict

    if "shapes" in verdict and verdict.get("shapes") and "comparisons" in verdict["shapes"][0]:
        return Verdict.from_dict(verdict).summary()
    return verdict
