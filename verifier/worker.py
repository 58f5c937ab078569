"""The process a candidate runs in: one that may die (illegal access, hang, OOM) without taking the
caller down. Ray actors (agent.cluster) and `kzoo verify` (a spawned child) both wrap VerifierWorker.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading
import warnings
from dataclasses import dataclass, replace
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Iterator

DEFAULT_TIMEOUT_S = 600.0
# A geometric-mean speedup over the best baseline above this is re-measured in a fresh process with
# new seeds before it is believed; the re-measure must reach REPRODUCE_FRACTION of it.
REMEASURE_SPEEDUP = 2.5
REPRODUCE_FRACTION = 0.7
REMEASURE_SEED_OFFSET = 1000


def detect_mode() -> str:
    """'gpu' when CUDA is usable, else 'interpreter' (Triton's CPU interpreter, never timed)."""
    import torch

    return "gpu" if torch.cuda.is_available() else "interpreter"


@dataclass(frozen=True)
class VerifyRequest:
    task_path: str
    task_source: str
    source: str  # the candidate module's source
    dtype: str
    time: bool = True
    refresh_baselines: bool = False
    seed_offset: int = 0
    remeasure: bool = True  # False inside the re-measure itself
    # on a GPU: check and time at these of the task's shapes instead of all of them (a zoo entry's
    # shape-bucket kernel, which dispatch sends only the shapes of its bucket)
    shapes: tuple[dict, ...] | None = None


class TaskCache:
    """The tasks a worker process has loaded, keyed by the sha256 of their source: a request
    carries the task's source, and an edited task is a new one."""

    def __init__(self) -> None:
        self._tasks: dict[str, object] = {}

    def __call__(self, path: str, source: str):
        import hashlib

        import tasks

        key = hashlib.sha256(source.encode()).hexdigest()
        if key not in self._tasks:
            self._tasks[key] = tasks.load_source(source, Path(path))
        return self._tasks[key]


class VerifierWorker:
    """Holds a Verifier and the tasks it has loaded; returns verdicts as plain dicts."""

    def __init__(self, mode: str, cache_dir: str):
        if mode == "interpreter":
            # Read by triton.jit when a candidate's kernels are decorated, i.e. at import.
            os.environ["TRITON_INTERPRET"] = "1"
            # The interpreter runs a kernel's arithmetic as numpy's, which warns on each inf or
            # NaN it makes ("invalid value encountered in add"). Verdicts judge the outputs
            # themselves; the warnings only flooded `kzoo verify`'s terminal.
            warnings.filterwarnings("ignore", category=RuntimeWarning,
                                    module=r"triton\.runtime\.interpreter")
        from verifier.core import Verifier

        self.mode = mode
        self.verifier = Verifier(mode, Path(cache_dir))
        self._task = TaskCache()

    def verify(self, request: VerifyRequest) -> dict:
        from tasks import TaskError
        from verifier.core import _brief
        from verifier.verdict import Verdict

        try:
            task = self._task(request.task_path, request.task_source)
            if request.shapes is not None and self.mode == "gpu":
                task = replace(task, shapes=tuple(request.shapes))
            verdict = self.verifier.verify(
                task, request.source, request.dtype, time=request.time,
                refresh_baselines=request.refresh_baselines, seed_offset=request.seed_offset,
            )
        except TaskError as exc:  # the task file itself cannot be used: no candidate's fault
            verdict = Verdict.failure("task", self.mode, request.dtype, str(exc))
        except Exception as exc:  # anything unforeseen is the candidate's failure, as data
            verdict = Verdict.failure("error", self.mode, request.dtype, _brief(exc))
        speedup = verdict.speedup_vs_best_baseline
        if request.remeasure and verdict.accepted and speedup and speedup > REMEASURE_SPEEDUP:
            self._remeasure(request, verdict, speedup)
        return verdict.to_dict()

    def _remeasure(self, request: VerifyRequest, verdict, speedup: float) -> None:
        """Believe a large speedup only if a fresh process, with new seeds, sees it too."""
        again = verify_in_subprocess(
            replace(request, seed_offset=request.seed_offset + REMEASURE_SEED_OFFSET,
                    refresh_baselines=True, remeasure=False),
            self.mode, str(self.verifier.cache_dir),
        )
        fresh = again.get("speedup_vs_best_baseline")
        if not again.get("accepted") or not fresh or fresh < REPRODUCE_FRACTION * speedup:
            verdict.reject(
                "unreproducible-speedup",
                f"{speedup:.2f}x over the best baseline was re-measured in a fresh process with new "
                f"seeds as {fresh if fresh is None else round(fresh, 2)}x"
                + ("" if again.get("accepted") else f" (rejected there: {again.get('reasons')})"),
            )

    def copy_gbps(self) -> float | None:
        return self.verifier.copy_gbps


EXIT_GRACE_S = 10.0  # seconds a worker that has answered gets to exit before it is killed
_MASKS = hasattr(signal, "pthread_sigmask")  # not on Windows


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) back for the block and deliver it as the block ends. A process
    spawned inside is born with SIGINT blocked (the mask is inherited) and unblocks it itself.
    Python runs signal handlers in the main thread whichever thread the signal hits, so the
    main thread also swaps in a handler that only takes note; other threads just mask."""
    caught: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    old = signal.getsignal(signal.SIGINT) if main else None
    if old is signal.SIG_IGN:  # ignored (a background job): nothing to hold back, and a
        old = None             # process spawned now inherits the ignoring
    if old is not None:
        signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    blocked = _MASKS and signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK,
                                                                    {signal.SIGINT})
    try:
        yield
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if old is not None:
            signal.signal(signal.SIGINT, old)
            if caught:
                signal.raise_signal(signal.SIGINT)


def _quiet_exit(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def _child(conn, mode: str, cache_dir: str, request: VerifyRequest) -> None:
    # Born with SIGINT held back (`VerifyProcess`). A Ctrl-C belongs to the parent, which
    # reports it and kills its checks: one reaching this process (a terminal sends it to the
    # whole group) ends it without a traceback of its own, unless the parent ignored it.
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _quiet_exit)
    if _MASKS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    worker = VerifierWorker(mode, cache_dir)
    conn.send(worker.verify(request))
    conn.close()


class VerifyProcess:
    """One request verified in a fresh spawned process, started at once: a crash or a hang
    becomes a failed verdict. `conn` becomes readable when the process answers or dies (for
    `multiprocessing.connection.wait` over several); `verdict` waits for the answer, the death or
    `deadline` and returns the verdict; `close` kills a process still running."""

    def __init__(self, request: VerifyRequest, mode: str, cache_dir: str,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        import time

        self.request, self.mode, self.timeout_s = request, mode, timeout_s
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(child, mode, cache_dir, request),
                                 daemon=True)
        # A Ctrl-C between the spawn and the hand-over of the request would leave a child that
        # nobody kills, reading a closed pipe into a traceback: it lands once the start is over.
        # multiprocessing's resource tracker is started first: its start unblocks SIGINT as it
        # ends, which inside the hold would leave the child born with it unblocked.
        resource_tracker.ensure_running()
        try:
            with _interrupts_held():
                self._proc.start()
        except BaseException:
            self.close()
            raise
        finally:
            child.close()
        self.deadline = time.monotonic() + timeout_s

    def verdict(self) -> dict:
        import time

        from verifier.verdict import Verdict

        proc, dtype = self._proc, self.request.dtype
        try:
            if self.conn.poll(max(0.0, self.deadline - time.monotonic())):
                try:
                    data = self.conn.recv()
                except EOFError:
                    pass
                else:
                    # Let it exit on its own: one killed here leaves its semaphores to the
                    # resource tracker, which warns about them at shutdown.
                    proc.join(EXIT_GRACE_S)
                    return data
            else:
                proc.kill()
                proc.join(5)
                return Verdict.failure(
                    "timeout", self.mode, dtype,
                    f"the candidate did not finish within {self.timeout_s:.0f} s (hang or far "
                    "too slow)",
                ).to_dict()
            proc.join(10)
            return Verdict.failure(
                "crash", self.mode, dtype,
                f"the worker process died (exit code {proc.exitcode}) while running the candidate",
            ).to_dict()
        finally:
            self.close()

    def close(self) -> None:
        self.conn.close()
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)


def verify_in_subprocess(
    request: VerifyRequest, mode: str, cache_dir: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> dict:
    """Verify in a fresh spawned process (`VerifyProcess`) and wait for its verdict."""
    return VerifyProcess(request, mode, cache_dir, timeout_s).verdict()
