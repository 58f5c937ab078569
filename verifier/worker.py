"""The process a candidate runs in: one that may die (illegal access, hang, OOM) without taking the
caller down. Ray actors (agent.cluster) and `kzoo verify` (a spawned child) both wrap VerifierWorker.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT_S = 600.0


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


class VerifierWorker:
    """Holds a Verifier and the tasks it has loaded; returns verdicts as plain dicts."""

    def __init__(self, mode: str, cache_dir: str):
        if mode == "interpreter":
            # Read by triton.jit when a candidate's kernels are decorated, i.e. at import.
            os.environ["TRITON_INTERPRET"] = "1"
        from verifier.core import Verifier

        self.mode = mode
        self.verifier = Verifier(mode, Path(cache_dir))
        self._tasks: dict[str, object] = {}

    def _task(self, path: str, source: str):
        import hashlib

        import tasks

        key = hashlib.sha256(source.encode()).hexdigest()
        if key not in self._tasks:
            self._tasks[key] = tasks.load_source(source, Path(path))
        return self._tasks[key]

    def verify(self, request: VerifyRequest) -> dict:
        from verifier.core import _brief
        from verifier.verdict import Verdict

        try:
            task = self._task(request.task_path, request.task_source)
            verdict = self.verifier.verify(
                task, request.source, request.dtype, time=request.time,
                refresh_baselines=request.refresh_baselines,
            )
        except Exception as exc:  # anything unforeseen is the candidate's failure, as data
            verdict = Verdict.failure("crash", self.mode, request.dtype, _brief(exc))
        return verdict.to_dict()

    def copy_gbps(self) -> float | None:
        return self.verifier.copy_gbps


def _child(conn, mode: str, cache_dir: str, request: VerifyRequest) -> None:
    worker = VerifierWorker(mode, cache_dir)
    conn.send(worker.verify(request))
    conn.close()


def verify_in_subprocess(
    request: VerifyRequest, mode: str, cache_dir: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> dict:
    """Verify in a fresh spawned process; a crash or a hang becomes a failed verdict."""
    from verifier.verdict import Verdict

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, mode, cache_dir, request), daemon=True)
    proc.start()
    child.close()
    try:
        if parent.poll(timeout_s):
            try:
                return parent.recv()
            except EOFError:
                pass
        else:
            proc.kill()
            proc.join(5)
            return Verdict.failure(
                "timeout", mode, request.dtype,
                f"the candidate did not finish within {timeout_s:.0f} s (hang or far too slow)",
            ).to_dict()
        proc.join(10)
        return Verdict.failure(
            "crash", mode, request.dtype,
            f"the worker process died (exit code {proc.exitcode}) while running the candidate",
        ).to_dict()
    finally:
        parent.close()
        if proc.is_alive():
            proc.kill()
