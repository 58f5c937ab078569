"""What the split-row kernels' zeroed workspace costs a call, on the rows #3 still misses.

The served split-row kernels (softmax and log-softmax over 128256-wide float32 rows, add +
RMSNorm over 65536-wide ones) exchange their slices' statistics through slot words that must be
0 when the kernel starts, so each call allocates them with `torch.zeros`: in a CUDA graph that is
a fill node before the kernel's. This times, as graph replays (interleaved, L2 flushed):

- `served`: the served launcher, fill and kernel;
- `no fill`: the same launcher with `torch.zeros` answered by a buffer that the timer zeroes
  before each timed call, outside the timed events, so the graph holds the kernel alone;
- `triton fill`: the same launcher with `torch.zeros` answered by torch.empty and a Triton kernel
  that zeroes it (whether a fill of our own does better; the JSON names what torch.zeros runs);
- with `--rendered`, today's template's render of the served params (`rendered`, the template's
  drift from the stored file); round 456 timed `rendered pdl` beside it, the same params with
  `pdl_fill`, a knob since reverted (below). `--knob NAME` (repeatable) adds the render with
  that boolean knob on too (`rendered NAME`), where the op's template has it and allows it.

The gap between the first two is the most a workspace that needs no fill each call could win.
Each variant's output is checked against float64 after the timings.

GPU round 456 (H200; runs/probe-split-workspace-h200-round456*.json): the fill node cost 0.4-2.3 us
a call across the runs (softmax and log-softmax 256x128256, add + RMSNorm 256x65536). Two kernels
that reuse their slots across calls instead (a rendering since removed, timed as `rendered fill` and
`rendered reused`) cost more than the fill: the last of each group to arrive at a count setting its
group's slots back to 0 (acq_rel 2.5-3.1 us more than the served file at softmax, relaxed 2.2-2.4),
or a row's two halves and a parity word flipped each call (6-8 us more). `pdl_fill` (commit fb5730b,
reverted: the slots zeroed by a kernel the split kernel starts beside, which it waits for after its
first row's loads) lost too: softmax 77.7-78.2 us against today's render's 75.6-76.0, log-softmax
71.8-71.9 against 71.0-71.2, add + RMSNorm 71.1 against 71.3-71.4 (-pdl). torch.zeros is a fill
kernel here (at::native::FillFunctor, not a memset), and a Triton kernel zeroing torch.empty's words
ties it (-triton-fill: add + RMSNorm 71.1-71.4 us against 71.1-71.7 served and 69.7-69.9 with no
fill; softmax's gap that run was 0.4 us, log-softmax's 1.4-1.6). `--knob lag_exp_out` (softmax's
row_lag second step from exponentials its first read stored where the output goes; commit 247c435,
reverted) took softmax from 75.1-76.6 us to 94.6-94.7 (-lag-exp-out): the stored words' extra
traffic costs far more than the exponentials saved.

`--epoch` (add + RMSNorm alone) adds `epoch`: the served file with its slot words tagged with the
launch's epoch from a ticket counter before them, in a buffer zeroed once (`_EPOCH_EDITS`, with its
registers capped at the served kernel's 168); it is checked over 20 calls with fresh inputs
first. GPU round 457 (-round457-epoch): 69.4-69.6 us against the served 70.4-70.9 and no fill's
68.7-69.0. The norm template's `epoch_slots` came of it (kernel_zoo.slots keeps its buffers).

It also records whether a capture (torch's default, global mode) tolerates zeroing a buffer on a
side stream that is not capturing, then synchronizing that stream, which is how such a workspace
would be made for a graph without a fill node in it.

    python bench/probe_split_workspace.py [--rendered] [--knob NAME ...] [--epoch] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_ceilings import timed  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

CASES = (("softmax", (256, 128256)), ("log_softmax", (256, 128256)),
         ("add_rms_norm", (256, 65536)))
EPS = 1e-6


class _Torch:
    """`torch`, except that `zeros` hands out views of one buffer (the timer zeroes it)."""

    def __init__(self, buffer: torch.Tensor):
        self._buffer = buffer

    def zeros(self, n, dtype=None, device=None):
        assert dtype == torch.int64 and n <= self._buffer.numel(), (n, dtype)
        return self._buffer[:n]

    def __getattr__(self, name):
        return getattr(torch, name)


@triton.jit
def _zero_words(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros([BLOCK], tl.int64), mask=offs < n)


class _TritonZeros:
    """`torch`, except that `zeros` is torch.empty zeroed by `_zero_words`."""

    def zeros(self, n, dtype=None, device=None):
        assert dtype == torch.int64, dtype
        words = torch.empty(n, dtype=dtype, device=device)
        _zero_words[(triton.cdiv(n, 1024),)](words, n, BLOCK=1024, num_warps=4)
        return words

    def __getattr__(self, name):
        return getattr(torch, name)


class _Persistent:
    """`torch`, except that `zeros` hands out words 1.. of one buffer zeroed once (word 0 is the
    epoch-tagged form's ticket counter), never zeroed again."""

    def __init__(self, buffer: torch.Tensor):
        self._buffer = buffer

    def zeros(self, n, dtype=None, device=None):
        assert dtype == torch.int64 and n < self._buffer.numel(), (n, dtype)
        return self._buffer[1:n + 1]

    def __getattr__(self, name):
        return getattr(torch, name)


# --epoch: the served RMSNorm split-ahead file made to tag its slot words with the launch's epoch
# instead of relying on words zeroed for each call. Each program takes a ticket from a counter
# just before the slots (word 0 of a buffer zeroed once); launches on one stream are ordered, so
# one launch's tickets are one block of 65536 (the last program pads the count to the next
# block) and the block's index + 1 is the epoch. A word holds the slice's sum of squares over
# the epoch's low 32 bits (never 0: an unwritten word never matches), and a reader waits until
# its partners' words carry this launch's epoch.
_EPOCH_HELPERS = """

@triton.jit
def _launch_tag(counter_ptr):
    t = tl.atomic_add(counter_ptr, 1, sem="relaxed")
    n = tl.num_programs(0)
    if (t & 0xFFFF) == n - 1:
        tl.atomic_add(counter_ptr, 65536 - n, sem="relaxed")
    return ((t >> 16) % 0xFFFFFFFF) + 1


@triton.jit
def _publish_tagged(slot_ptr, a, tag):
    high = a.to(tl.int32, bitcast=True).to(tl.int64) << 32
    tl.atomic_xchg(slot_ptr, high | tag, sem="relaxed")


@triton.jit
def _gather_tagged(slot_ptr, lanes, tag):
    words = tl.load(slot_ptr + lanes, volatile=True)
    while tl.sum(((words & 0xFFFFFFFF) != tag).to(tl.int32), axis=0) > 0:
        words = tl.load(slot_ptr + lanes, volatile=True)
    a = (words >> 32).to(tl.int32).to(tl.float32, bitcast=True)
    return a, a
"""
_EPOCH_EDITS = (
    ("\n\n@triton.jit\ndef _norm_split_ahead_kernel(",
     _EPOCH_HELPERS + "\n\n@triton.jit\ndef _norm_split_ahead_kernel("),
    ("    parts = tl.arange(0, SPLIT)\n    if HAS_W:",
     "    parts = tl.arange(0, SPLIT)\n    tag = _launch_tag(slot_ptr - 1)\n    if HAS_W:"),
    ("_publish_pair(slot_ptr + first64 * SPLIT + part, next_a, next_b)",
     "_publish_tagged(slot_ptr + first64 * SPLIT + part, next_a, tag)"),
    ("_publish_pair(slot_ptr + (row + stride) * SPLIT + part, next_a, next_b)",
     "_publish_tagged(slot_ptr + (row + stride) * SPLIT + part, next_a, tag)"),
    ("stat_a, stat_b = _gather_pairs(slot_ptr + row * SPLIT, parts)",
     "stat_a, stat_b = _gather_tagged(slot_ptr + row * SPLIT, parts, tag)"),
    # the served kernel's 168 registers a thread, where the tagged one takes 184: six 2-warp
    # programs an SM as served, not five (which the stored file's occupancy count, from before
    # round 455's quadrant counting, would launch cooperatively where only four fit: refused)
    ("    kwargs = dict(kwargs or {}, SPLIT=ROW_SPLIT,",
     "    kwargs = dict(kwargs or {}, maxnreg=168, SPLIT=ROW_SPLIT,"),
)


def epoch_source(source: str) -> str:
    """The served add + RMSNorm split-ahead file with epoch-tagged slot words (above); its
    launcher's torch.zeros must hand out words after a counter (`_Persistent`)."""
    for old, new in _EPOCH_EDITS:
        if source.count(old) != 1:
            raise ValueError(f"{old.strip()[:60]!r} is not once in the served file: not the "
                             "split-ahead RMSNorm form the probe knows")
        source = source.replace(old, new)
    return source


def zeros_kernels() -> list[str]:
    """The GPU activities torch.zeros of 8192 int64 words runs (a fill kernel or a memset)."""
    from torch.profiler import ProfilerActivity, profile

    torch.zeros(8192, dtype=torch.int64, device="cuda")
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.zeros(8192, dtype=torch.int64, device="cuda")
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})


def served_source(op: str, x: torch.Tensor) -> tuple[dict, str, str]:
    """(params, source, bucket) of the zoo's served file for x on this GPU."""
    from kernel_zoo._home import SHIPPED_ZOO
    from kernel_zoo.buckets import bucket_of
    from tune_buckets import served_file

    bucket = bucket_of(op, tuple(x.shape))
    params, source = served_file(SHIPPED_ZOO, op, "sm_90", str(x.dtype).split(".")[-1], bucket,
                                 torch.cuda.get_device_name(x.device))
    return params, source, bucket


def rendered_module(op: str, params: dict, workdir: Path):
    """Today's template's render of `params` for `op`; None where they name no valid config."""
    import tasks
    from agent.plan import plan
    from verifier.core import load_candidate

    found = plan(tasks.load(ROOT / "tasks" / f"{op}.py"))
    template = found.template_object()
    if set(params) - {p.name for p in template.space}:
        return None
    cfg = template.config(params)
    if template.violations(cfg):
        return None
    return load_candidate(template.render(cfg, **found.context), workdir)


def case_fns(op: str, shape, workdir: Path, buffers: list, rendered: bool = False,
             knobs=(), epoch: bool = False) -> tuple[dict, dict, dict]:
    from verifier.core import load_candidate

    torch.manual_seed(0)
    x = torch.randn(*shape, device="cuda")
    if op == "add_rms_norm":
        r = torch.randn_like(x)
        w = torch.rand(shape[-1], device="cuda") + 0.5
        s64 = x.double() + r.double()
        want = (s64 * torch.rsqrt(s64.pow(2).mean(-1, keepdim=True) + EPS) * w.double(), s64)

        def call(m):
            return lambda: m.launch_add_rms_norm(x, r, w, EPS)
    else:
        want = (getattr(torch, op)(x.double(), dim=-1),)

        def call(m):
            return lambda: getattr(m, f"launch_{op}")(x, -1)
    # three modules of the served file: as served, and two whose `torch` the probe replaces
    params, source, bucket = served_source(op, x)
    plain, patched, filled = (load_candidate(source, workdir) for _ in range(3))
    buffer = torch.zeros(1 << 20, dtype=torch.int64, device="cuda")
    buffers.append(buffer)
    patched.torch = _Torch(buffer)
    filled.torch = _TritonZeros()
    fns = {f"{op} served": call(plain), f"{op} no fill": call(patched),
           f"{op} triton fill": call(filled)}
    if epoch and op == "add_rms_norm":
        tagged = load_candidate(epoch_source(source), workdir)
        # zeroed once, here; not in `buffers`, which the timer zeroes before every call
        tagged.torch = _Persistent(torch.zeros(1 << 20, dtype=torch.int64, device="cuda"))
        fns[f"{op} epoch"] = call(tagged)
        for k in range(20):  # fresh inputs each call: a stale word would show
            xs, rs = torch.randn_like(x), torch.randn_like(x)
            s64 = xs.double() + rs.double()
            ref = s64 * torch.rsqrt(s64.pow(2).mean(-1, keepdim=True) + EPS) * w.double()
            got = tagged.launch_add_rms_norm(xs, rs, w, EPS)
            assert rel_err(got, (ref, s64)) < 1e-6, (k, rel_err(got, (ref, s64)))
    if rendered:
        module = rendered_module(op, params, workdir)
        if module is not None:  # (None: params of a knob today's template no longer has)
            fns[f"{op} rendered"] = call(module)
        for knob in knobs:
            module = rendered_module(op, dict(params, **{knob: True}), workdir)
            if module is not None:
                fns[f"{op} rendered {knob}"] = call(module)
    return fns, want, {"params": params, "bucket": bucket}


def rel_err(got, want) -> float:
    got = got if isinstance(got, tuple) else (got,)
    return max(float((g.double() - w).norm() / w.norm()) for g, w in zip(got, want))


def capture_with_side_fill() -> dict:
    """Whether a global-mode capture survives a buffer zeroed on a non-capturing side stream
    and that stream synchronized, and whether the buffer came out zero outside the graph."""
    side = torch.cuda.Stream()
    x = torch.randn(1024, device="cuda")
    graph = torch.cuda.CUDAGraph()
    made = {}
    try:
        with torch.cuda.graph(graph):
            y = x * 2
            with torch.cuda.stream(side):
                made["ws"] = torch.full((4096,), 7, dtype=torch.int64, device="cuda")
                made["ws"].zero_()
            side.synchronize()
            y = y + 1
        graph.replay()
        torch.cuda.synchronize()
        return {"captured": True, "zero": bool((made["ws"] == 0).all()),
                "graph_right": bool(torch.equal(y, x * 2 + 1))}
    except Exception as exc:  # noqa: BLE001 - the answer this records
        torch.cuda.synchronize()
        return {"captured": False, "error": f"{type(exc).__name__}: {exc}"[:300]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rendered", action="store_true",
                        help="also today's render of the served params")
    parser.add_argument("--knob", action="append", default=[],
                        help="with --rendered: also the render with this boolean knob on")
    parser.add_argument("--epoch", action="store_true",
                        help="also add + RMSNorm's served file with epoch-tagged slot words "
                             "(no fill; checked over 20 calls first)")
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("probe_split_workspace.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    flusher = L2Flusher(torch.device("cuda"))
    buffers: list = []

    def flush():
        for b in buffers:
            b.zero_()
        flusher()

    result = {"benchmark": "probe_split_workspace", "environment": environment(),
              "torch_zeros_runs": zeros_kernels(), "cases": []}
    print("torch.zeros runs:", result["torch_zeros_runs"], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for op, shape in CASES:
            if args.epoch and op != "add_rms_norm":
                continue
            fns, want, meta = case_fns(op, shape, Path(tmp), buffers, args.rendered,
                                       args.knob, args.epoch)
            names = list(fns)
            copies = {f"{n} #{k}": fns[n] for k in range(2) for n in (names if k == 0
                                                                      else names[::-1])}
            times, failed = timed(copies, flush)
            errs = {}
            for n, fn in fns.items():
                flush()
                errs[n] = rel_err(fn(), want)
            row = {"op": op, "shape": list(shape), "dtype": "float32", **meta, "us": times,
                   "graph_failed": failed, "max_rel_l2_err": errs}
            print(json.dumps(row), flush=True)
            result["cases"].append(row)
    if args.rendered or args.epoch:
        result["capture_with_side_fill"] = "not run (GPU round 456: invalidated)"
        return _write(result, args.out)
    result["capture_with_side_fill"] = capture_with_side_fill()
    print(json.dumps(result["capture_with_side_fill"]), flush=True)
    return _write(result, args.out)


def _write(result: dict, folder: str) -> int:
    out = Path(folder) / f"probe-split-workspace-{device_label()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
