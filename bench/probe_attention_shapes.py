"""Probe: the attention template's ws path (the warp-specialized Gluon kernel) at the attention tasks'
shapes, odd lengths and small ones included, beside its `tl` kernel and SDPA or FlexAttention.

Why: the ws path served only calls with at least `TMA_MIN_FLOPS` (2^36) of work, a threshold set
for the `tl` kernel's descriptor loads, whose host time (131 us a call) showed on small calls
(README, attention); since round 261 it has its own, `WS_MIN_FLOPS` (2^33). This probe forces the
ws path at every shape (the rendered module's thresholds set to 0) and times, in one interleaved run per shape (verifier.timing.bench, the
default timer, the L2 emptied before each call), the ws path, the `tl` kernel (the config with `ws`
off, its threshold kept) and the baseline; and each callable's host time a call
(verifier.timing.host_us). Every kernel is checked against float64 on batch element 0 first.
Writes bench/results/probe-attention-shapes-h100.json.

    python bench/probe_attention_shapes.py [OUT_DIR] [--all]   # GPU

GPU round 260 ran `--all` before the ws path recorded its launches (its host time 114-333 us a
call; bench/results/runs/probe-attention-shapes-h100-round260.json); round 261 the small shapes
with them.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from templates import get_template  # noqa: E402
from templates.attention import flops  # noqa: E402

ATTENTION = get_template("attention")
# (case, score_mod, causal, (B, Hq, Hkv, Lq, Lk, D)): the sdpa, sdpa_causal, sdpa_gqa and
# attention_relpos tasks' GPU shapes, and a long odd length
SHAPES = [
    ("sdpa", None, False, (4, 16, 16, 1000, 1000, 64)),
    ("sdpa", None, False, (2, 8, 8, 777, 2049, 128)),
    ("sdpa", None, False, (16, 32, 32, 512, 512, 64)),
    ("sdpa_causal", None, True, (4, 16, 16, 1000, 1000, 64)),
    ("relative_position", "relative_position", False, (4, 16, 16, 1000, 1000, 64)),
]
if "--all" in sys.argv:  # round 260's list: the large shapes too, and a long odd length
    SHAPES = [
        ("sdpa", None, False, (8, 16, 16, 4096, 4096, 128)),
        ("sdpa", None, False, (4, 16, 16, 1000, 1000, 64)),
        ("sdpa", None, False, (2, 8, 8, 777, 2049, 128)),
        ("sdpa", None, False, (16, 32, 32, 512, 512, 64)),
        ("sdpa", None, False, (8, 16, 16, 4000, 4000, 128)),
        ("sdpa_causal", None, True, (4, 16, 16, 1000, 1000, 64)),
        ("sdpa_causal", None, True, (2, 8, 8, 2049, 2049, 128)),
        ("sdpa_causal", None, True, (16, 32, 32, 512, 512, 64)),
        ("sdpa_gqa", None, False, (4, 32, 8, 4096, 4096, 128)),
        ("sdpa_gqa", None, False, (8, 32, 4, 1000, 1000, 128)),
        ("relative_position", "relative_position", False, (4, 16, 16, 1000, 1000, 64)),
        ("relative_position", "relative_position", False, (2, 8, 8, 2049, 2049, 128)),
    ]


def main() -> int:
    if not torch.cuda.is_available():
        print("probe_attention_shapes: needs a CUDA GPU", file=sys.stderr)
        return 2
    from bench.attention import explicit, flex_baseline
    from verifier import tolerance
    from verifier.core import load_candidate
    from verifier.environment import environment
    from verifier.timing import L2Flusher, bench, host_us

    torch._dynamo.config.cache_size_limit = 64
    flusher = L2Flusher(torch.device("cuda"))
    cache = Path("/tmp/probe-attention-shapes")
    tol = tolerance.tolerance_for("bfloat16", {"atol_scale": 2.5e-3})  # tasks/sdpa.py's
    rows = []
    started = time.time()
    for case, mod, causal, (b, hq, hkv, lq, lk, d) in SHAPES:
        context = {"op": "attention", "is_causal": causal, "scale": None, "score_mod": mod,
                   "softcap": None, "window": None, "params": []}
        ws_module = load_candidate(ATTENTION.render(ATTENTION.default, **context), cache)
        ws_module.TMA_MIN_FLOPS = 0  # every call the kernel covers takes it
        ws_module.WS_MIN_FLOPS = 0
        tl_cfg = dataclasses.replace(ATTENTION.default, ws=False)
        tl_module = load_candidate(ATTENTION.render(tl_cfg, **context), cache)
        torch.manual_seed(0)
        q = torch.randn(b, hq, lq, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, hkv, lk, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        row = {"case": case, "score_mod": mod, "causal": causal, "shape": [b, hq, hkv, lq, lk, d],
               "ws_plan": ws_module.ws_plan(q, k, v, causal), "checks": {}}
        fns = {"ws": lambda: ws_module.launch_attention(q, k, v, causal),
               "tl": lambda: tl_module.launch_attention(q, k, v, causal)}
        expected = explicit(q[:1].double(), k[:1].double(), v[:1].double(), mod, causal)
        for name in ("ws", "tl"):
            comparison = tolerance.compare(fns[name]()[:1], expected, None, tol)
            row["checks"][name] = {"ok": comparison.ok, "rel_l2_err": comparison.rel_l2_err}
        if mod is None:
            fns["sdpa"] = lambda: F.scaled_dot_product_attention(
                q, k, v, is_causal=causal, enable_gqa=hkv != hq)
            base = "sdpa"
        else:
            fns["flex_compiled"] = flex_baseline(q, k, v, mod, causal)
            base = "flex_compiled"
        fns = {n: f for n, f in fns.items() if row["checks"].get(n, {"ok": True})["ok"]}
        with torch.no_grad():
            times = bench(fns, flusher=flusher, budget_ms=300.0 * len(fns))
        work = flops(b, hq, lq, lk, d, causal)
        row["ms"] = {n: t.median_ms for n, t in times.items()}
        row["tflops"] = {n: work / (t.median_ms * 1e-3) / 1e12 for n, t in times.items()}
        row["vs_baseline"] = {n: times[base].median_ms / t.median_ms for n, t in times.items()}
        row["host_us"] = {n: host_us(f) for n, f in fns.items()}
        rows.append(row)
        print(json.dumps({k_: row[k_] for k_ in ("case", "shape", "ws_plan", "checks", "ms",
                                                  "vs_baseline", "host_us")}), flush=True)
        q = k = v = fns = None  # the next shape's tensors need the memory
        torch.cuda.empty_cache()
    result = {"what": __doc__.splitlines()[0], "environment": environment(),
              "method": "verifier.timing.bench (default timer: CUDA events, L2 discard flush "
                        "before each call, interleaved rounds, medians); host_us: back-to-back "
                        "calls; each kernel checked against float64 on batch element 0 first",
              "seconds": time.time() - started, "rows": rows}
    given = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(given[0]) if given else ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "probe-attention-shapes-h100.json").write_text(json.dumps(result, indent=1))
    print("wrote", out / "probe-attention-shapes-h100.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
