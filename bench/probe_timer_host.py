"""How much of a small call's host time the default timer counts, by the host's speed.

The default timer (verifier.timing.bench) times each call right after the L2 flush. While the
host queues a flush, two events and the call faster than the GPU runs them, the time is the GPU's
alone; past that, the GPU waits inside the events and host time shows. At linear + LayerNorm
1000x1024->3000 on an H100 a call takes 24 us on the GPU and 40-95 us on the host, by the machine,
and the composed search's verdict there went from 1.066x eager to 0.738x between two runs of
the same code (GPU rounds 181-182). This probe times, in one run, eager's Model and the composed
candidate (the gemm template's default and its pointer-load variant) at that shape, each also with
a busy-wait of 25-150 us added to its host time, three ways: `verifier.timing.bench`'s default
(the verifier's timer until GPU round 184), the same timer with `host_ahead` (the GPU spins while
the host queues each batch; the verifier's since round 184), and CUDA-graph replays (no host at
all). Where the default timer's numbers climb with the added host time and host_ahead's stay with
the graph replays', the default timer is counting host time (round 183: it did).

    python bench/probe_timer_host.py      # on a CUDA GPU; writes
                                          # bench/results/probe-timer-host-<device>.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_host_parts import SHAPE, composed_variants  # noqa: E402  (bench/ is its folder)
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed, host_us  # noqa: E402

ADDED_HOST_US = (0, 25, 50, 100, 150)


def with_host_delay(fn, us: float):
    """`fn` after a busy-wait of `us` microseconds on the host."""
    if not us:
        return fn

    def delayed():
        until = time.perf_counter() + us * 1e-6
        while time.perf_counter() < until:
            pass
        return fn()

    return delayed


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_timer_host.py times launches on a CUDA GPU")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-timer-host-"))
    device = torch.device("cuda")
    calls = {}
    with torch.no_grad():
        _, variants = composed_variants(cache, device)
        for label, _, model, ours, inputs in variants:
            calls[f"composed ({label})"] = lambda ours=ours, inputs=inputs: ours(*inputs)
        calls["eager"] = lambda model=model, inputs=inputs: model(*inputs)
        flusher = L2Flusher(device)
        rows = []
        for label, fn in calls.items():
            replay = graphed(fn)
            for added in ADDED_HOST_US:
                timed = {"timed": with_host_delay(fn, added)}
                default = bench(timed, flusher=flusher)
                ahead = bench(timed, flusher=flusher, host_ahead=True)
                graphs = bench({"graph": replay}, flusher=flusher)
                row = {"call": label, "added_host_us": added,
                       "host_us": host_us(timed["timed"], calls=200),
                       "default_ms": default["timed"].median_ms,
                       "host_ahead_ms": ahead["timed"].median_ms,
                       "graph_ms": graphs["graph"].median_ms}
                rows.append(row)
                print(f"{label:<24} +{added:>3} us host ({row['host_us']:6.1f} us a call): "
                      f"default {row['default_ms'] * 1e3:7.2f} us  host_ahead "
                      f"{row['host_ahead_ms'] * 1e3:7.2f}  graph {row['graph_ms'] * 1e3:7.2f}",
                      flush=True)
    out = ROOT / "bench" / "results" / f"probe-timer-host-{device_label()}.json"
    out.write_text(json.dumps({"benchmark": "probe_timer_host", "environment": environment(),
                               "task": "linear_layer_norm", "shape": SHAPE, "dtype": "bfloat16",
                               "flush_mode": flusher.mode, "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
