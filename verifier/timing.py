"""GPU timing: warm-up, L2 flushed before every run, interleaved variants, medians of many runs.

Each run is bracketed by CUDA events on the current stream, and every round ends with a whole-device
synchronize, so work that escaped to another stream is at least finished before the next round.
Nothing here runs without a GPU: Triton's interpreter is never timed.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

import torch

from verifier.verdict import Timing

# Datasheet peak memory bandwidth (bytes/s) by device-name fragment: a time implying more is impossible.
PEAK_BANDWIDTH = {
    "h200": 4.8e12,
    "h100 pcie": 2.0e12,
    "h100": 3.35e12,
    "a100-sxm4-80gb": 2.04e12,
    "a100 80gb pcie": 1.94e12,
    "a100": 1.56e12,
}


def peak_bandwidth(device_name: str, measured_copy: float) -> float:
    name = device_name.lower()
    for fragment, bw in PEAK_BANDWIDTH.items():
        if fragment in name:
            return max(bw, measured_copy)
    return 1.5 * measured_copy  # unknown part: the copy bandwidth with generous headroom


class L2Flusher:
    """Writes a buffer several times the L2 size, so each timed run reads its inputs from DRAM."""

    def __init__(self, device: torch.device):
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
        self.buffer = torch.empty(max(4 * l2, 256 << 20), dtype=torch.int8, device=device)

    def __call__(self) -> None:
        self.buffer.zero_()


def bench(
    fns: dict[str, Callable[[], object]],
    *,
    flusher: L2Flusher,
    budget_ms: float = 300.0,
    rounds: int = 3,
    min_reps: int = 10,
    max_reps: int = 300,
) -> dict[str, Timing]:
    """Median time of each callable, variants interleaved round by round against clock drift."""
    for fn in fns.values():  # warm-up: compilation, autotuning, allocator growth stay out
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    reps = {}
    for name, fn in fns.items():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        est = max(start.elapsed_time(end) / 5, 1e-3)
        reps[name] = int(min(max(budget_ms / len(fns) / rounds / est, min_reps), max_reps))

    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = reps[name]
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            for i in range(n):
                flusher()
                starts[i].record()
                fn()
                ends[i].record()
            torch.cuda.synchronize()
            samples[name].extend(s.elapsed_time(e) for s, e in zip(starts, ends))
    return {name: _summarize(times) for name, times in samples.items()}


def _summarize(times: list[float]) -> Timing:
    ordered = sorted(times)
    q = statistics.quantiles(ordered, n=5) if len(ordered) >= 5 else [ordered[0]] * 4
    return Timing(
        median_ms=statistics.median(ordered), p20_ms=q[0], p80_ms=q[3], n=len(ordered)
    )


def copy_bandwidth(device: torch.device, flusher: L2Flusher, nbytes: int = 1 << 30) -> float:
    """Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    timing = bench({"copy": lambda: dst.copy_(src)}, flusher=flusher, budget_ms=200.0)["copy"]
    return 2 * nbytes / (timing.median_ms * 1e-3)


def graphed(fn: Callable[[], object]) -> Callable[[], None]:
    """`fn` captured once in a CUDA graph, returned as its replay: timed with `bench`, the GPU's
    work without the host's (Python, dispatch, guards, descriptor encoding). Warmed up on a side
    stream first, as capture requires."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def graphed_where_possible(fns: dict[str, Callable[[], object]]) -> tuple[dict, list[str]]:
    """Each callable replaced by its CUDA-graph replay (`graphed`); one that cannot be captured is
    kept as it is and named, with the reason, in the list returned beside them."""
    fns, failed = dict(fns), []
    for name, fn in list(fns.items()):
        try:
            fns[name] = graphed(fn)
        except Exception as exc:  # noqa: BLE001 - timed without a graph, and said so
            failed.append(f"{name}: {type(exc).__name__}: {exc}"[:200])
            torch.cuda.synchronize()
    return fns, failed


def host_us(fn: Callable[[], object], calls: int = 50, warmup: int = 3) -> float:
    """Host microseconds per call: back-to-back calls with the GPU left to run behind them (no
    synchronization inside the loop), autograd off."""
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
    return elapsed / calls * 1e6


def kernel_times(fns: dict[str, Callable[[], object]], flusher: L2Flusher,
                 calls: int = 20) -> dict[str, dict[str, float]]:
    """Each callable's GPU kernels as the CUDA profiler saw them: mean microseconds per call by
    kernel name (the first 90 characters), the L2 flushed before each call as `bench` does (the
    flush's own kernel is listed too). What a callable's time is made of."""
    from torch.profiler import ProfilerActivity, profile

    out = {}
    with torch.no_grad():
        for name, fn in fns.items():
            fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(calls):
                    flusher()
                    fn()
                torch.cuda.synchronize()
            kernels: dict[str, float] = {}
            for event in prof.events():
                if event.device_type == torch.autograd.DeviceType.CUDA:
                    key = event.name[:90]
                    kernels[key] = kernels.get(key, 0.0) + event.device_time / calls
            out[name] = {k: round(v, 2) for k, v in kernels.items()}
    return out
