"""Ray: a local instance by default (or an existing cluster), one verifier actor per GPU, and
CPU-only prepare actors that guard and compile the next candidates beside them (verifier.prepare).

An actor that dies (illegal memory access, segfault, OOM) or overruns its time is killed and restarted
by Ray; the candidate it held is recorded as failed with the cause, never retried.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

from agent.errors import ClusterError
from verifier.prepare import MAX_BUILT
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


_terminated = False


def stopped_by() -> tuple[str, int]:
    """How an interrupted command says it ended, and its exit code: a Ctrl-C (130), or a SIGTERM
    (systemd's stop, Kubernetes', `timeout`'s) that `_sigterm_as_ctrl_c` turned into one (143, as
    the signal would end it)."""
    return ("terminated (SIGTERM)", 128 + 15) if _terminated else ("interrupted", 130)


def _sigterm_as_ctrl_c(signum, frame) -> None:
    """A SIGTERM stops the run as a Ctrl-C does (its SIGINT handler: the search's, which stops at
    its next step, or Python's), so the study, the sweep's state and the --json result are kept
    and the command exits 143 (`stopped_by`)."""
    global _terminated
    _terminated = True
    os.kill(os.getpid(), signal.SIGINT)


def take_sigterm() -> None:
    """Replace the SIGTERM handling ray.init installs in the driver, whose exit dumps Ray's C++
    stack and, a slow shutdown past 3 s, aborts (exit 134): `_sigterm_as_ctrl_c`. Not where
    SIGINT is ignored (a background job: SIGTERM then ends the process as by default), and only
    in the main thread."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN):
        signal.signal(signal.SIGTERM, _sigterm_as_ctrl_c)


def init_ray(address: str | None, mode: str, workers: int,
             local_gpus: int | None = None) -> dict[str, Any]:
    """Start or join Ray; returns what a report needs about it.

    `workers`: the actors of the run (verifiers and prepare workers), each taking one CPU; a local
    instance declares at least that many CPUs so none waits for another's.

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
            gpus = local_gpu_count(mode, local_gpus)
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
        take_sigterm()
    resources = ray.cluster_resources()
    return {"address": address or "local", "gpus": int(resources.get("GPU", 0)),
            "cpus": int(resources.get("CPU", 0))}


def local_gpu_count(mode: str, local_gpus: int | None = None) -> int:
    """GPUs a local Ray instance declares: `local_gpus` when given (tests), else the devices here."""
    if local_gpus is not None:
        return local_gpus
    if mode != "gpu":
        return 0
    import torch

    return torch.cuda.device_count()


def _actor_class():
    import ray

    @ray.remote(max_restarts=-1, max_task_retries=0)
    class VerifierActor:
        def __init__(self, mode: str, cache_dir: str):
            from verifier.prepare import CompileCounter

            self.worker = VerifierWorker(mode, cache_dir)
            # Counts, never changes, Triton's compilations here: with the prepare stage on, the
            # first call of a candidate's kernel should load a binary, not build one.
            self.compiles = CompileCounter()

        def verify(self, request: VerifyRequest) -> dict:
            import ray

            started = time.monotonic()
            before = self.compiles.counts()
            built_before = len(self.compiles.built)
            verdict = self.worker.verify(request)
            verdict["worker_seconds"] = time.monotonic() - started
            verdict["worker"] = {"pid": os.getpid(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()]}
            after = self.compiles.counts()
            verdict["worker_compiles"] = {k: after[k] - before[k] for k in after}
            verdict["worker_built"] = self.compiles.built[built_before:]
            cuda_gone = self.worker.mode == "gpu" and any(
                m in r for r in verdict.get("reasons", []) for m in CUDA_ERROR_MARKERS
            )
            # A candidate that patched a module was caught, but the patch lives on in this
            # process; like a lost CUDA context, that calls for a fresh one.
            if cuda_gone or "module-patching" in verdict.get("exploits", []):
                verdict["worker_poisoned"] = True
            return verdict

        def describe(self) -> dict:
            """Where this actor runs and what it compiles for: the prepare stage matches it."""
            import ray

            from verifier.prepare import CompileTarget, triton_cache_dir

            info = {"pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id(),
                    "gpu_ids": [str(g) for g in ray.get_gpu_ids()], "target": None,
                    "triton_cache_dir": None, "device_name": None}
            if self.worker.mode == "gpu":
                import torch

                info.update(target=CompileTarget.of_current_device(),
                            triton_cache_dir=triton_cache_dir(),
                            device_name=torch.cuda.get_device_name())
            return info

        def pid(self) -> int:
            return os.getpid()

    return VerifierActor


def _prepare_actor_class():
    import ray

    @ray.remote(max_restarts=-1, max_task_retries=0)
    class PrepareActor:
        def __init__(self, mode: str, cache_dir: str):
            from verifier import runtime

            # This process compiles for an explicit target and must never touch a GPU (a CUDA
            # context here would take memory from, and could disturb, the verifier's timing). The
            # runtime env empties CUDA_VISIBLE_DEVICES too; this covers a reused worker process.
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
            try:
                os.nice(10)  # the verifier actors on this node come first for the CPU
            except OSError:
                pass
            runtime.snapshot()  # its first call imports torch._dynamo: pay that while starting
            self.mode, self.cache_dir = mode, cache_dir
            self.preparer = None

        def configure(self, home: dict) -> int:
            """Compile for this verifier actor's GPU, into its Triton cache (`home`: its
            describe()). Ray runs it once that actor has answered, so this process starts
            beside the verifiers rather than after them; the pool calls it again after a
            restart."""
            from verifier.prepare import Preparer

            self.preparer = Preparer(self.mode, self.cache_dir, home["target"],
                                     home["triton_cache_dir"], home["device_name"])
            return os.getpid()

        def prepare(self, request) -> dict:
            import ray

            result = self.preparer.prepare(request)
            result["worker"] = {"pid": os.getpid(),
                                "node_id": ray.get_runtime_context().get_node_id()}
            if result["patched"]:
                result["worker_poisoned"] = True
            return result

        def pid(self) -> int:
            return os.getpid()

    return PrepareActor


@dataclass
class InFlight:
    slot: int
    started: float
    payload: Any
    timeout_reason: str | None = None


class ActorPool:
    """Actors in slots: submit to a free slot, collect results with a time limit enforced.

    An actor that dies (or is killed for overrunning `timeout_s`, or for having been poisoned by a
    candidate) is restarted by Ray; the request it held becomes a failure with the cause, never
    retried. Subclasses say how to call an actor and what a failure looks like.
    """

    role = "worker"

    def __init__(self, actors: list, mode: str, timeout_s: float):
        import ray

        self._ray = ray
        self.actors = actors
        self.mode = mode
        self.timeout_s = timeout_s
        self.inflight: dict[Any, InFlight] = {}
        self.busy: set[int] = set()
        self.restarts = 0
        # Slots whose actor died or was killed: pinged until Ray has it back, so the next
        # request is not lost to the restart window.
        self.recovering: dict[int, tuple[Any, int, float]] = {}  # slot -> (ping, tries, since)
        self.max_pings = 120
        self.start_limit_s = 600.0

    @property
    def free_slots(self) -> list[int]:
        return [i for i in range(len(self.actors))
                if i not in self.busy and i not in self.recovering]

    def _call(self, actor, request):
        raise NotImplementedError

    def _failed(self, info: InFlight, stage: str, reason: str) -> dict:
        raise NotImplementedError

    def _finished(self, info: InFlight, result: dict) -> None:
        """Bookkeeping on a result before it is handed back."""

    def submit(self, slot: int, request: Any, payload: Any) -> None:
        ref = self._call(self.actors[slot], request)
        self.inflight[ref] = InFlight(slot, time.monotonic(), payload)
        self.busy.add(slot)

    def _restart(self, slot: int) -> None:
        # no_restart=False: Ray brings the actor back with a fresh process (and CUDA context).
        self._ray.kill(self.actors[slot], no_restart=False)
        self.restarts += 1

    def _ping(self, slot: int):
        """A call that answers once the actor in `slot` is up and ready for requests."""
        return self.actors[slot].pid.remote()

    def _recover(self, slot: int) -> None:
        self.recovering[slot] = (self._ping(slot), 0, time.monotonic())

    def _check_recovering(self) -> None:
        from ray.exceptions import RayActorError

        if not self.recovering:
            return
        pings = {ping: slot for slot, (ping, _, _) in self.recovering.items()}
        answered, _ = self._ray.wait(list(pings), num_returns=len(pings), timeout=0)
        now = time.monotonic()
        for ping in answered:
            slot = pings[ping]
            _, tries, since = self.recovering[slot]
            try:
                self._ray.get(ping)
            except RayActorError:
                if tries >= self.max_pings:
                    raise ClusterError(
                        f"{self.role} {slot} did not come back after a restart; Ray could not "
                        "start a replacement (see `ray status` and the Ray logs)"
                    ) from None
                time.sleep(0.25)
                self.recovering[slot] = (self._ping(slot), tries + 1, since)
                continue
            del self.recovering[slot]
        for slot, (_, _, since) in self.recovering.items():
            if now - since > self.start_limit_s:
                raise ClusterError(
                    f"{self.role} {slot} has not started in {self.start_limit_s:.0f} s; the "
                    "cluster may lack a free CPU or GPU for it (see `ray status`)"
                )

    def collect(self, wait_s: float = 1.0) -> list[tuple[Any, dict]]:
        """Finished (payload, result) pairs; timeouts and dead actors become failures."""
        from ray.exceptions import RayActorError, RayTaskError

        done: list[tuple[Any, dict]] = []
        self._check_recovering()
        if not self.inflight:
            if self.recovering and wait_s > 0:
                time.sleep(min(wait_s, 0.25))
            return done
        refs = list(self.inflight)
        ready, _ = self._ray.wait(refs, num_returns=1, timeout=wait_s)
        if ready:
            ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
        for ref in ready:
            info = self.inflight.pop(ref)
            self.busy.discard(info.slot)
            try:
                result = self._ray.get(ref)
            except (RayActorError, RayTaskError) as exc:
                if info.timeout_reason:
                    result = self._failed(info, "timeout", info.timeout_reason)
                else:
                    result = self._failed(info, "crash", f"the {self.role} died while running "
                                          f"the candidate: {type(exc).__name__}")
                self._recover(info.slot)
            if result.pop("worker_poisoned", False):
                self._restart(info.slot)
                self._recover(info.slot)
            self._finished(info, result)
            done.append((info.payload, result))
        now = time.monotonic()
        for info in self.inflight.values():
            if now - info.started > self.timeout_s and not info.timeout_reason:
                info.timeout_reason = (
                    f"the candidate did not finish within {self.timeout_s:.0f} s in the "
                    f"{self.role} (hang or far too slow)"
                )
                self._restart(info.slot)  # its pending call fails with RayActorError next round
        return done

    def abandon(self) -> list[Any]:
        """Stop waiting for every request in flight; their payloads, whose results never come."""
        payloads = [info.payload for info in self.inflight.values()]
        self.inflight.clear()
        self.busy.clear()
        return payloads

    def shutdown(self) -> None:
        for actor in self.actors:
            try:
                self._ray.kill(actor, no_restart=True)
            except Exception:
                pass


def wait_any(pools: list[ActorPool], wait_s: float) -> None:
    """Block until a request of any of the pools finishes, or `wait_s` passes."""
    import ray

    refs = [ref for pool in pools for ref in pool.inflight]
    refs += [ping for pool in pools for ping, _, _ in pool.recovering.values()]  # an actor back
    if refs:
        ray.wait(refs, num_returns=1, timeout=wait_s)


class VerifierPool(ActorPool):
    """N verifier actors (one per GPU where the cluster has GPUs); verdicts as dicts."""

    role = "verifier worker"

    def __init__(self, n: int, mode: str, cache_dir: str, timeout_s: float,
                 gpus_per_actor: int = 0):
        actor = _actor_class()
        env = {"TRITON_INTERPRET": "1"} if mode == "interpreter" else {}
        # One GPU per actor where the cluster has GPUs: Ray then places one actor per device.
        actors = [
            actor.options(
                num_gpus=gpus_per_actor, num_cpus=1,
                runtime_env={"env_vars": env} if env else None,
            ).remote(mode, cache_dir)
            for _ in range(n)
        ]
        super().__init__(actors, mode, timeout_s)
        self.gpus_per_actor = gpus_per_actor
        self.started = time.monotonic()
        self.verified = 0  # candidates that came back with a verdict, crashes and timeouts included
        self.busy_s = 0.0  # time actors spent verifying
        self.workers_seen: dict[int, list[str]] = {}  # pid -> the GPU ids Ray gave it
        self.compiles = {"compiled": 0, "cache_hits": 0, "compile_s": 0.0}
        self.built: list[str] = []  # the kernels the actors built, the first few (CompileCounter)
        self.homes: list[dict] = []  # describe()'s answer per slot, once asked for
        self._describe_refs: list = []

    def _call(self, actor, request: VerifyRequest):
        return actor.verify.remote(request)

    def _failed(self, info: InFlight, stage: str, reason: str) -> dict:
        from verifier.verdict import Verdict

        return Verdict.failure(stage, self.mode, "", reason).to_dict()

    def _finished(self, info: InFlight, result: dict) -> None:
        self.verified += 1
        self.busy_s += result.pop("worker_seconds", time.monotonic() - info.started)
        worker = result.pop("worker", None)
        if worker:
            self.workers_seen[worker["pid"]] = worker["gpu_ids"]
        for key, value in (result.pop("worker_compiles", None) or {}).items():
            self.compiles[key] = self.compiles.get(key, 0) + value
        self.built = (self.built + (result.pop("worker_built", None) or []))[:MAX_BUILT]

    def describe_refs(self) -> list:
        """ObjectRefs of each actor's describe(): node, GPUs, compile target, Triton cache dir."""
        if not self._describe_refs:
            self._describe_refs = [a.describe.remote() for a in self.actors]
        return self._describe_refs

    def is_up(self, slot: int) -> bool:
        """Whether the actor in `slot` has started (answered describe()); never waits."""
        ref = self.describe_refs()[slot]
        return bool(self._ray.wait([ref], timeout=0)[0])

    def device_name(self) -> str | None:
        """The GPU's name as a verifier actor reported it, if one has yet (never waits)."""
        from ray.exceptions import RayError

        refs = self.describe_refs()
        ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
        for ref in ready:
            try:
                return self._ray.get(ref)["device_name"]
            except RayError:  # that actor died starting; another may have answered
                continue
        return None

    def describe(self, timeout_s: float = 300.0) -> list[dict]:
        """describe() of every actor, waiting for them to start."""
        from ray.exceptions import GetTimeoutError, RayActorError

        try:
            self.homes = self._ray.get(self.describe_refs(), timeout=timeout_s)
            return self.homes
        except (GetTimeoutError, RayActorError) as exc:
            raise ClusterError(
                f"the verifier workers did not start within {timeout_s:.0f} s ({type(exc).__name__})"
                "; see `ray status` and the Ray logs"
            ) from None

    def throughput(self) -> dict[str, Any]:
        """Verified candidates per minute (and per actor- and GPU-minute) and how idle actors were."""
        wall_s = max(time.monotonic() - self.started, 1e-9)
        actors = len(self.actors)
        gpus = actors * self.gpus_per_actor
        return {
            "verified": self.verified,
            "wall_s": round(wall_s, 2),
            "actors": actors,
            "candidates_per_minute": round(self.verified * 60 / wall_s, 3),
            "candidates_per_actor_minute": round(self.verified * 60 / wall_s / actors, 3),
            "candidates_per_gpu_minute": (round(self.verified * 60 / wall_s / gpus, 3)
                                          if gpus else None),
            "idle_fraction": round(max(0.0, 1 - self.busy_s / (wall_s * actors)), 3),
            "verifier_compiles": {**{k: round(v, 3) for k, v in self.compiles.items()},
                                  "built": self.built},
            "workers": [{"pid": pid, "gpu_ids": ids} for pid, ids in self.workers_seen.items()],
        }


class PreparePool(ActorPool):
    """CPU-only actors that guard, import and (for a GPU) compile candidates ahead of the verifiers.

    Each is placed on the node of a verifier actor (round robin; soft, so a cluster short of CPUs
    there still gets one somewhere) and compiles for that actor's GPU into that actor's Triton
    cache directory; a prepared candidate then prefers a GPU slot on the same node.
    """

    role = "prepare worker"

    def __init__(self, n: int, verifiers: VerifierPool, mode: str, cache_dir: str,
                 timeout_s: float):
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        actor = _prepare_actor_class()
        env = {"CUDA_VISIBLE_DEVICES": ""}
        if mode == "interpreter":
            env["TRITON_INTERPRET"] = "1"
        refs = verifiers.describe_refs()
        # On one node there is nothing to place: start at once, beside the verifiers' start-up.
        # On several, wait for the verifiers to know their nodes and follow them there.
        homes = verifiers.describe() if len([n for n in ray.nodes() if n["Alive"]]) > 1 else []
        actors = []
        for i in range(n):
            placement = ({"scheduling_strategy": NodeAffinitySchedulingStrategy(
                homes[i % len(homes)]["node_id"], soft=True)} if homes else {})
            actors.append(actor.options(
                num_cpus=1, num_gpus=0, runtime_env={"env_vars": env}, **placement,
            ).remote(mode, cache_dir))
        self.home_refs = [refs[i % len(refs)] for i in range(n)]
        super().__init__(actors, mode, timeout_s)
        for slot in range(n):
            # Nothing is sent to a prepare worker before it is up and configured, so that its
            # start-up (imports, waiting for its verifier) never counts against a candidate's time.
            self._recover(slot)
        self.prepared = 0
        self.seconds = 0.0
        self.workers_seen: set[int] = set()

    def _call(self, actor, request):
        return actor.prepare.remote(request)

    def _ping(self, slot: int):
        # Ray resolves the describe() reference before the call runs: the verifier is up too.
        return self.actors[slot].configure.remote(self.home_refs[slot])

    def _failed(self, info: InFlight, stage: str, reason: str) -> dict:
        from verifier.verdict import Verdict

        return {"verdict": Verdict.failure(stage, self.mode, "", reason).to_dict(),
                "failed": stage}

    def _finished(self, info: InFlight, result: dict) -> None:
        self.prepared += 1
        self.seconds += result.get("seconds", time.monotonic() - info.started)
        worker = result.get("worker")
        if worker:
            self.workers_seen.add(worker["pid"])
