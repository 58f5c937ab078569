"""Row kernels keep 16-byte loads and stores at widths that Triton's int specialization misses.

Triton marks an int argument as aligned only when it is divisible by 16, so a 1000-wide bf16 row
(2000 bytes, 16-byte aligned) got 2-byte loads and stores until the launchers passed widths and
strides divided by their `_unit` (templates/_model.jinja). Here each launcher runs on CPU tensors
with its launches captured instead of run, and the launched kernels are compiled for an H100
(sm_90) by the ptxas that Triton ships (`bench/compile_pointwise.compile_launches`): no GPU
needed. The PTX must hold no 16-bit global load (nor store, where the output is rows).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tasks
from agent.plan import plan

ROOT = Path(__file__).resolve().parents[1]

# Runs without TRITON_INTERPRET, so that @triton.jit gives JIT functions triton.compile can take.
_SCRIPT = r"""
import importlib.util, json, sys
from pathlib import Path
import torch

path, call, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, str(Path.cwd() / "bench"))
from compile_pointwise import compile_launches, record_launches

spec = importlib.util.spec_from_file_location("candidate", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
launched = record_launches(module)
torch.manual_seed(0)
x = torch.randn(7, cols, dtype=torch.bfloat16)
w, b = torch.randn(cols, dtype=torch.bfloat16), torch.randn(cols, dtype=torch.bfloat16)
eval(call, {"m": module, "x": x, "w": w, "b": b, "cols": cols})
found = [{
    "kernel": c["kernel"],
    "unit": c["constexprs"].get("UNIT"),
    "scalar_loads": c["loads_16bit"],
    "scalar_stores": c["stores_16bit"],
    "vector": sum(n for width, n in (*c["loads"].items(), *c["stores"].items()) if width != "v1")
              + c["async_copies"],
} for c in compile_launches(launched)]
print(json.dumps(found))
"""

# 1000 (2000 bytes) takes the one-pass kernel, 40008 (5001 vectors) the looped one
CASES = [
    (op, call, cols)
    for op, call in [
        ("layer_norm", "m.launch_layer_norm(x, (cols,), w, b)"),
        ("rms_norm", "m.launch_rms_norm(x, (cols,), w)"),
        ("add_rms_norm", "m.launch_add_rms_norm(x, x, w)"),
        ("softmax", "m.launch_softmax(x, -1)"),
        ("log_softmax", "m.launch_log_softmax(x, -1)"),
    ]
    for cols in (1000, 40008)
] + [("sum", "m.launch_sum(x, -1)", 1000), ("argmax", "m.launch_argmax(x, -1)", 1000)]


def _ptxas_available() -> bool:
    try:
        return importlib.util.find_spec("triton.backends.nvidia.compiler") is not None
    except ImportError:
        return False


@pytest.mark.skipif(not _ptxas_available(), reason="Triton's NVIDIA backend is not installed")
@pytest.mark.parametrize("op,call,cols", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_bf16_rows_of_8k_not_16k_elements_compile_to_vector_loads_and_stores(op, call, cols,
                                                                             tmp_path):
    found = plan(tasks.load(ROOT / "tasks" / f"{op}.py"))
    template = found.template_object()
    path = tmp_path / f"{op}.py"
    path.write_text(template.render(template.default, **found.context))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    run = subprocess.run([sys.executable, "-c", _SCRIPT, str(path), call, str(cols)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    launches = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(launches) == 1, launches
    cfg = template.default
    wide = cols > (cfg.row_block_max if op in ("sum", "argmax") else cfg.single_pass_max)
    assert ("one_pass" in launches[0]["kernel"]) != wide, launches
    for launch in launches:
        assert launch["unit"] == 8, launch
        assert launch["scalar_loads"] == [], launch
        if op not in ("sum", "argmax"):  # a reduction stores one value per row
            assert launch["scalar_stores"] == [], launch
        assert launch["vector"] > 0, launch


@pytest.mark.skipif(not _ptxas_available(), reason="Triton's NVIDIA backend is not installed")
def test_the_zoo_audit_compiles_what_serves_each_gpu_shape(tmp_path):
    """bench/compile_zoo.py: the shipped GeGLU kernel at each GPU shape of its task, compiled for
    sm_90; at the widths that are multiples of 8 every load and store moves all of a thread's
    contiguous elements at once, 16 bytes where a thread has 8 or more (a 16-row call spread by
    small_per_thread over more threads has 4: 8 bytes), never 2 at a time."""
    out = tmp_path / "zoo.json"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "compile_zoo.py"), "--tasks",
                          "geglu", "--json", str(out)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    task = tasks.load(ROOT / "tasks" / "geglu.py")
    assert [r["shape"] for r in rows] == list(task.shapes)  # one flat kernel per shape
    for row in rows:
        assert row["served"]["version"] and row["kernel"] == "_flat_kernel", row
        assert row["stack"] == 0, row
        if row["shape"]["cols"] % 8 == 0:
            assert not row["flagged"] and row["loads_16bit"] == 0, row
            per_thread = row["constexprs"]["BLOCK"] // (32 * row["num_warps"])
            width = {16: "v4", 8: "v2", 4: "v1"}[min(16, 2 * per_thread)]
            assert set(row["stores"]) == {width} and set(row["loads"]) == {width}, row
