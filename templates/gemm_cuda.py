"""A Linear with its epilogue in CUDA C++ on Hopper (template `gemm_cuda`): act(x @ W^T + bias).

The kernel (gemm_cuda.cu.jinja) is round 452's handoff GEMM (bench/cuda_gemm_source.py, RESULTS.md
"The bias+GELU GEMM in CUDA C++"): warp-specialized, one producer warp group whose first thread
issues TMA loads into a ring of `stages` shared-memory stages and two consumer warp groups issuing
wgmma on 128 x `bn` tiles; persistent (one CTA an SM), tiles in groups of `group_m` cluster rows;
`cluster` 2 runs CTAs in pairs along M that multicast the weight tile. At a tile's end the
consumers write acc + bias, rounded to the output dtype as eager's linear rounds it, into a
shared-memory staging tile and start their next tile; the producer warp group's other three warps
apply the rest of the epilogue there and TMA-store it. `bias_smem`: those warps also copy each
tile's bias into shared memory ahead of the handoff (else the consumers load it from global
memory there). Its PTX comes from kernel-zoo's header kzoo_sm90.cuh (kernel_zoo/cuda_sm90.py),
built for sm_90a; bfloat16 and float16.

What it covers (`covers(context)`): agent.plan_gemm's context of a Linear, `a` not transposed and
`b` transposed (W as nn.Linear holds it, N x K), an epilogue f(acc) or f(acc + row input) where f
reads nothing else (the activation: a chain of pointwise ops of that one value, or nothing), and
no row norm. Other contexts are an InvalidConfig; the planner lists this template only where it
covers the context.

Every rendered module also holds the Triton `gemm` template's kernels at TRITON_PARAMS (the
zoo's linear_bias_gelu config for the H200, 1.17.0), names prefixed `_triton_`: they run the calls
the CUDA kernel does not take, which `cuda_plan(a, b, extras)` in the module names: not an sm_90
GPU (Triton's interpreter included), float32, at most MIN_ROWS output rows (the Triton kernels'
skinny tiles), K or N not a multiple of 8 (TMA rows of whole 16 bytes), a non-contiguous x or
weight, an address not 16-byte aligned. Where CUDA is not available at all the module does not
import (`cuda_ext.load` raises), and the verifier says the candidate needs a GPU.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from templates import gemm
from templates.base import InvalidConfig, Param, Template
from templates.pointwise import validate_inputs
from templates.pointwise_cuda import cuda_expr
from templates.prefix import append_companion

BM = 128
BK = 64
SMEM_LIMIT = 232448  # an H100/H200 block's dynamic shared memory (227 KB)
MIN_ROWS = 128
# The Triton kernels of the calls the CUDA kernel does not take: the zoo's gelu(linear) config on
# the H200 (kernel_zoo/entries/linear_bias_gelu/1.17.0, bfloat16 and float16 alike).
TRITON_PARAMS = {
    "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3,
    "SPLIT_K": 1, "persistent": 1, "use_tma": True, "EPILOGUE_SPLIT": 2, "flatten": True,
    "gelu_erf_fit": True, "skinny_rows": 128, "odd_tiled": True, "single_wave_tiled": True,
    "fuse_norm": False, "ws_pingpong": True, "ws_coop": False, "num_ctas": 1, "swap_ab": False,
    "shift_tail": False,
}


@dataclass(frozen=True)
class GemmCudaConfig:
    bn: int
    stages: int
    cluster: int
    group_m: int
    bias_smem: bool


SPACE = (
    Param("bn", (192, 256)),
    Param("stages", (2, 3, 4, 5, 6)),
    Param("cluster", (1, 2)),
    Param("group_m", (4, 8, 16)),
    Param("bias_smem", (False, True)),
)

# Round 452's fastest form: 1.115-1.121x eager at gelu(linear) 8192 x 8192 x 4096 bfloat16 on an
# H200 (bench/results/runs/probe-cuda-gemm-h200-round452/call14.json, call15.json).
DEFAULT = GemmCudaConfig(bn=192, stages=4, cluster=2, group_m=8, bias_smem=True)


def shared_bytes(cfg: GemmCudaConfig) -> int:
    """The kernel's dynamic shared memory: the stages, the staging tile, the bias, alignment and
    the barriers (SMEM_BYTES in gemm_cuda.cu.jinja)."""
    stage = BM * BK * 2 + cfg.bn * BK * 2
    return cfg.stages * stage + BM * cfg.bn * 2 + 4 * cfg.bn + 1024 + (2 * cfg.stages + 3) * 8


def constraints(cfg: GemmCudaConfig) -> list[str]:
    problems = []
    if shared_bytes(cfg) > SMEM_LIMIT:
        problems.append(f"{cfg.stages} stages of 128x{cfg.bn}x{BK} tiles beside the staging tile "
                        f"take {shared_bytes(cfg)} bytes of shared memory, over {SMEM_LIMIT}")
    return problems


def split_epilogue(epilogue: Any, inputs: list[dict]) -> tuple[int | None, list]:
    """(the bias's input index or None, the epilogue with its pre-activation as ["input", 0]),
    where the epilogue is f(acc) or f(acc + a row input) and f reads nothing else; else
    InvalidConfig naming what is outside the kernel."""
    found: list = []

    def is_pre(node: Any) -> int | None | bool:
        if node == ["acc"]:
            return None
        if isinstance(node, list) and len(node) == 3 and node[0] == "add":
            for x, y in ((node[1], node[2]), (node[2], node[1])):
                if x == ["acc"] and isinstance(y, list) and len(y) == 2 and y[0] == "input" \
                        and isinstance(y[1], int) and 0 <= y[1] < len(inputs) \
                        and inputs[y[1]]["kind"] == "row":
                    return y[1]
        return False

    def walk(node: Any) -> Any:
        pre = is_pre(node)
        if pre is not False:
            found.append(pre)
            return ["input", 0]
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            return node
        if node[0] in ("acc", "input"):
            raise InvalidConfig(f"gemm_cuda: the epilogue reads {node} beside the pre-activation "
                                "(acc, or acc + a row bias); the kernel applies a function of "
                                "that one value")
        return [node[0], *(walk(arg) for arg in node[1:])]

    post = walk(epilogue)
    if not found:
        raise InvalidConfig("gemm_cuda: the epilogue never reads ['acc'], the matmul result")
    if len(set(map(repr, found))) != 1:
        raise InvalidConfig("gemm_cuda: the epilogue reads acc both with and without the bias")
    return found[0], post


def covers(context: dict) -> str | None:
    """None where the kernel computes this plan context; else why not."""
    a, b = context.get("a") or {}, context.get("b") or {}
    if a.get("transposed") is not False or b.get("transposed") is not True:
        return "it computes x @ W^T, W as nn.Linear holds it (a not transposed, b transposed)"
    if context.get("row_norm"):
        return "it has no row norm after the epilogue"
    inputs = context.get("inputs") or []
    if len(inputs) > 1:
        return "its epilogue reads at most one input, a row bias"
    try:
        split_epilogue(context.get("epilogue", ["acc"]), list(inputs))
    except InvalidConfig as exc:
        return str(exc).removeprefix("gemm_cuda: ")
    return None


class GemmCudaTemplate(Template):
    """Checks the context, translates the epilogue, and appends the Triton companion."""

    def render(self, cfg: Any, **context: Any) -> str:
        op = context.get("op", "missing")
        if not isinstance(op, str) or not op.isidentifier():
            raise InvalidConfig(f"template {self.name}: op must be an identifier (it names "
                                f"launch_<op>), got {op!r}")
        params = context.get("params", [])
        a = gemm._check_operand("a", context.get("a"), params)
        b = gemm._check_operand("b", context.get("b"), params)
        raw_inputs = context.get("inputs", [])
        inputs = validate_inputs(raw_inputs, params) if raw_inputs else []
        epilogue = context.get("epilogue", ["acc"])
        reason = covers({**context, "a": a, "b": b, "inputs": inputs, "epilogue": epilogue})
        if reason is not None:
            raise InvalidConfig(f"template {self.name}: {reason}")
        bias_index, post = split_epilogue(epilogue, inputs)
        context = {**context, "a": a, "b": b, "inputs": inputs, "epilogue": epilogue,
                   "bias_index": bias_index, "post_expr": cuda_expr(post, 1),
                   "epilogue_json": json.dumps(epilogue), "min_rows": MIN_ROWS,
                   "triton_params_repr": repr(TRITON_PARAMS)}
        source = super().render(cfg, **context)
        triton = gemm.TEMPLATE.render(gemm.TEMPLATE.config(TRITON_PARAMS), **context)
        parts = [source.rstrip()]
        append_companion(parts, set(source.splitlines()), triton, "_triton_",
                         "# the Triton gemm template's kernels at TRITON_PARAMS: the calls "
                         "cuda_plan sends them (_triton_)")
        return "\n\n".join(parts) + "\n"


TEMPLATE = GemmCudaTemplate(
    name="gemm_cuda",
    family="gemm",
    jinja_file="gemm_cuda.py.jinja",
    config_type=GemmCudaConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=gemm.bytes_moved,
    launcher="launch_{op}",
    doc=__doc__ or "",
    needs_gpu=True,
)
