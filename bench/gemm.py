"""Benchmark the gemm template against cuBLAS, eager PyTorch and torch.compile, in one GPU run.

Cases (M x N x K, bf16 unless named): 4096^3, 8192^3, 8192 x 4096 x 14336 (MLP down projection),
128 x 4096 x 4096 and 16 x 8192 x 8192 (skinny, split-K), gelu(linear(x, W, b)) at
8192 x 8192 x 4096 (the fused epilogue), and 4096^3 in fp32 (IEEE on every side: TF32 off).
Each case renders the template for the task's plan (DEFAULT, SKINNY_DEFAULT for
M <= 128, or one given by --config-json), checks the kernel against a float64 reference with the
verifier's tolerance first, then times, interleaved with the verifier's timer (L2 flushed, CUDA
events, medians): the kernel, cuBLAS (torch.matmul; for the linear case the bare GEMM
x @ W^T), eager PyTorch (the task's Model), torch.compile(Model) and, with --max-autotune,
torch.compile(Model, mode="max-autotune") (minutes of autotuning per case: only the cases named by
--max-autotune-cases). Writes bench/results/gemm-<device>.json and prints TFLOP/s and ratios.

--graphs times each callable as a CUDA-graph replay instead (the L2 still flushed before each):
the GPU's work without the host's, whose time per call varies with the machine.

--config-json FILE maps case names to template params, or to {"template": "gemm_cuda", "params":
{...}} for the CUDA C++ Linear of a linear case (its `tma_path` then says "cuda", or which Triton
kernel runs the call and why).

--configs times a short list of candidate configs per case instead (correctness checked first),
beside cuBLAS, and writes bench/results/gemm-configs-<device>.json with the best per case;
--candidates FILE gives the list (a JSON list of template params), and --unconstrained times
configs the template's constraints would prune as well. With --graphs the candidates are timed as
graph replays too (gemm-configs-<device>-graphs.json): a split-K config's allocations and counter
memset cost the host time the default timer counts.

--smoke runs everything on the CPU in Triton's interpreter at the tasks' tiny cpu shapes:
correctness only, nothing timed, nothing written.

    python bench/gemm.py [--max-autotune] [--config-json FILE] [--graphs]
    python bench/gemm.py --configs [--cases C,D] [--candidates FILE [--unconstrained]] [--graphs]
    python bench/gemm.py --smoke
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import torch

if not torch.cuda.is_available():
    # Must precede every @triton.jit decoration in this process.
    os.environ["TRITON_INTERPRET"] = "1"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import DEFAULT, SKINNY_DEFAULT, TILED, GemmConfig, constraints  # noqa: E402
from verifier import tolerance  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    task: str
    shape: dict
    dtype: str
    kind: str  # "large" | "skinny" | "fused" | "fp32": which candidate list --configs uses


MAIN_CASES = (
    Case("matmul_4096", "matmul", {"M": 4096, "N": 4096, "K": 4096}, "bfloat16", "large"),
    Case("matmul_8192", "matmul", {"M": 8192, "N": 8192, "K": 8192}, "bfloat16", "large"),
    Case("mlp_down_8192x4096x14336", "matmul_mlp", {"M": 8192, "N": 4096, "K": 14336},
         "bfloat16", "large"),
    Case("skinny_128x4096x4096", "matmul_skinny", {"M": 128, "N": 4096, "K": 4096}, "bfloat16",
         "skinny"),
    Case("skinny_16x8192x8192", "matmul_skinny", {"M": 16, "N": 8192, "K": 8192}, "bfloat16",
         "skinny"),
    Case("linear_bias_gelu_8192x8192x4096", "linear_bias_gelu",
         {"tokens": 8192, "in_features": 4096, "out_features": 8192}, "bfloat16", "fused"),
    Case("matmul_4096_fp32", "matmul", {"M": 4096, "N": 4096, "K": 4096}, "float32", "fp32"),
)
# Cases timed only when named (--cases): the shapes a probe or a sweep of candidates looked at
ON_REQUEST_CASES = (
    # an output of 1000 x 3000: 96 of DEFAULT's 128 x 256 tiles, fewer than the SMs (linear +
    # LayerNorm's small shape, where the composed GEMM took 20 us against cuBLAS's 15); timed
    # only when named (--cases)
    Case("linear_bias_gelu_1000x3000x1024", "linear_bias_gelu",
         {"tokens": 1000, "in_features": 1024, "out_features": 3000}, "bfloat16", "fused"),
    # a decode step's 16 rows against a 4096x4096 weight: round 105's skinny 128x64 tiles made 64
    # programs for 132 SMs (silu(linear)'s small shape, 21.7 us against cuBLAS + SiLU's 16.8 in
    # GPU round 105); timed only when named
    Case("linear_bias_silu_16x4096x4096", "linear_bias_silu",
         {"batch": 1, "seq": 16, "in_features": 4096, "out_features": 4096}, "bfloat16",
         "skinny"),
    # 128 rows of a Linear (its weight read transposed, which Triton 3.6 builds in no CTA cluster:
    # SKINNY_PAIR's calls run single CTAs there); timed only when named
    Case("linear_bias_silu_128x4096x4096", "linear_bias_silu",
         {"batch": 1, "seq": 128, "in_features": 4096, "out_features": 4096}, "bfloat16",
         "skinny"),
    # more skinny Linears (timed only when named): fewer rows, an MLP's up projection (14336
    # columns: 3.5 waves of 64x64 tiles), and an odd 100 x 1000 -> 3000 (K and N off the tile)
    Case("linear_bias_silu_64x4096x4096", "linear_bias_silu",
         {"batch": 1, "seq": 64, "in_features": 4096, "out_features": 4096}, "bfloat16",
         "skinny"),
    Case("linear_bias_gelu_128x14336x4096", "linear_bias_gelu",
         {"tokens": 128, "in_features": 4096, "out_features": 14336}, "bfloat16", "skinny"),
    Case("linear_bias_gelu_100x3000x1000", "linear_bias_gelu",
         {"tokens": 100, "in_features": 1000, "out_features": 3000}, "bfloat16", "skinny"),
    # where the skinny companion trailed eager in bench/linear_skinny.py (GPU round 283): 32 rows
    # (half of a 64-row tile), and an MLP's 14336 columns at 32-128 rows (224 column tiles of 64:
    # 1.7 waves of the SMs); and other widths past one wave of 64x64 tiles (round 285); timed
    # only when named
    *(Case(f"linear_bias_silu_{m}x{n}x4096", "linear_bias_silu",
           {"batch": 1, "seq": m, "in_features": 4096, "out_features": n}, "bfloat16", "skinny")
      for m, n in ((32, 4096), (32, 14336), (100, 14336), (128, 14336), (128, 8192),
                   (100, 8192), (128, 11008), (80, 14336), (128, 5120), (48, 4096))),
    # GELU at 32-128 rows, where its skinny tiles trail SiLU's (round 291); timed only when named
    *(Case(f"linear_bias_gelu_{m}x4096x4096", "linear_bias_gelu",
           {"tokens": m, "in_features": 4096, "out_features": 4096}, "bfloat16", "skinny")
      for m in (32, 64, 128)),
    # 32 and 64 rows of bench/linear_skinny.py's odd weight (round 288); timed only when named
    *(Case(f"linear_bias_silu_{m}x3000x1000", "linear_bias_silu",
           {"batch": 1, "seq": m, "in_features": 1000, "out_features": 3000}, "bfloat16",
           "skinny") for m in (32, 64)),
    # linear_bias_silu's large shape (8192 rows of 4096 -> 4096), where gemm_cuda's searches
    # promoted kernels at 0.96-0.99x eager against the served Triton kernel's 1.07x in its own
    # promotion (GPU round 453); timed only when named
    Case("linear_bias_silu_8192x4096x4096", "linear_bias_silu",
         {"batch": 4, "seq": 2048, "in_features": 4096, "out_features": 4096}, "bfloat16",
         "fused"),
    # gelu(linear) where gemm_cuda's tiles take fewer waves than at the task's shapes (8192 and
    # 2048 rows of 4096 -> 4096), and the task's 4096 x 4096 -> 14336 (GPU round 453); timed
    # only when named
    *(Case(f"linear_bias_gelu_{m}x{n}x4096", "linear_bias_gelu",
           {"tokens": m, "in_features": 4096, "out_features": n}, "bfloat16", "fused")
      for m, n in ((8192, 4096), (2048, 4096), (4096, 14336))),
    # the rows where ops.linear's skinny tiles trailed eager in bench/linear_skinny.py (round
    # 287): 100 rows of 4096 -> 4096 (0.96-0.99x) and GELU at 64-128 rows of 1000 -> 3000
    # (0.94-0.995x); timed only when named
    Case("linear_bias_silu_100x4096x4096", "linear_bias_silu",
         {"batch": 1, "seq": 100, "in_features": 4096, "out_features": 4096}, "bfloat16",
         "skinny"),
    Case("linear_bias_gelu_100x4096x4096", "linear_bias_gelu",
         {"tokens": 100, "in_features": 4096, "out_features": 4096}, "bfloat16", "skinny"),
    *(Case(f"linear_bias_gelu_{m}x3000x1000", "linear_bias_gelu",
           {"tokens": m, "in_features": 1000, "out_features": 3000}, "bfloat16", "skinny")
      for m in (32, 64, 128)),
    # where ops.matmul trailed cuBLAS in bench/linear_skinny.py --matmul (round 297): the
    # 1000 -> 3000 weight at 16-128 rows (0.80-0.90x), the same at K and N of whole tiles
    # (1024 -> 3072), and 96-112 rows of 4096 -> 4096 (100 rows: 0.88x); timed only when named
    *(Case(f"skinny_{m}x{n}x{k}", "matmul_skinny", {"M": m, "N": n, "K": k}, "bfloat16",
           "skinny")
      for m, n, k in ((16, 3000, 1000), (64, 3000, 1000), (128, 3000, 1000), (64, 3072, 1024),
                      (64, 3000, 1024), (64, 3072, 1000), (96, 4096, 4096), (100, 4096, 4096),
                      (112, 4096, 4096), (64, 3072, 1008), (64, 3072, 1040), (64, 3072, 1088),
                      (64, 3072, 1096))),
    # decode steps (at most 16 rows) whose 16x32 tiles pass one wave of the SMs, DECODE_WIDE's
    # calls, for its swap_ab (bench/gemm-swap-ab-candidates.json, GPU round 431): float16 too, one
    # row, an MLP's up projection, and Linears (the weight read transposed); timed only when named
    Case("skinny_16x8192x8192_fp16", "matmul_skinny", {"M": 16, "N": 8192, "K": 8192}, "float16",
         "skinny"),
    *(Case(f"skinny_{m}x{n}x{k}", "matmul_skinny", {"M": m, "N": n, "K": k}, "bfloat16",
           "skinny") for m, n, k in ((1, 8192, 8192), (16, 14336, 4096))),
    *(Case(f"linear_bias_silu_16x{n}x{k}", "linear_bias_silu",
           {"batch": 1, "seq": 16, "in_features": k, "out_features": n}, "bfloat16", "skinny")
      for n, k in ((14336, 4096), (8192, 8192))),
    # where ops.matmul trailed cuBLAS on the H200 (round 434,
    # bench/results/runs/matmul-skinny-h200-round434.json: 24-128 rows of 4096 -> 14336 by 6-19%,
    # 24 rows of 4096 -> 4096), for the skinny tiles and swapped 32-row ones
    # (bench/gemm-skinny-h200-candidates.json, round 435); timed only when named
    *(Case(f"skinny_{m}x{n}x4096", "matmul_skinny", {"M": m, "N": n, "K": 4096}, "bfloat16",
           "skinny") for m, n in ((24, 14336), (32, 14336), (100, 14336), (128, 14336),
                                  (24, 4096))),
    # one row of an MLP's up projection (a decode step), and 80 rows of 4096 -> 4096 (a last tile
    # row of 16 of 64), for the shifted last tile row and one-wave decode tiles
    # (bench/gemm-shift-tail-candidates.json, round 437); timed only when named
    *(Case(f"skinny_{m}x{n}x4096", "matmul_skinny", {"M": m, "N": n, "K": 4096}, "bfloat16",
           "skinny") for m, n in ((1, 14336), (80, 4096))),
    # 100 rows of 4096 -> 8192, SKINNY_WIDE's calls (64x128 tiles, the last tile row shifted or
    # not), for bench/gemm-skinny-wider-candidates.json (round 438); timed only when named
    Case("skinny_100x8192x4096", "matmul_skinny", {"M": 100, "N": 8192, "K": 4096}, "bfloat16",
         "skinny"),
    # 33-63 rows, under SKINNY_DEFAULT's one tile row (SKINNY_POINTER's calls at 4096 columns,
    # SKINNY_WIDE's at 14336), which bench/linear_skinny.py's rows skip, for
    # bench/gemm-skinny-33-63-candidates.json (round 442); timed only when named
    *(Case(f"skinny_{m}x{n}x4096", "matmul_skinny", {"M": m, "N": n, "K": 4096}, "bfloat16",
           "skinny") for m, n in ((40, 4096), (48, 4096), (48, 14336), (56, 14336))),
    # 64 rows of 4096 -> 4096 and 64-128 of 1000 -> 3000 (GELU trailed eager there in round
    # 441, bench/results/runs/linear-skinny-h200-gelu-round441.json), for SKINNY_NARROW_PAIR's two
    # 32-row tile rows beside SKINNY_DEFAULT's one (bench/gemm-skinny-64-pair-candidates.json,
    # round 444); timed only when named
    *(Case(f"skinny_{m}x{n}x{k}", "matmul_skinny", {"M": m, "N": n, "K": k}, "bfloat16",
           "skinny") for m, n, k in ((64, 4096, 4096),)),
    # 40 rows, where ops.matmul levelled with cuBLAS (4096 -> 14336, SKINNY_WIDE's) and
    # SKINNY_NARROW_PAIR trailed SKINNY_POINTER (1000 -> 3000) in round 444
    # (bench/results/runs/matmul-skinny-h200-round444.json, linear-skinny-h200-silu-round444.json),
    # and 64 rows of an MLP's up projection, for bench/gemm-skinny-40-candidates.json (round 445);
    # timed only when named
    *(Case(f"skinny_{m}x{n}x{k}", "matmul_skinny", {"M": m, "N": n, "K": k}, "bfloat16",
           "skinny") for m, n, k in ((40, 14336, 4096), (64, 14336, 4096), (40, 3000, 1000))),
    *(Case(f"linear_bias_silu_40x{n}x{k}", "linear_bias_silu",
           {"batch": 1, "seq": 40, "in_features": k, "out_features": n}, "bfloat16", "skinny")
      for n, k in ((3000, 1000), (14336, 4096))),
    Case("linear_bias_gelu_40x3000x1000", "linear_bias_gelu",
         {"tokens": 40, "in_features": 1000, "out_features": 3000}, "bfloat16", "skinny"),
)
CASES = (*MAIN_CASES, *ON_REQUEST_CASES)
ON_REQUEST = {c.name for c in ON_REQUEST_CASES}
ACCEPTANCE = {  # case -> (baseline, the ratio the kernel must reach against it)
    "matmul_4096": ("cublas", 0.95), "matmul_8192": ("cublas", 0.95),
    "mlp_down_8192x4096x14336": ("cublas", 0.95),
    "skinny_128x4096x4096": ("cublas", 1.0), "skinny_16x8192x8192": ("cublas", 1.0),
    "linear_bias_gelu_8192x8192x4096": ("eager", 1.10),
}


def _cfg(**changes) -> GemmConfig:
    return dataclasses.replace(TILED, **changes)


# Candidates for --configs: Triton-tutorial / Inductor H100 shapes and their TMA and persistent
# forms; for skinny outputs, short M tiles over split-K factors.
CANDIDATES = {
    "large": [
        DEFAULT, TILED, _cfg(num_stages=4), _cfg(use_tma=True), _cfg(use_tma=True, persistent=1),
        _cfg(persistent=1), _cfg(BLOCK_M=256, BLOCK_N=128), _cfg(BLOCK_N=128, num_warps=4,
                                                                  num_stages=4),
        _cfg(BLOCK_N=128, BLOCK_K=128, num_stages=3),
        # a persistent kernel with its tile loop flattened into the K loop, without the sliced
        # epilogue of DEFAULT, through descriptors and through pointers
        _cfg(use_tma=True, persistent=1, flatten=True), _cfg(persistent=1, flatten=True),
    ],
    "skinny": [
        SKINNY_DEFAULT,
        *(dataclasses.replace(SKINNY_DEFAULT, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=sk,
                              num_warps=w, num_stages=st, use_tma=tma, GROUP_M=1, num_ctas=1)
          for bm, bn, bk, sk, w, st, tma in (
              # the best of the previous sweeps (runs/gemm-configs-h100-skinny-split-one-launch
              # .json): all M rows in one tile row, so B is read once; split-K in one launch
              (128, 32, 128, 1, 4, 5, False), (128, 64, 128, 2, 4, 4, False),
              (64, 128, 128, 1, 4, 4, False), (16, 64, 128, 1, 4, 4, False),
              # at M = 128 only 32-64 programs own a tile, each issuing a 128-row tile's MMAs
              # from one warp group: two warp groups per program, and deeper or shorter K steps
              # (none beat 128x32x128 in runs/gemm-configs-h100-skinny-round13.json)
              (128, 64, 128, 1, 8, 4, False), (128, 64, 128, 2, 8, 4, False),
              (128, 64, 64, 1, 4, 8, False), (128, 64, 64, 2, 8, 8, False),
              (128, 64, 256, 1, 4, 2, False), (128, 64, 128, 4, 8, 4, False),
              # descriptor loads: host-bound there (161-212 us against 27 us, the descriptors'
              # host time), as were the split-K configs on that machine (71-81 us; 27.6 us in
              # the previous sweep): these timings depend on the host's speed
              (128, 64, 128, 1, 4, 4, True), (128, 32, 128, 1, 4, 5, True),
              # M = 16 reads 128 MB of B once at 2.3 TB/s, against a copy's 3.0: deeper
              # pipelines, longer K steps, wider rows of B, descriptor loads
              (16, 64, 128, 1, 4, 6, False), (16, 64, 256, 1, 4, 4, False),
              (16, 128, 128, 1, 4, 6, False), (16, 64, 128, 1, 4, 4, True),
              (16, 64, 128, 1, 4, 8, True), (16, 128, 128, 1, 4, 4, True),
              (16, 64, 256, 1, 4, 4, True), (32, 64, 128, 2, 4, 6, False),
              # 128x64x64 in 8 stages was the best at M = 128 there (25.6 us, 0.90x cuBLAS;
              # runs/gemm-configs-h100-skinny-round15.json): shorter K steps, more in flight (in
              # 9 stages, the winner of round 16, it was the skinny start until round 140)
              (128, 32, 64, 1, 4, 10, False),
              (128, 64, 32, 1, 4, 12, False), (128, 32, 32, 1, 4, 16, False),
              (128, 128, 64, 1, 8, 6, False), (128, 64, 64, 1, 8, 8, False))),
    ],
    # the fused bias+GELU case: DEFAULT, TILED, and DEFAULT with one knob at a time off or
    # changed. An epilogue over two column halves took twice as long on an H100 in a
    # non-persistent kernel (bench/results/gemm-configs-h100.json of 2026-11-22); in a flattened
    # persistent one, with the erfc fit, it was the fastest (runs/gemm-epilogue-h100-round33.json
    # to -round36.json). 128 x 128 tiles, two programs per SM (one's epilogue under the other's
    # main loop), lost in every run (runs/gemm-configs-h100-fused-128x128.json, -round36.json).
    "fused": [
        DEFAULT, TILED, _cfg(use_tma=True), _cfg(use_tma=True, num_stages=4),
        _cfg(use_tma=True, persistent=1),
        _cfg(use_tma=True, persistent=1, flatten=True),
        _cfg(use_tma=True, persistent=1, flatten=True, EPILOGUE_SPLIT=2),
        _cfg(use_tma=True, persistent=1, flatten=True, gelu_erf_fit=True),
        dataclasses.replace(DEFAULT, num_stages=4),
        _cfg(persistent=1, flatten=True, EPILOGUE_SPLIT=2, gelu_erf_fit=True, num_stages=4),
    ],
    "fp32": [
        _cfg(BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_stages=3),
        _cfg(BLOCK_M=64, BLOCK_N=128, BLOCK_K=32, num_warps=4, num_stages=3),
        _cfg(BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_stages=3, use_tma=True),
    ],
}


def config_for(case: Case, given: dict) -> tuple[str, object]:
    """(template name, config) for a case: --config-json's entry (template params, or
    {"template": NAME, "params": {...}} for another template of the plan, gemm_cuda), else the
    gemm template's start for the case."""
    if case.name in given:
        entry = given[case.name]
        name = entry.get("template", "gemm") if "params" in entry else "gemm"
        return name, get_template(name).config(entry.get("params", entry))
    return "gemm", SKINNY_DEFAULT if case.shape.get("M", 1 << 30) <= 128 else DEFAULT


class Setup:
    """One case at one shape: the task's model and inputs on the device, and its plan."""

    def __init__(self, case: Case, device: torch.device, smoke: bool):
        self.case = case
        self.task = tasks.load(ROOT / "tasks" / f"{case.task}.py")
        self.task.apply_shape(self.task.cpu_shapes[0] if smoke else case.shape)
        self.plan = plan(self.task)
        self.dtype = DTYPES[case.dtype]
        torch.manual_seed(0)
        with torch.device(device):
            self.model = self.task.make_model().to(self.dtype).eval()
            self.inputs = [t.to(self.dtype) for t in self.task.make_inputs()]
        self.init = self.task.module.get_init_inputs()
        self.flops = self.task.formula_value("flops", self.inputs[0].element_size())
        self.device = device

    def candidate(self, cfg: GemmConfig, cache: Path, variant: str = "",
                  unconstrained: bool = False, template_name: str = "gemm"):
        """(module, ModelNew with the model's weights); a `variant` names a module of its own
        (one a caller may patch) for the same source; `unconstrained` renders a config the
        template's constraints prune (to test a constraint)."""
        template = get_template(template_name)
        if unconstrained:
            template = dataclasses.replace(template, constraints=lambda cfg: [])
        source = template.render(cfg, **self.plan.context)
        if variant:
            source += f"\n# variant: {variant}\n"
        module = load_candidate(source, cache)
        with torch.device(self.device):
            model = module.ModelNew(*self.init)
        state = {k: v.detach() for k, v in self.model.state_dict().items()}
        model.load_state_dict(state, strict=False, assign=True)
        return module, model

    def check(self, model) -> dict:
        """The verifier's comparison of one output against float64, PyTorch's same-dtype output."""
        with torch.no_grad():
            got = model(*self.inputs)
            same = self.model(*self.inputs)
            ref64 = _float64(self.model)(*[t.double() for t in self.inputs])
        tol = tolerance.tolerance_for(self.case.dtype, self.task.tolerances.get(self.case.dtype))
        comp = tolerance.compare(got, ref64, same, tol)
        return {"ok": comp.ok, "max_rel_err": comp.max_rel_err, "rel_l2_err": comp.rel_l2_err,
                "rel_l2_bound": comp.rel_l2_bound, "n_bad": comp.n_bad}

    def tma_path(self, module) -> str:
        a, b = self.operands()
        if hasattr(module, "cuda_plan"):  # gemm_cuda: which kernel runs the call, and why
            extras = tuple(self.model.get_parameter(spec["path"]) if spec["source"] == "param"
                           else self.inputs[spec["index"]] for spec in self.plan.context["inputs"])
            why = module.cuda_plan(self.inputs[0], self.model.get_parameter(
                self.plan.context["b"]["path"]), extras)
            return "cuda" if why is None else f"triton ({why})"
        a3, b3, _ = module._as_3d(a, b)
        return module.tma_plan(a3, b3)

    def operands(self):
        ctx = self.plan.context
        values = []
        for spec in (ctx["a"], ctx["b"]):
            t = (self.inputs[spec["index"]] if spec["source"] == "arg"
                 else self.model.get_parameter(spec["path"]))
            values.append(t.transpose(-2, -1) if spec["transposed"] else t)
        return values


def _float64(model):
    import copy

    return copy.deepcopy(model).to(torch.float64)


def _tflops(flops: int, ms: float) -> float:
    return flops / (ms * 1e-3) / 1e12


def run_main(args, device, cache: Path) -> dict:
    from verifier.timing import L2Flusher, bench, graphed_where_possible

    given = json.loads(Path(args.config_json).read_text()) if args.config_json else {}
    flusher = None if args.smoke else L2Flusher(device)
    autotune_cases = set(args.max_autotune_cases.split(",")) if args.max_autotune else set()
    rows = []
    for case in _selected(args):
        setup = Setup(case, device, args.smoke)
        template_name, cfg = config_for(case, given)
        row = {"case": case.name, "task": case.task, "shape": case.shape, "dtype": case.dtype,
               "template": template_name, "config": dataclasses.asdict(cfg),
               "flops": setup.flops}
        try:  # a kernel that fails is recorded as incorrect; the other cases still run
            module, model = setup.candidate(cfg, cache, template_name=template_name)
            row["tma_path"] = setup.tma_path(module)
            row["correctness"] = setup.check(model)
        except Exception as exc:
            row["correctness"] = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            row["tma_path"] = None
        print(f"{case.name}: correct={row['correctness']['ok']} tma={row['tma_path']}", flush=True)
        if row["correctness"]["ok"] and not args.smoke:
            a, b = setup.operands()
            fns = {"kernel": lambda: model(*setup.inputs),
                   "eager": lambda: setup.model(*setup.inputs),
                   "cublas": lambda: torch.matmul(a, b)}
            compiled = torch.compile(setup.model)
            fns["compile"] = lambda: compiled(*setup.inputs)
            if case.name in autotune_cases:
                tuned = torch.compile(setup.model, mode="max-autotune")
                fns["compile_max_autotune"] = lambda: tuned(*setup.inputs)
            with torch.no_grad():
                start = time.time()
                for fn in fns.values():  # compile (and autotune) outside the timed runs
                    fn()
                torch.cuda.synchronize()
                row["compile_seconds"] = time.time() - start
                if args.graphs:  # GPU time alone; a callable that cannot be captured is
                    # timed without a graph, and named (with why) in the row
                    fns, row["graph_capture_failed"] = graphed_where_possible(fns)
                timings = bench(fns, flusher=flusher, budget_ms=150.0 * len(fns))
            row["ms"] = {k: t.median_ms for k, t in timings.items()}
            row["tflops"] = {k: _tflops(setup.flops, ms) for k, ms in row["ms"].items()}
            row["speedup"] = {f"vs_{k}": row["ms"][k] / row["ms"]["kernel"]
                              for k in row["ms"] if k != "kernel"}
            bar = ACCEPTANCE.get(case.name)
            if bar:
                row["acceptance"] = {"baseline": bar[0], "needed": bar[1],
                                     "met": row["speedup"][f"vs_{bar[0]}"] >= bar[1]}
            if case.name.startswith("linear_bias_gelu") and "compile_max_autotune" in row["ms"]:
                row["acceptance_max_autotune"] = row["speedup"]["vs_compile_max_autotune"] >= 1.0
        rows.append(row)
    return {"rows": rows, "cuda_graphs": args.graphs}


def run_configs(args, device, cache: Path) -> dict:
    from verifier.timing import L2Flusher, bench, graphed_where_possible

    flusher = None if args.smoke else L2Flusher(device)
    out = []
    for case in _selected(args):
        setup = Setup(case, device, args.smoke)
        configs = CANDIDATES[case.kind] or CANDIDATES["large"]
        if args.candidates:
            configs = [get_template("gemm").config(p)
                       for p in json.loads(Path(args.candidates).read_text())]
        fns, results = {}, []
        for i, cfg in enumerate(configs):
            problems = constraints(cfg)
            entry = {"config": dataclasses.asdict(cfg), "problems": problems}
            results.append(entry)
            if problems and not args.unconstrained:
                continue
            try:  # a config that fails to compile is recorded, and the others still run
                module, model = setup.candidate(cfg, cache, unconstrained=bool(problems))
                entry["tma_path"] = setup.tma_path(module)
                entry["correctness"] = setup.check(model)
            except Exception as exc:
                entry["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                print(f"{case.name} cfg{i}: {entry['error']}", flush=True)
                continue
            if entry["correctness"]["ok"]:
                fns[f"cfg{i}"] = (lambda m: lambda: m(*setup.inputs))(model)
        row = {"case": case.name, "dtype": case.dtype, "shape": case.shape, "configs": results}
        if fns and not args.smoke:
            a, b = setup.operands()
            fns["cublas"] = lambda: torch.matmul(a, b)
            fns["eager"] = lambda: setup.model(*setup.inputs)
            with torch.no_grad():
                if args.graphs:  # GPU time alone, as in the main table's --graphs
                    fns, row["graph_capture_failed"] = graphed_where_possible(fns)
                timings = bench(fns, flusher=flusher, budget_ms=60.0 * len(fns))
            for i, entry in enumerate(results):
                if f"cfg{i}" in timings:
                    entry["ms"] = timings[f"cfg{i}"].median_ms
                    entry["tflops"] = _tflops(setup.flops, entry["ms"])
                    entry["vs_cublas"] = timings["cublas"].median_ms / entry["ms"]
            row["cublas_ms"] = timings["cublas"].median_ms
            row["eager_ms"] = timings["eager"].median_ms
            timed = [e for e in results if "ms" in e]
            row["best"] = min(timed, key=lambda e: e["ms"]) if timed else None
        print(f"{case.name}: {sum('correctness' in e for e in results)} configs run, "
              f"{sum(e.get('correctness', {}).get('ok', False) for e in results)} correct",
              flush=True)
        out.append(row)
    return {"rows": out}


def _selected(args) -> list[Case]:
    if not args.cases:
        return [c for c in CASES if c.name not in ON_REQUEST]
    names = set(args.cases.split(","))
    return [c for c in CASES if c.name in names]


def print_table(result: dict, configs: bool) -> None:
    if configs:
        for row in result["rows"]:
            if "cublas_ms" in row:  # every config, timed or why not, beside the baselines
                print(f"{row['case']}: cuBLAS {row['cublas_ms'] * 1e3:.1f} us, eager "
                      f"{row['eager_ms'] * 1e3:.1f} us")
                for entry in row["configs"]:
                    c = entry["config"]
                    tiles = (f"{c['BLOCK_M']}x{c['BLOCK_N']}x{c['BLOCK_K']} w{c['num_warps']} "
                             f"s{c['num_stages']} g{c['GROUP_M']} ctas {c['num_ctas']} "
                             f"split {c['SPLIT_K']} tma {c['use_tma']}"
                             + (" erf-fit" if c.get("gelu_erf_fit") else ""))
                    why = entry.get("error") or "; ".join(entry["problems"]) or "not timed"
                    timed = f"{entry['ms'] * 1e3:.1f} us" if "ms" in entry else why[:80]
                    print(f"  {tiles:44s} {timed}")
            best = row.get("best")
            if best:
                print(f"{row['case']:34s} best {best['tflops']:7.1f} TFLOP/s "
                      f"{best['vs_cublas']:.3f}x cuBLAS  {json.dumps(best['config'])}")
        return
    print(f"{'case':34s} {'kernel':>8s} {'cublas':>8s} {'eager':>8s} {'compile':>8s} "
          f"{'max-at':>8s}  TFLOP/s; ratios: kernel vs cublas, eager, compile, max-autotune")
    for row in result["rows"]:
        if "tflops" not in row:
            print(f"{row['case']:34s} correct={row['correctness']['ok']} (not timed)")
            continue
        t = row["tflops"]
        s = row["speedup"]
        print(f"{row['case']:34s} {t['kernel']:8.1f} {t['cublas']:8.1f} {t['eager']:8.1f} "
              f"{t['compile']:8.1f} {t.get('compile_max_autotune', float('nan')):8.1f}  "
              f"{s['vs_cublas']:.3f} {s['vs_eager']:.3f} {s['vs_compile']:.3f} "
              f"{s.get('vs_compile_max_autotune', float('nan')):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true",
                        help="CPU interpreter at tiny shapes: correctness only, nothing written")
    parser.add_argument("--configs", action="store_true", help="time candidate configs per case")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--config-json", help="JSON file: case name -> template params")
    parser.add_argument("--candidates",
                        help="with --configs: a JSON list of template params to time at every "
                             "selected case instead of the built-in candidates")
    parser.add_argument("--unconstrained", action="store_true",
                        help="with --configs: time candidates the template's constraints prune "
                             "too (their problems are recorded): for testing a constraint")
    parser.add_argument("--max-autotune", action="store_true",
                        help="also time torch.compile(mode='max-autotune') (minutes per case)")
    parser.add_argument("--max-autotune-cases",
                        default="linear_bias_gelu_8192x8192x4096,matmul_4096",
                        help="cases --max-autotune covers")
    parser.add_argument("--graphs", action="store_true",
                        help="time each callable as a CUDA-graph replay: GPU time without the "
                             "host's (writes gemm-<device>-graphs.json, with --configs "
                             "gemm-configs-<device>-graphs.json)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    args = parser.parse_args()
    if not args.smoke and not torch.cuda.is_available():
        parser.error("no CUDA device: run with --smoke on the CPU")
    device = torch.device("cpu" if args.smoke else "cuda")
    # fp32 is compared and timed IEEE against IEEE: TF32 would fake the cuBLAS baseline.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cache = Path(os.environ.get("KZOO_HOME", ROOT / ".kzoo")) / "bench-gemm-cache"
    started = time.time()
    result = {"environment": environment(), "mode": "configs" if args.configs else "main",
              "smoke": args.smoke}
    result.update(run_configs(args, device, cache) if args.configs
                  else run_main(args, device, cache))
    result["seconds"] = time.time() - started
    print_table(result, args.configs)
    failed = [r["case"] for r in result["rows"]
              if not args.configs and not r["correctness"]["ok"]]
    if not args.smoke:
        kind = "gemm-configs" if args.configs else "gemm"
        name = f"{kind}-{device_label()}{'-graphs' if args.graphs else ''}.json"
        path = Path(args.out) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {path}")
    if failed:
        print(f"INCORRECT: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
