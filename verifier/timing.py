"""GPU timing: warm-up, L2 flushed before every run, interleaved variants, medians of many runs.

Each run is bracketed by CUDA events on the current stream, and every round ends with a whole-device
synchronize, so work that escaped to another stream is at least finished before the next round.
Nothing here runs without a GPU: Triton's interpreter is never timed.
"""

from __future__ import annotations

import logging
import random
import statistics
import time
from typing import Callable

import torch
import triton
import triton.language as tl

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
# How L2Flusher empties the L2 where the GPU can discard L2 lines (sm_80 and later; "write"
# elsewhere); recorded in every result's environment.
FLUSH_MODE = "discard"
LINE_BYTES = 128  # an L2 line; `discard.global.L2` takes exactly one


def peak_bandwidth(device_name: str, measured_copy: float) -> float:
    name = device_name.lower()
    for fragment, bw in PEAK_BANDWIDTH.items():
        if fragment in name:
            return max(bw, measured_copy)
    return 1.5 * measured_copy  # unknown part: the copy bandwidth with generous headroom


@triton.jit
def _read_evict_last(buf_ptr, sink_ptr, n, BLOCK: tl.constexpr):
    """Reads the buffer with the highest keep priority (evict_last), so its lines displace every
    line in the L2, a timed call's evict_last lines too. The masked store keeps the loads from
    being optimized away; the buffer's ones never trigger it (after a discard its values are
    undefined, and then it writes only the scratch sink)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(buf_ptr + offs, mask=offs < n, other=0, eviction_policy="evict_last")
    total = tl.sum(x, 0)
    tl.store(sink_ptr + tl.program_id(0), total, mask=total == -(2**31))


@triton.jit
def _discard_lines(buf_ptr, n_lines, BLOCK: tl.constexpr, WORDS_PER_LINE: tl.constexpr):
    """Drops the buffer's lines from the L2 without writing them back (PTX discard.global.L2):
    the L2 is left empty and clean."""
    line = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    line = tl.minimum(line, n_lines - 1)  # past the end: the last line again (still in bounds)
    tl.inline_asm_elementwise("discard.global.L2 [$1], 128;\n\tmov.u32 $0, 0;", "=r,l",
                              [buf_ptr + line.to(tl.int64) * WORDS_PER_LINE], dtype=tl.int32,
                              is_pure=False, pack=1)


class L2Flusher:
    """Empties the L2 before each timed run, so the run reads its inputs from DRAM.

    `mode="discard"` (FLUSH_MODE, on sm_80 and later) reads a buffer 4x the L2 size with the
    highest keep priority (evict_last), which displaces every line a timed call left, then
    discards the buffer's lines (PTX discard.global.L2): the timed run starts on an empty, clean
    L2. `mode="write"` (the fallback elsewhere) zeroes such a buffer, as triton.testing.do_bench
    does, and has two faults (bench/probe_l2_flush.py, runs/l2-flush-h100-round80.json, H100):
    it leaves the L2 full of dirty lines that the timed run writes back while it reads (1-3 us
    per call at 8-16 MB, 4-10 us at 33-269 MB), and lines loaded with evict_last survive it (a Triton row sum of 8 MB
    took 7.7 us with that hint against 9.5 us without it, 6.8 us with the L2 warm; after the
    discard flush 8.4 against 8.5), so a candidate could keep its inputs cached across timed
    calls. Kept for comparison: `read` (a plain read of such a buffer; evict_last lines survive it
    too, and a softmax entry measured over the device's peak after it) and `write_read`.
    """

    MODES = ("discard", "write", "write_read", "read")

    def __init__(self, device: torch.device, mode: str | None = None):
        if mode is None:
            mode = FLUSH_MODE if flush_mode_supported(device) else "write"
        if mode not in self.MODES:
            raise ValueError(f"L2Flusher mode must be one of {self.MODES}, not {mode!r}")
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 << 20)
        self.mode = mode
        self._graph: torch.cuda.CUDAGraph | bool | None = None  # False: capture failed
        self.capture_error: str | None = None
        n = max(4 * l2, 256 << 20)
        if mode in ("write", "write_read"):
            self.buffer = torch.empty(n, dtype=torch.int8, device=device)
        if mode != "write":
            self.clean = torch.ones(n // 4, dtype=torch.int32 if mode == "discard"
                                    else torch.float32, device=device)
            self.sink = torch.empty(max(n // 4 // 4096, 1), dtype=self.clean.dtype,
                                    device=device)

    def __call__(self) -> None:
        if self.mode == "discard":
            if self._graph is None:
                self._graph = self._capture()
            if self._graph is False:
                self._discard()
            else:
                self._graph.replay()
            return
        if self.mode != "read":
            self.buffer.zero_()
        if self.mode != "write":
            torch.sum(self.clean, dim=0, out=self.sink[0])

    def _discard(self) -> None:
        n = self.clean.numel()
        _read_evict_last[(triton.cdiv(n, 4096),)](self.clean, self.sink, n, BLOCK=4096,
                                                  num_warps=8)
        words = LINE_BYTES // self.clean.element_size()
        lines = n // words
        _discard_lines[(triton.cdiv(lines, 1024),)](self.clean, lines, BLOCK=1024,
                                                    WORDS_PER_LINE=words, num_warps=4)

    def _capture(self) -> "torch.cuda.CUDAGraph | bool":
        """The two launches as one CUDA graph: a replay costs the host a few microseconds where
        two Triton launches cost it tens, and the timer hides a call's host time only while the
        flush still runs on the GPU (GPU round 81: launched directly, the flush's own host time
        showed in small shapes' times)."""
        self._discard()  # compiles both kernels outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        try:
            # thread_local: CUDA calls that other threads of the process may make meanwhile
            # neither fail nor spoil the capture
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                self._discard()
        except RuntimeError as exc:  # the two launches direct: correct, with more host time
            self.capture_error = f"{type(exc).__name__}: {exc}"[:300]
            logging.getLogger("verifier").warning(
                "the L2 flush could not be captured as a CUDA graph (%s); it launches its two "
                "kernels directly, so the host time it hides from timed calls is shorter",
                self.capture_error)
            torch.cuda.synchronize()
            return False
        return graph


def flush_mode_supported(device: torch.device) -> bool:
    """Whether `discard` can run here: a CUDA device of compute capability 8.0 or later."""
    return device.type == "cuda" and torch.cuda.get_device_capability(device)[0] >= 8


# host_ahead: timed calls queued behind one hold (64 x a flush, two events and a call's launches
# stay well inside a stream's queue of pending launches), and the longest hold (a host slower than
# AHEAD_HOLD_MAX_S / 128 a call gets fewer calls a hold)
AHEAD_BATCH = 64
AHEAD_HOLD_MAX_S = 0.05
_SPIN_RATE: dict[int, float] = {}


def _spin_cycles_per_s() -> float:
    """How many cycles of torch.cuda._sleep's spin the current GPU runs a second (measured once)."""
    device = torch.cuda.current_device()
    if device not in _SPIN_RATE:
        torch.cuda._sleep(1000)  # loaded before it is timed
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        torch.cuda.synchronize()
        _SPIN_RATE[device] = 10_000_000 / max(start.elapsed_time(end) * 1e-3, 1e-9)
    return _SPIN_RATE[device]


def _hold(seconds: float) -> None:
    """Keep the GPU busy for about `seconds` (a spin kernel), so that the host queues the next
    calls while it spins."""
    torch.cuda._sleep(max(1, int(min(seconds, AHEAD_HOLD_MAX_S) * _spin_cycles_per_s())))


CALLS_PER_SYNC = 256  # timed calls queued between two reads of their events
# how bench orders the variants' calls, as environment() records it beside every result: until GPU
# round 350 each variant's calls ran in blocks, round by round ("blocks")
CALL_ORDER = "interleaved"


def bench(
    fns: dict[str, Callable[[], object]],
    *,
    flusher: L2Flusher,
    budget_ms: float = 300.0,
    rounds: int = 3,
    min_reps: int = 10,
    max_reps: int = 300,
    host_ahead: bool = False,
    interleave: bool = True,
) -> dict[str, Timing]:
    """Median time of each callable, the variants' calls interleaved one by one in a new order
    each sweep (call_sequence), so that every variant is timed in the same mix of clocks and
    heat. At least min_reps * rounds and at most max_reps * rounds calls of each, as many as
    `budget_ms` allows. `interleave=False`: the order used before GPU round 350, each variant's
    calls in a block of their own, round by round in `fns`' order, for bench/probe_bench_order.py
    to compare; there a block's time depended on the blocks before it (GPU rounds 348-349 on an
    H200, bench/probe_bench_order.py: a GEMM block after four others 12-16% slower than the
    first, a softmax graph after GEMM blocks 9% slower than the same graph after a softmax
    block, and as much with each round's order rotated).

    Each timed call runs right after the flush, and its events bracket only it. The GPU runs the
    call at once only when the host has already queued it: while the host takes less time for a
    flush, two events and a call than the GPU takes to run them, the host stays ahead and the
    time is the GPU's alone; past that, the GPU waits on the host inside the events, and host time
    shows in the result (an H100's flush takes 114 us of GPU time; a composed linear + LayerNorm
    call of 24 us took the host 40-95 us, by the machine, GPU rounds 177-182). `host_ahead`
    keeps the host ahead whatever its speed: before every AHEAD_BATCH timed calls the GPU spins
    for twice the host time the batch is expected to take (measured while warming up), so that
    the batch is queued before it runs. The times are then the GPU's work alone, as graph replays
    give, without capturing a graph: in GPU round 183 (bench/probe_timer_host.py) the default
    timer read 24-123 us for one 24 us call with 55-194 us of host time, host_ahead 23.9-24.5
    and graph replays 23.1-24.4. The verifier times with host_ahead and measures host time apart
    (`host_us`); work that a call holds the host for on the GPU's account (a copy to the host, a
    synchronization) still counts, since the GPU then waits inside the events."""
    for fn in fns.values():  # warm-up: compilation, autotuning, allocator growth stay out
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    est, host_s = {}, {}
    for name, fn in fns.items():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        est[name] = max(start.elapsed_time(end) / 5, 1e-3)
        if host_ahead:  # the host's time for one timed call as the sweeps make it
            began = time.perf_counter()
            for _ in range(5):
                flusher()
                start.record()
                fn()
                end.record()
            host_s[name] = (time.perf_counter() - began) / 5
            torch.cuda.synchronize()
    if interleave:
        sweeps = int(min(max(budget_ms / sum(est.values()), min_reps * rounds),
                         max_reps * rounds))
        sequence = call_sequence(list(fns), sweeps)
    else:
        reps = {name: int(min(max(budget_ms / len(fns) / rounds / t, min_reps), max_reps))
                for name, t in est.items()}
        sequence = [name for _ in range(rounds) for name in fns for _ in range(reps[name])]
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for first in range(0, len(sequence), CALLS_PER_SYNC):
        chunk = sequence[first:first + CALLS_PER_SYNC]
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in chunk]
        holds = dict(hold_plan(chunk, host_s)) if host_ahead else {}
        for i, name in enumerate(chunk):
            if i in holds:
                _hold(holds[i])
            flusher()
            events[i][0].record()
            fns[name]()
            events[i][1].record()
        torch.cuda.synchronize()
        for name, (start, end) in zip(chunk, events):
            samples[name].append(start.elapsed_time(end))
    return {name: _summarize(times) for name, times in samples.items()}


def hold_plan(chunk: list[str], host_s: dict[str, float]) -> list[tuple[int, float]]:
    """host_ahead's holds over a chunk of calls: (the index of the call a hold goes before, its
    seconds). A hold covers the calls up to the next one: AHEAD_BATCH, fewer where a hold that
    long would pass AHEAD_HOLD_MAX_S (at least one), and lasts twice their host time, 20 us more."""
    plan, i = [], 0
    while i < len(chunk):
        end, need = i + 1, 2.0 * host_s[chunk[i]]
        while (end < len(chunk) and end - i < AHEAD_BATCH
               and need + 2.0 * host_s[chunk[end]] <= AHEAD_HOLD_MAX_S):
            need += 2.0 * host_s[chunk[end]]
            end += 1
        plan.append((i, need + 20e-6))
        i = end
    return plan


def call_sequence(names: list[str], sweeps: int, seed: int = 0) -> list[str]:
    """`bench`'s calls: `sweeps` sweeps, each of every name once in an order of its own (a
    seeded shuffle, the same every run), so that no variant always follows the same one."""
    rng = random.Random(seed)
    sequence = []
    for _ in range(sweeps):
        order = list(names)
        rng.shuffle(order)
        sequence += order
    return sequence


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


def captured(fn: Callable[[], object], pool=None) -> tuple[Callable[[], None], object]:
    """`fn` captured once in a CUDA graph: its replay, and what the captured call returned (the
    graph's own output tensors, which each replay rewrites). Warmed up on a side stream first, as
    capture requires. `pool` (`torch.cuda.graph_pool_handle()`) captures into a memory pool that
    other captures share (`graphed_where_possible(..., paired=True)`); by default the graph gets a
    pool of its own."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool):
        out = fn()
    return graph.replay, out


def graphed(fn: Callable[[], object]) -> Callable[[], None]:
    """`fn` captured once in a CUDA graph, returned as its replay (`captured`): timed with
    `bench`, the GPU's work without the host's (Python, dispatch, guards, descriptor encoding)."""
    return captured(fn)[0]


def copies_in_turn(names: list, copies: int) -> list[tuple]:
    """(name, copy) for `copies` copies of each callable, in the order to capture them in: the
    names in turn, reversed every other round (two names, three copies: a b b a a b), so that no
    callable's copies all come first. Two CUDA graphs of one call read up to 5% apart at some
    shapes, the same way in every timing and whatever the calls' order (GPU round 450,
    bench/probe_graph_twins.py): a callable timed as several graphs is timed across that."""
    return [(name, k) for k in range(copies) for name in (names if k % 2 == 0 else names[::-1])]


def merge_copies(timed: dict, names: list, copies: int) -> tuple[dict, dict]:
    """`bench`'s timings of (name, copy) keys (`copies_in_turn`) as one Timing a name, each
    field the mean of its copies' (n their sum), and each name's copies' medians in ms."""
    merged, each = {}, {}
    for name in names:
        runs = [timed[(name, k)] for k in range(copies)]
        each[name] = [t.median_ms for t in runs]
        merged[name] = Timing(median_ms=statistics.fmean(each[name]),
                              p20_ms=statistics.fmean(t.p20_ms for t in runs),
                              p80_ms=statistics.fmean(t.p80_ms for t in runs),
                              n=sum(t.n for t in runs))
    return merged, each


def copy_of(key) -> int:
    """The copy a `bench` key names: k of a (name, k) key (`copies_in_turn`), else 0."""
    return key[1] if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int) else 0


def first_output_address(out) -> int | None:
    """The address of a call's first output tensor (None where it returned none)."""
    while isinstance(out, (tuple, list)) and out:
        out = out[0]
    return out.data_ptr() if isinstance(out, torch.Tensor) else None


def graphed_where_possible(fns: dict, paired: bool = False,
                           addresses: dict | None = None) -> tuple[dict, list[str]]:
    """Each callable replaced by its CUDA-graph replay (`graphed`); one that cannot be captured is
    kept as it is and named, with the reason, in the list returned beside them.

    `paired`: the callables of one copy (`copy_of` their key: every callable of a copy-less dict)
    are captured, in `fns`' order, into one memory pool of that copy's, each call's outputs
    released before the next capture, so that the next call's outputs of the same size land where
    they were. Where a graph's output lies alone moved a 10 us kernel's time by up to 4.6%, and
    graphs writing one address read within 0.13% (GPU round 451, bench/probe_graph_placement.py):
    paired, callables are compared at the same places. The graphs then share memory, so a replay
    may overwrite another graph's outputs: for timing only. `addresses` (a dict) receives each
    captured key's first output address."""
    fns, failed, pools = dict(fns), [], {}
    for name, fn in list(fns.items()):
        pool = None
        if paired:
            if copy_of(name) not in pools:
                pools[copy_of(name)] = torch.cuda.graph_pool_handle()
            pool = pools[copy_of(name)]
        try:
            replay, out = captured(fn, pool)
        except Exception as exc:  # noqa: BLE001 - timed without a graph, and said so
            failed.append(f"{name}: {type(exc).__name__}: {exc}"[:200])
            torch.cuda.synchronize()
            continue
        fns[name] = replay
        if addresses is not None:
            addresses[name] = first_output_address(out)
        del out  # released: in a shared pool, the next capture takes its memory
    return fns, failed


def host_us(fn: Callable[[], object], calls: int = 50, warmup: int = 3, rounds: int = 3) -> float:
    """Host microseconds per call: back-to-back calls with the GPU left to run behind them (no
    synchronization inside the loop), autograd off.

    The least of `rounds` rounds, with Python's garbage collector held off while a round runs: a
    host stall (a collection, another process taking the core) only ever adds time to a round,
    and one such stall inside 20 calls read as a call costing a millisecond (GPU round 105).
    """
    import gc

    per_call = []
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        for _ in range(rounds):
            torch.cuda.synchronize()
            enabled = gc.isenabled()
            gc.disable()
            try:
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                elapsed = time.perf_counter() - start
            finally:
                if enabled:
                    gc.enable()
            torch.cuda.synchronize()
            per_call.append(elapsed / calls * 1e6)
    return min(per_call)


def kernel_times(fns: dict[str, Callable[[], object]], flusher: L2Flusher | None,
                 calls: int = 20) -> dict[str, dict[str, float]]:
    """Each callable's GPU kernels as the CUDA profiler saw them: mean microseconds per call by
    kernel name (the first 90 characters), the L2 flushed before each call as `bench` does (the
    flush's own kernel is listed too), or with `flusher` None the calls back to back, what the
    last call left in L2 kept. What a callable's time is made of."""
    from torch.profiler import ProfilerActivity, profile

    out = {}
    with torch.no_grad():
        for name, fn in fns.items():
            fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(calls):
                    if flusher is not None:
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
