"""Where the host's microseconds go in one call of the composed linear + LayerNorm candidate.

`bench/host_overhead.py --composed` measures a whole call (56-106 us a call on an H100's host in
rounds 175-178, against eager's 33 us) and profiles it under cProfile, which inflates every
Python frame. This probe times each layer of a repeated call by itself, unprofiled, with the GPU
left to run behind (verifier.timing.host_us): the module's forward, its launch function, the
row-norm call, the GEMM call, the call signature, the output's allocation, the two tensor
descriptors, and each kernel's recorded launch with its arguments built once; and eager's two
ops beside them. One row per GEMM load path (descriptors, pointers).

    python bench/probe_host_parts.py      # on a CUDA GPU; writes
                                          # bench/results/probe-host-parts-<device>.json
    python bench/probe_host_parts.py --before DIR   # also an earlier render against today's

`--before DIR`: DIR holds lln_descriptors.py and lln_pointers.py, the task's candidate rendered
by an earlier gemm template (say, at an earlier commit) at its default config and at the default
with use_tma off. Whole calls of each and of today's render, with eager's, are timed in turns
over several rounds (the least of each), since host timings drift by 10-15 us between
measurements taken one after another. Round 181 rendered 4380cbf's template there.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from compose import at_shape  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import host_us  # noqa: E402

SHAPE = {"tokens": 1000, "d_in": 1024, "d_out": 3000}
CALLS = 500
# the gemm template's changes to its default config, by GEMM load path
LOAD_PATHS = (("descriptors", {}), ("pointers", {"use_tma": False}))


def composed_variants(cache: Path, device, shape: dict = SHAPE, dtype=torch.bfloat16):
    """linear + LayerNorm's task and, for each of LOAD_PATHS, (label, module, model, ours,
    inputs): the candidate rendered from the gemm template's default config so changed, loaded,
    and at `shape` (compose.at_shape). Shared by bench/probe_timer_host.py."""
    import tasks
    from agent.plan import plan
    from verifier.core import load_candidate

    task = tasks.load(ROOT / "tasks" / "linear_layer_norm.py")
    found = plan(task)
    template = found.template_object()
    out = []
    for label, changes in LOAD_PATHS:
        cfg = dataclasses.replace(template.default, **changes)
        module = load_candidate(template.render(cfg, **found.context), cache)
        out.append((label, module, *at_shape(task, module, shape, dtype, device)))
    return task, out


def parts(module, ours, model, inputs) -> dict[str, float]:
    """Host us a call of each layer of `ours` (a ModelNew of the rendered module) at `inputs`."""
    seen = {}
    normed = module._normed

    def spy(a, b, extras):
        seen.update(a=a, b=b, extras=extras)
        return normed(a, b, extras)

    module._normed = spy
    ours(*inputs)
    module._normed = normed
    a, b, extras = seen["a"], seen["b"], seen["extras"]
    key = module._signature(a, b, extras, None)
    gemm_recipe = module._RECIPES[key]
    norm_grid, scalars, norm_kwargs, norm_direct = module._NORM_RECIPES[key]
    y = module._gemm(a, b, extras, key=key)
    n = y.shape[-1]
    norm_args = (y, *module._norm_tensors(extras, y), *scalars)  # y normalized in place
    epi = list(extras)
    weight, bias = model.proj.weight, model.proj.bias
    ln = model.norm
    x = inputs[0]
    fns = {
        "forward": lambda: ours(*inputs),
        "launch function": lambda: module.launch_linear_layer_norm(
            x, ours.proj.weight, ours.proj.bias, ours.norm.weight, ours.norm.bias),
        "_normed": lambda: module._normed(a, b, extras),
        "_gemm (key given)": lambda: module._gemm(a, b, extras, key=key),
        "_signature": lambda: module._signature(a, b, extras, None),
        "torch.empty (output)": lambda: torch.empty(y.shape, dtype=y.dtype, device=y.device),
        "row-norm launch (args built)": lambda: module._run(
            module._row_norm_kernel, norm_grid, norm_direct, norm_args, norm_kwargs),
        "eager F.linear": lambda: F.linear(x, weight, bias),
        "eager F.layer_norm": lambda: F.layer_norm(y, (n,), ln.weight, ln.bias, ln.eps),
        "eager Model": lambda: model(*inputs),
    }
    if gemm_recipe[0] == "tma":
        _, out_shape, grid, (a_box, b_box), args, kwargs, direct = gemm_recipe
        TD, RD = module.TensorDescriptor, module._RecordedDescriptor
        descs = (RD(a, *a_box), RD(b, *b_box))
        fns["two TensorDescriptors"] = lambda: (TD(a, *a_box), TD(b, *b_box))
        fns["two recorded descriptors (unchecked)"] = lambda: (RD(a, *a_box), RD(b, *b_box))
        fns["GEMM launch (args built)"] = lambda: module._run(
            module._gemm_tma_kernel, grid, direct, (*descs, y, *epi, *args), kwargs)
    else:
        _, out_shape, grid, args, kwargs, ws_shape, tiles, direct = gemm_recipe
        ws, locks = module._split_buffers(ws_shape, tiles, y)
        fns["GEMM launch (args built)"] = lambda: module._run(
            module._gemm_kernel, grid, direct, (a, b, y, ws, locks, *epi, *args), kwargs)
    return {label: host_us(fn, calls=CALLS, warmup=5, rounds=5) for label, fn in fns.items()}


def interleaved(fns: dict, rounds: int = 7) -> dict[str, float]:
    """The least host us a call of each of `fns` over `rounds` rounds, the callables in turns."""
    best = {label: float("inf") for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            best[label] = min(best[label], host_us(fn, calls=CALLS, warmup=5, rounds=1))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="DIR", type=Path,
                        help="an earlier render's lln_descriptors.py and lln_pointers.py")
    before_dir = parser.parse_args().before
    if before_dir is not None:
        before_dir = before_dir.resolve()
        missing = [f"lln_{p}.py" for p in ("descriptors", "pointers")
                   if not (before_dir / f"lln_{p}.py").is_file()]
        if missing:
            sys.exit(f"--before {before_dir}: no {', '.join(missing)} there")
    if not torch.cuda.is_available():
        sys.exit("bench/probe_host_parts.py measures launches on a CUDA GPU")
    from verifier.core import load_candidate

    cache = Path(tempfile.mkdtemp(prefix="kzoo-host-parts-"))
    rows = []
    with torch.no_grad():
        task, variants = composed_variants(cache, torch.device("cuda"))
        for label, module, model, ours, inputs in variants:
            got = parts(module, ours, model, inputs)
            row = {"case": f"linear_layer_norm {json.dumps(SHAPE)} {label}", "host_us": got}
            print(label, flush=True)
            for part, us in got.items():
                print(f"    {part:<32} {us:7.1f} us", flush=True)
            if before_dir is not None:
                path = before_dir / f"lln_{label}.py"
                old = load_candidate(path.read_text(), cache)
                _, old_ours, _ = at_shape(task, old, SHAPE, torch.bfloat16, torch.device("cuda"))
                row["before"] = {"source": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT)
                                 else str(path)}
                row["interleaved_host_us"] = interleaved({
                    "before": lambda: old_ours(*inputs), "today": lambda: ours(*inputs),
                    "eager Model": lambda: model(*inputs)})
                print("    interleaved: " + "  ".join(
                    f"{k} {v:.1f} us" for k, v in row["interleaved_host_us"].items()), flush=True)
            rows.append(row)
    out = ROOT / "bench" / "results" / f"probe-host-parts-{device_label()}.json"
    out.write_text(json.dumps({"benchmark": "probe_host_parts", "environment": environment(),
                               "shape": SHAPE, "dtype": "bfloat16", "calls": CALLS,
                               "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
