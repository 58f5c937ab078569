"""Ray: a local instance by default (or an existing cluster), one verifier actor per GPU.

An actor that dies (illegal memory access, segfault, OOM) or overruns its time is killed and restarted
by Ray; the candidate it held is recorded as failed with the cause, never retried.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from verifier.worker import VerifierWorker, VerifyRequest

CUDA_ERROR_MARKERS = ("illegal memory access", "CUDA error", "device-side assert", "unspecified launch")


def init_ray(address: str | None, mode: str, workers: int) -> dict[str, Any]:
    """Start or join Ray; returns what a report needs about it."""
    import ray

    if ray.is_initialized():
        return {"address": "already-initialized"}
    if address:
        ray.init(address=address, log_to_driver=False)
        return {"address": address}
    import torch

    gpus = torch.cuda.device_count() if mode == "gpu" else 0
    ray.init(
        num_cpus=max(workers, os.cpu_count() or 1),
        num_gpus=gpus,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=256 << 20,  # verdicts are small; keep the local instance light
        configure_logging=False,
    )
    return {"address": "local", "gpus": gpus}


def _actor_class():
    import ray

    @ray.remote(max_restarts=-1, max_task_retries=0)
    class VerifierActor:
        def __init__(self, mode: str, cache_dir: str):
            self.worker = VerifierWorker(mode, cache_dir)

        def verify(self, request: VerifyRequest) -> dict:
            verdict = self.worker.verify(request)
            if self.worker.mode == "gpu" and any(
                m in r for r in verdict.get("reasons", []) for m in CUDA_ERROR_MARKERS
            ):
                verdict["worker_poisoned"] = True  # the CUDA context is gone; restart the actor
            return verdict

        def pid(self) -> int:
            return os.getpid()

    return VerifierActor


@dataclass
class InFlight:
    slot: int
    started: float
    payload: Any


class VerifierPool:
    """N verifier actors; submit to a free slot, collect finished verdicts with timeouts enforced."""

    def __init__(self, n: int, mode: str, cache_dir: str, timeout_s: float):
        import ray

        self._ray = ray
        self.mode = mode
        self.timeout_s = timeout_s
        actor = _actor_class()
        env = {"TRITON_INTERPRET": "1"} if mode == "interpreter" else {}
        self.actors = [
            actor.options(
                num_gpus=1 if mode == "gpu" else 0, num_cpus=1,
                runtime_env={"env_vars": env} if env else None,
            ).remote(mode, cache_dir)
            for _ in range(n)
        ]
        self.inflight: dict[Any, InFlight] = {}
        self.busy: set[int] = set()
        self.restarts = 0

    @property
    def free_slots(self) -> list[int]:
        return [i for i in range(len(self.actors)) if i not in self.busy]

    def submit(self, slot: int, request: VerifyRequest, payload: Any) -> None:
        ref = self.actors[slot].verify.remote(request)
        self.inflight[ref] = InFlight(slot, time.monotonic(), payload)
        self.busy.add(slot)

    def _restart(self, slot: int) -> None:
        # no_restart=False: Ray brings the actor back with a fresh process (and CUDA context).
        self._ray.kill(self.actors[slot], no_restart=False)
        self.restarts += 1

    def collect(self, wait_s: float = 1.0) -> list[tuple[Any, dict]]:
        """Finished (payload, verdict dict) pairs; timeouts and dead actors become failed verdicts."""
        from ray.exceptions import RayActorError, RayTaskError

        from verifier.verdict import Verdict

        done: list[tuple[Any, dict]] = []
        if not self.inflight:
            return done
        ready, _ = self._ray.wait(list(self.inflight), num_returns=1, timeout=wait_s)
        for ref in ready:
            info = self.inflight.pop(ref)
            self.busy.discard(info.slot)
            try:
                verdict = self._ray.get(ref)
            except (RayActorError, RayTaskError) as exc:
                reason = getattr(info.payload, "timeout_reason", None) or (
                    f"the verifier worker died while running the candidate: {type(exc).__name__}"
                )
                stage = "timeout" if getattr(info.payload, "timeout_reason", None) else "crash"
                verdict = Verdict.failure(stage, self.mode, "", reason).to_dict()
            if verdict.pop("worker_poisoned", False):
                self._restart(info.slot)
            done.append((info.payload, verdict))
        now = time.monotonic()
        for ref, info in self.inflight.items():
            if now - info.started > self.timeout_s and not getattr(info.payload, "timeout_reason", None):
                info.payload.timeout_reason = (
                    f"the candidate did not finish within {self.timeout_s:.0f} s (hang or far too slow)"
                )
                self._restart(info.slot)  # its pending call fails with RayActorError next round
        return done

    def shutdown(self) -> None:
        for actor in self.actors:
            try:
                self._ray.kill(actor, no_restart=True)
            except Exception:
                pass
