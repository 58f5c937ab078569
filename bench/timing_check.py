"""Cross-check the verifier's timings against a direct measurement, at a launch-bound and a large
shape: the shipped softmax kernel, eager and torch.compile, timed (a) directly with
verifier.timing.bench in a clean process and (b) by Verifier.verify after other candidates ran.
Writes bench/results/timing-check-<device>.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from kernel_zoo import _home, store  # noqa: E402
from verifier.core import Verifier, load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench  # noqa: E402

SHAPES = [{"batch_size": 4099, "dim": 1000}, {"batch_size": 8192, "dim": 4096}]


def main() -> None:
    env = environment()
    manifest, config, entry_dir = store.find_config("softmax", env["arch"], "bfloat16",
                                                    [_home.SHIPPED_ZOO], device=env["gpu"])
    source = store.read_entry_file(entry_dir, manifest, config["file"]).decode()
    module = load_candidate(source, Path("/tmp/kzoo-timing"))
    flusher = L2Flusher(torch.device("cuda"))
    direct = []
    for shape in SHAPES:
        x = (torch.randn(shape["batch_size"], shape["dim"], device="cuda") * 4).bfloat16()
        model, cand = torch.nn.Softmax(dim=1), module.ModelNew()
        torch._dynamo.reset()
        compiled = torch.compile(model, dynamic=False)
        with torch.no_grad():
            t = bench({"candidate": lambda: cand(x), "eager": lambda: model(x),
                       "compile": lambda: compiled(x)}, flusher=flusher)
        direct.append({"shape": shape, **{k: v.median_ms for k, v in t.items()}})
    task = tasks.load(ROOT / "tasks" / "softmax.py")
    task = tasks.load_source(task.source, task.path)
    object.__setattr__(task, "shapes", tuple(SHAPES))
    verifier = Verifier("gpu", Path("/tmp/kzoo-timing"))
    verifier.verify(task, source, "bfloat16")  # a first verdict warms compile caches
    verdict = verifier.verify(task, source, "bfloat16", refresh_baselines=True)
    via = [{"shape": s.shape, "candidate": s.ms, "eager": s.eager_ms, "compile": s.compile_ms}
           for s in verdict.shapes]
    result = {"benchmark": "timing-check", "environment": env, "dtype": "bfloat16",
              "entry": f"softmax {manifest['version']}", "direct": direct, "verifier": via}
    out = ROOT / "bench" / "results" / f"timing-check-{device_label()}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    for d, v in zip(direct, via):
        print(d["shape"], " ".join(f"{k} {d[k]*1e3:.1f}us/{v[k]*1e3:.1f}us"
                                    for k in ("candidate", "eager", "compile")))
    print(f"(direct/verifier) wrote {out}")


if __name__ == "__main__":
    main()
