"""Where ws_tail's time goes at bias+GELU 8192x8192x4096 (bfloat16): the pingpong kernel on all
4096 tiles, on the first 4092 (31 whole rounds of 132 SMs) and on other counts, and the tail
kernel alone on the last 4, as CUDA-graph replays beside eager (GPU round 347). It needs the gemm
template's ws_tail knob, which was reverted after round 347: it runs at commit 644da49.

    python bench/probe_ws_tail.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_ws_tail.py needs a CUDA GPU: it measures time")
    gemm = get_template("gemm")
    params = json.loads((ROOT / "bench" / "gemm-candidates-ws-tail.json").read_text())[1]
    cfg = gemm.config(params)
    assert cfg.ws_tail and not cfg.ws_coop
    context = plan(tasks.load(ROOT / "tasks" / "linear_bias_gelu.py")).context
    module = load_candidate(gemm.render(cfg, **context), Path(tempfile.mkdtemp()))
    torch.manual_seed(0)
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    w = (torch.randn(8192, 4096, device="cuda") / 64).to(torch.bfloat16)
    b = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
    tiles = 64 * 64
    sms = module._sm_count(0)
    split = module._ws_split(tiles, 0)
    out = torch.empty(8192, 8192, device="cuda", dtype=torch.bfloat16)
    first, rest = split[1], tiles - split[1]

    def whole(taken):
        def run():  # the warp-specialized kernel alone on the call's first `taken` tiles
            module._ws_split = lambda t, i: (min(t, sms), taken)
            result, kernel_args, grid, _ = module._ws_args(x, w, (b, ))
            module._ws_kernel[grid](*kernel_args, **module._WS_KWARGS)
            return result
        return run

    fns = {
        "eager": lambda: F.gelu(F.linear(x, w, b)),
        "ws_all_tiles": whole(tiles),
        "ws_first_tiles": whole(first),
        # is it the count's divisibility (Triton specializes an int argument divisible by 16)?
        "ws_4080_tiles": whole(4080),
        "ws_4088_tiles": whole(4088),
        "ws_3960_tiles": whole(3960),
        "ws_4096_again": whole(tiles),
        "tail_alone": lambda: module._ws_tail(x, w, (b, ), out, first, rest),
    }
    ref = F.gelu(F.linear(x.float(), w.float(), b.float()))
    for name in ("ws_all_tiles", ):
        got = fns[name]().float()
        assert ((got - ref).norm() / ref.norm()).item() < 1e-2, name
    flusher = L2Flusher(torch.device("cuda"))
    graphs, failed = graphed_where_possible(fns)
    timed = bench(graphs, flusher=flusher, budget_ms=600.0, rounds=7)
    us = {name: round(t.median_ms * 1e3, 2) for name, t in timed.items()}
    print(f"sms {sms}, tiles {tiles}, split {split}; failed to graph: {failed}")
    for name, t in us.items():
        print(f"  {name:16} {t:9.2f} us")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-ws-tail-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "bias+GELU 8192x8192x4096 bf16: the pingpong kernel on all tiles, on its whole "
                "rounds only, ws_tail's kernel alone on the rest; CUDA-graph replays, L2 "
                "flushed, medians in us",
        "environment": environment(), "params": params, "split": split, "us_graphs": us,
        "graph_capture_failed": failed}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
