"""Ray: a local instance by default (or an existing cluster), one verifier actor per GPU.

An actor that dies (illegal memory access, segfault, OOM) or overruns its time is killed and restarted
by Ray; the candidate it held is recorded as failed with the cause, never retried.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from agent.errors import ClusterError
from verifier.worker import VerifierWorker, VerifyRequest

CUDA_ERROR_MARKERS = ("illegal memory access", "CUDA error", "device-side assert", "unspecified launch")


PROJECT_PACKAGES = ("agent", "search", "templates", "verifier", "kernel_zoo", "tasks")


def _project_modules() -> list:
    import importlib

    return [importlib.import_module(name) for name in PROJECT_PACKAGES]


def _check_reachable(address: str) -> None:
    """Fail in seconds, not after Ray's minutes of retries, when nothing listens at HOST:PORT."""
    import socket

    if address == "auto":
        return  # Ray finds the local cluster's address itself
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"--address {address!r}: expected auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise ClusterError(
            f"nothing answers at {host}:{port} ({exc.strerror or exc}): start the cluster with "
            "`ray start --head`, or leave --address out to start a local instance"
        ) from exc


def init_ray(address: str | None, mode: str, workers: int,
             local_gpus: int | None = None) -> dict[str, Any]:
    """Start or join Ray; returns what a report needs about it.

    Joining a cluster (`auto`, `HOST:PORT` or `ray://HOST:10001`) ships this project's packages to
    the workers through Ray's runtime environment, so the nodes need only Python, torch, triton and
    ray. `local_gpus` declares GPU resources to a local instance (tests run "GPU" actors that way on
    machines without one; the actors still use Triton's interpreter there).
    """
    import ray

    if not ray.is_initialized():
        if address:
            _check_reachable(address)
            try:
                ray.init(address=address, log_to_driver=False,
                         runtime_env={"py_modules": _project_modules()})
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ClusterError(
                    f"cannot join the Ray cluster at {address!r}: {exc}. Check that `ray start "
                    "--head` runs there and that this machine reaches it (or leave --address "
                    "out to start a local instance). A head with token authentication (Ray's "
                    "default since 2.59 where ~/.ray/auth_token exists) needs RAY_AUTH_MODE=token "
                    "here so this driver presents its token."
                ) from exc
        else:
            import torch

            gpus = local_gpus if local_gpus is not None else (
                torch.cuda.device_count() if mode == "gpu" else 0)
            ray.init(
                # "local": a new instance even where a `ray start` cluster already runs (plain
                # ray.init() would join that one, which --address is for).
                address="local",
                num_cpus=max(workers, os.cpu_count() or 1),
                num_gpus=gpus,
                include_dashboard=False,
                log_to_driver=False,
                object_store_memory=256 << 20,  # verdicts are small; keep the instance light
                configure_logging=False,
            )
    gpus = int(ray.cluster_resources().get("GPU", 0))
    return {"address": address or "local", "gpus": gpus}


def _actor_class():
    import ray

    @ray.remote(max_restarts=-1, max_task_retries=0)
    class VerifierActor:
        def __init__(self, mode: str, cache_dir: str):
            self.worker = VerifierWorker(mode, cache_dir)

        def verify(self, request: VerifyRequest) -> dict:
            import ray

            started = time.monotonic()
            verdict = self.worker.verify(request)
            verdict["worker_seconds"] = time.monotonic() - started
            verdict["worker"] = {"pid": os.getpid(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()]}
            cuda_gone = self.worker.mode == "gpu" and any(
                m in r for r in verdict.get("reasons", []) for m in CUDA_ERROR_MARKERS
            )
            # A candidate that patched a module was caught, but the patch lives on in this
            # process; like a lost CUDA context, that calls for a fresh one.
            if cuda_gone or "module-patching" in verdict.get("exploits", []):
                verdict["worker_poisoned"] = True
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

    def __init__(self, n: int, mode: str, cache_dir: str, timeout_s: float,
                 gpus_per_actor: int = 0):
        import ray

        self._ray = ray
        self.mode = mode
        self.timeout_s = timeout_s
        actor = _actor_class()
        env = {"TRITON_INTERPRET": "1"} if mode == "interpreter" else {}
        # One GPU per actor where the cluster has GPUs: Ray then places one actor per device.
        self.actors = [
            actor.options(
                num_gpus=gpus_per_actor, num_cpus=1,
                runtime_env={"env_vars": env} if env else None,
            ).remote(mode, cache_dir)
            for _ in range(n)
        ]
        self.inflight: dict[Any, InFlight] = {}
        self.busy: set[int] = set()
        self.restarts = 0
        self.started = time.monotonic()
        self.verified = 0  # candidates that came back with a verdict, crashes and timeouts included
        self.busy_s = 0.0  # time actors spent verifying
        self.workers_seen: dict[int, list[str]] = {}  # pid -> the GPU ids Ray gave it
        # Slots whose actor died or was killed: pinged until Ray has it back, so the next
        # candidate is not lost to the restart window.
        self.recovering: dict[int, Any] = {}
        self.max_pings = 120

    @property
    def free_slots(self) -> list[int]:
        return [i for i in range(len(self.actors))
                if i not in self.busy and i not in self.recovering]

    def submit(self, slot: int, request: VerifyRequest, payload: Any) -> None:
        ref = self.actors[slot].verify.remote(request)
        self.inflight[ref] = InFlight(slot, time.monotonic(), payload)
        self.busy.add(slot)

    def _restart(self, slot: int) -> None:
        # no_restart=False: Ray brings the actor back with a fresh process (and CUDA context).
        self._ray.kill(self.actors[slot], no_restart=False)
        self.restarts += 1

    def _recover(self, slot: int) -> None:
        self.recovering[slot] = (self.actors[slot].pid.remote(), 0)

    def _check_recovering(self) -> None:
        from ray.exceptions import GetTimeoutError, RayActorError

        for slot, (ping, tries) in list(self.recovering.items()):
            try:
                self._ray.get(ping, timeout=0.5)
            except GetTimeoutError:
                continue
            except RayActorError:
                if tries >= self.max_pings:
                    raise ClusterError(
                        f"verifier worker {slot} did not come back after a restart; Ray could not "
                        "start a replacement (see `ray status` and the Ray logs)"
                    ) from None
                time.sleep(0.25)
                self.recovering[slot] = (self.actors[slot].pid.remote(), tries + 1)
                continue
            del self.recovering[slot]

    def collect(self, wait_s: float = 1.0) -> list[tuple[Any, dict]]:
        """Finished (payload, verdict dict) pairs; timeouts and dead actors become failed verdicts."""
        from ray.exceptions import RayActorError, RayTaskError

        from verifier.verdict import Verdict

        done: list[tuple[Any, dict]] = []
        self._check_recovering()
        if not self.inflight:
            if self.recovering:
                time.sleep(min(wait_s, 0.25))
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
                self._recover(info.slot)
            if verdict.pop("worker_poisoned", False):
                self._restart(info.slot)
                self._recover(info.slot)
            self.verified += 1
            self.busy_s += verdict.pop("worker_seconds", time.monotonic() - info.started)
            worker = verdict.pop("worker", None)
            if worker:
                self.workers_seen[worker["pid"]] = worker["gpu_ids"]
            done.append((info.payload, verdict))
        now = time.monotonic()
        for info in self.inflight.values():
            if now - info.started > self.timeout_s and not getattr(info.payload, "timeout_reason", None):
                info.payload.timeout_reason = (
                    f"the candidate did not finish within {self.timeout_s:.0f} s (hang or far too slow)"
                )
                self._restart(info.slot)  # its pending call fails with RayActorError next round
        return done

    def throughput(self) -> dict[str, Any]:
        """Verified candidates per minute (and per actor-minute) and how idle the actors were."""
        wall_s = max(time.monotonic() - self.started, 1e-9)
        actors = len(self.actors)
        return {
            "verified": self.verified,
            "wall_s": round(wall_s, 2),
            "actors": actors,
            "candidates_per_minute": round(self.verified * 60 / wall_s, 3),
            "candidates_per_actor_minute": round(self.verified * 60 / wall_s / actors, 3),
            "idle_fraction": round(max(0.0, 1 - self.busy_s / (wall_s * actors)), 3),
            "workers": [{"pid": pid, "gpu_ids": ids} for pid, ids in self.workers_seen.items()],
        }

    def shutdown(self) -> None:
        for actor in self.actors:
            try:
                self._ray.kill(actor, no_restart=True)
            except Exception:
                pass
