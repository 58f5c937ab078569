"""The GEMM family: template knobs verified in Triton's interpreter, constraints, the matcher,
the ops, and a wrong epilogue that the verifier must reject."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import bench_scripts
import tasks
from agent.plan import Graph, capture, plan
from agent.plan_gemm import match_gemm
from conftest import ROOT
from templates import InvalidConfig, get_template
from templates.gemm import DECODE_WIDE, DEFAULT, LATER_KNOBS, TILED, constraints
from verifier.core import Verifier
from verifier.worker import detect_mode

GEMM = get_template("gemm")
# Small tiles: several tiles, K steps and edge tiles at the tasks' cpu shapes.
SMALL = dataclasses.replace(TILED, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=2, num_warps=4,
                            num_stages=2)
_counter = itertools.count()


@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("gemm"))


def _task(name: str):
    return tasks.load(ROOT / "tasks" / f"{name}.py")


def _verify(verifier, name: str, dtype: str, cfg=SMALL, **context_overrides):
    task = _task(name)
    context = {**plan(task).context, **context_overrides}
    return verifier.verify(task, GEMM.render(cfg, **context), dtype)


def _load(source: str, tmp_path):
    path = tmp_path / f"gemm_candidate_{next(_counter)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name,dtype,cfg", [
    ("matmul", "bfloat16", SMALL),
    ("matmul", "float32", SMALL),  # IEEE fp32: the verifier's fp32 tolerance excludes TF32
    ("matmul_transposed", "float16", SMALL),
    ("matmul_batched", "bfloat16", SMALL),
    ("matmul_skinny", "bfloat16", dataclasses.replace(SMALL, BLOCK_M=16, BLOCK_K=128, SPLIT_K=4)),
    ("matmul_batched", "float16", dataclasses.replace(SMALL, persistent=1)),
    ("linear_bias_gelu", "bfloat16", SMALL),
    ("linear_bias_gelu", "float32", dataclasses.replace(SMALL, BLOCK_N=64, SPLIT_K=2)),
    ("linear_residual", "float16", dataclasses.replace(SMALL, persistent=2)),
    ("linear_bias_silu", "bfloat16", dataclasses.replace(SMALL, use_tma=True)),  # falls back
    # the epilogue in column slices, erf-GELU from erfc's fit, a flattened persistent loop
    ("linear_bias_gelu", "float32", dataclasses.replace(
        SMALL, BLOCK_N=64, EPILOGUE_SPLIT=2, gelu_erf_fit=True, persistent=1, flatten=True)),
    ("linear_bias_gelu", "bfloat16", dataclasses.replace(
        SMALL, BLOCK_N=128, EPILOGUE_SPLIT=4, gelu_erf_fit=True, SPLIT_K=2)),
    ("linear_residual", "float16", dataclasses.replace(SMALL, BLOCK_N=64, EPILOGUE_SPLIT=2)),
    # C^T = B^T A^T: transposed operands, split-K's partials and a sliced epilogue after the
    # accumulator is turned back
    ("matmul_transposed", "bfloat16", dataclasses.replace(SMALL, BLOCK_M=16, swap_ab=True)),
    ("linear_bias_gelu", "float32", dataclasses.replace(
        SMALL, BLOCK_M=16, BLOCK_N=64, SPLIT_K=2, EPILOGUE_SPLIT=2, swap_ab=True)),
    ("matmul_skinny", "float16", dataclasses.replace(DECODE_WIDE, BLOCK_K=32)),
    # the last tile row shifted back to end at row M (33 rows: tiles at rows 0 and 1, or 0, 16
    # and 17), overlapping the tile before: transposed operands, a sliced GELU epilogue, a
    # residual under swap_ab, a persistent loop
    ("matmul_transposed", "bfloat16", dataclasses.replace(SMALL, shift_tail=True)),
    ("linear_bias_gelu", "float32", dataclasses.replace(
        SMALL, BLOCK_N=64, EPILOGUE_SPLIT=2, shift_tail=True)),
    ("linear_residual", "float16", dataclasses.replace(
        SMALL, BLOCK_M=16, swap_ab=True, shift_tail=True, persistent=1)),
], ids=["plain", "fp32-ieee", "transposed", "batched", "split-k", "persistent", "bias-gelu",
        "fp32-bias-gelu-split-k", "residual-persistent", "tma-config-fallback",
        "fp32-gelu-fit-sliced-flattened", "gelu-fit-4-slices-split-k", "residual-sliced",
        "swap-ab-transposed", "fp32-swap-ab-split-k-sliced", "decode-wide-swap-ab",
        "shift-tail-transposed", "fp32-shift-tail-gelu-sliced", "shift-tail-swap-ab-persistent"])
def test_knob_is_verified_correct(verifier, name, dtype, cfg):
    verdict = _verify(verifier, name, dtype, cfg)
    assert verdict.accepted, verdict.reasons


def test_a_wrong_epilogue_is_rejected(verifier):
    """Rendered without the bias (GELU of the bare matmul): the verifier must say no."""
    verdict = _verify(verifier, "linear_bias_gelu", "bfloat16", epilogue=["gelu", ["acc"], "none"])
    assert not verdict.accepted
    assert any("mismatch" in r or "wrong" in r or "max" in r for r in verdict.reasons), \
        verdict.reasons


def test_a_missing_transpose_is_rejected(verifier):
    task = _task("matmul_transposed")
    context = plan(task).context
    # rendered without the transpose: a (K x M) @ b (K x N) does not even multiply at 33x47x65
    context = {**context, "a": {**context["a"], "transposed": False}}
    verdict = verifier.verify(task, GEMM.render(SMALL, **context), "float32")
    assert not verdict.accepted


def test_split_k_is_deterministic_and_tma_kernel_matches(tmp_path):
    ctx = {"op": "matmul", "a": {"source": "arg", "index": 0, "transposed": False},
           "b": {"source": "arg", "index": 1, "transposed": True}, "params": []}
    split = _load(GEMM.render(dataclasses.replace(SMALL, SPLIT_K=4), **ctx), tmp_path)
    a, w = torch.randn(20, 256), torch.randn(48, 256)  # b = w^T, read by strides
    first, second = split.launch_matmul(a, w), split.launch_matmul(a, w)
    assert torch.equal(first, second)
    torch.testing.assert_close(first, a @ w.t(), rtol=1e-5, atol=1e-4)
    # The interpreter runs tensor-descriptor kernels too: force the TMA path to check its code.
    tma = _load(GEMM.render(dataclasses.replace(SMALL, use_tma=True), **ctx), tmp_path)
    assert tma.tma_plan(a.unsqueeze(0), w.t().unsqueeze(0)) != "tma"  # no GPU here: fallback
    for dtype in (torch.float32, torch.bfloat16):
        # the second call of a signature launches from its recipe, its descriptors built
        # without TensorDescriptor's checks (_RecordedDescriptor)
        for _ in range(2):
            x, y = torch.randn(40, 64, dtype=dtype), torch.randn(64, 48, dtype=dtype)
            got = tma._gemm(x.t().contiguous().t(), y, (), use_tma=True)  # column-major A
            torch.testing.assert_close(got.double(), x.double() @ y.double(), rtol=1.6e-2,
                                       atol=1e-2)
    assert [r[0] for r in tma._RECIPES.values()] == ["tma", "tma"]


def test_shift_tail_reads_in_bounds_rows_and_stores_the_product(tmp_path):
    """shift_tail: the last tile row starts at M - BLOCK_M, so the pointer kernel launches with
    its row masks off (EVEN_M) once M reaches a tile, and both kernels, the descriptor kernel
    forced in the interpreter, store the product at M of 40 (tiles at rows 0 and 8), 32 (whole
    tiles) and 20 (under a tile: no shift, rows masked)."""
    ctx = {"op": "matmul", "a": {"source": "arg", "index": 0, "transposed": False},
           "b": {"source": "arg", "index": 1, "transposed": True}, "params": []}
    shifted = _load(GEMM.render(dataclasses.replace(SMALL, shift_tail=True), **ctx), tmp_path)
    plain = _load(GEMM.render(SMALL, **ctx), tmp_path)
    assert shifted.SHIFT_TAIL and not plain.SHIFT_TAIL
    for m in (40, 32, 20):
        a, w = torch.randn(m, 96), torch.randn(48, 96)
        want = a @ w.t()
        for module in (shifted, plain):
            torch.testing.assert_close(module.launch_matmul(a, w), want, rtol=1e-5, atol=1e-4)
            for dtype in (torch.float32, torch.bfloat16):
                x, y = a.to(dtype), w.t().to(dtype)
                got = module._gemm(x, y, (), use_tma=True)
                torch.testing.assert_close(got.double(), x.double() @ y.double(), rtol=1.6e-2,
                                           atol=1e-2)
    even = {module.SHIFT_TAIL: [r[4]["EVEN_M"] for r in module._RECIPES.values()
                                if r[0] == "pointer"] for module in (shifted, plain)}
    assert even == {True: [True, True, False], False: [False, True, False]}


def test_odd_rows_ask_for_descriptor_loads_even_with_use_tma_off(tmp_path):
    """Rows the pointer kernel would copy (16-byte, not 16-element aligned) are routed to the
    descriptor kernel, which is rendered under every config; off a GPU the plan names the device
    as the reason, and the kernel itself, forced, computes the product in the interpreter."""
    ctx = {"op": "matmul", "a": {"source": "arg", "index": 0, "transposed": False},
           "b": {"source": "arg", "index": 1, "transposed": False}, "params": []}
    module = _load(GEMM.render(SMALL, **ctx), tmp_path)
    assert not SMALL.use_tma and SMALL.SPLIT_K == 1
    odd = torch.randn(1, 40, 24, dtype=torch.float16)  # 48-byte rows: 16-byte, not 16-element
    b = torch.randn(1, 24, 32, dtype=torch.float16)
    assert module._unaligned(odd) and not module._unaligned(b)
    assert module._unaligned(odd.transpose(1, 2))  # column-major: its columns are the rows
    a = torch.randn(1, 40, 32, dtype=torch.float16)
    assert module.tma_plan(a, torch.randn(1, 32, 48, dtype=torch.float16)) == \
        "config: use_tma is off"
    assert module.tma_plan(odd, b).startswith("not a CUDA device")
    # float32 keeps the padded pointer path (its descriptor kernel does not fit at the default
    # tiles, runs/probe-fp32-tma-h100.txt)
    assert module.tma_plan(odd.float(), b.float()) == "config: use_tma is off"
    got = module._gemm(odd[0], b[0], (), use_tma=True)
    torch.testing.assert_close(got.float(), odd[0].float() @ b[0].float(), rtol=2e-3, atol=2e-3)
    split = _load(GEMM.render(dataclasses.replace(SMALL, SPLIT_K=2), **ctx), tmp_path)
    assert split.tma_plan(odd, b) == "config: use_tma is off"  # the TMA kernel has no split-K


@pytest.mark.parametrize("cfg", [SMALL, dataclasses.replace(SMALL, SPLIT_K=2),
                                 dataclasses.replace(SMALL, persistent=1)],
                         ids=["plain", "split-k", "persistent"])
def test_repeated_calls_reuse_the_launch_recipe_and_stay_correct(tmp_path, cfg):
    """The second call of a signature launches from the recorded recipe (the caller's tensors in
    place of the first call's views): right for new values, a new signature, a residual that is a
    view, and never recorded for a call that had to copy an operand."""
    module = _load(GEMM.render(cfg, **plan(_task("linear_residual")).context), tmp_path)
    torch.manual_seed(5)

    def check(x, w, bias, residual):
        got = module._gemm(x, w.t(), (bias, residual))
        torch.testing.assert_close(got, x @ w.t() + bias + residual, rtol=1e-4, atol=1e-4)

    x, w, bias = torch.randn(2, 37, 64), torch.randn(40, 64), torch.randn(40)
    check(x, w, bias, torch.randn(2, 37, 40))
    assert len(module._RECIPES) == 1
    for _ in range(2):  # same signature, new values: the recipe
        check(torch.randn(2, 37, 64), torch.randn(40, 64), torch.randn(40), torch.randn(2, 37, 40))
    assert len(module._RECIPES) == 1
    check(torch.randn(3, 37, 64), w, bias, torch.randn(3, 37, 40))  # another M: another recipe
    residual_view = torch.randn(40, 2, 37).permute(1, 2, 0)  # not contiguous: its own strides
    check(x, w, bias, residual_view)
    check(x, w, bias, residual_view)
    assert len(module._RECIPES) == 3
    odd = torch.randn(2 * 37 * 64 + 1)[1:].view(2, 37, 64)  # 4 bytes off 16: rows padded (a copy)
    check(odd, w, bias, torch.randn(2, 37, 40))
    check(odd, w, bias, torch.randn(2, 37, 40))
    assert len(module._RECIPES) == 3


def test_a_kernel_too_big_for_shared_memory_is_compiled_with_fewer_stages(tmp_path):
    """On a GPU the launcher compiles first (`warmup`) and lowers the stages until the kernel's
    shared memory fits the device (float32 tiles under a flattened loop wanted 288 KB, GPU round
    46); at one stage it leaves them. Checked here with a stand-in for the compiled kernel."""
    module = _load(GEMM.render(SMALL, **plan(_task("matmul")).context), tmp_path)
    asked = []

    class Kernel:  # 100 KB of shared memory per stage
        def warmup(self, *args, grid, **kwargs):
            asked.append(kwargs["num_stages"])
            return type("Compiled", (), {"metadata": type("M", (), {
                "shared": 100_000 * kwargs["num_stages"]})})()

    kwargs = {"STAGES": 4, "num_stages": 4, "BLOCK_M": 32}
    fitted = module._fit_stages(Kernel(), (1,), (), kwargs, limit=232_448)
    assert fitted == {"STAGES": 2, "num_stages": 2, "BLOCK_M": 32} and asked == [4, 3, 2]
    asked.clear()
    assert module._fit_stages(Kernel(), (1,), (), kwargs, limit=50_000)["num_stages"] == 1
    assert asked == [4, 3, 2]  # one stage is never compiled to be measured: it is the floor


def test_constraints_prune_what_cannot_run():
    from templates.gemm import DECODE_WIDER, SKINNY_POINTER, SKINNY_TILES

    assert constraints(DEFAULT) == []
    assert GEMM.config(dataclasses.asdict(DEFAULT)) == DEFAULT
    too_big = dataclasses.replace(DEFAULT, BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_stages=4)
    assert any("shared memory" in p for p in constraints(too_big))
    assert any("registers" in p for p in constraints(
        dataclasses.replace(DEFAULT, BLOCK_M=256, BLOCK_N=256, num_warps=4)))
    assert any("persistent" in p for p in constraints(
        dataclasses.replace(SMALL, SPLIT_K=4, persistent=1)))
    assert any("TMA" in p for p in constraints(
        dataclasses.replace(SMALL, SPLIT_K=4, use_tma=True)))
    assert any("flatten" in p for p in constraints(dataclasses.replace(TILED, flatten=True)))
    assert any("slices" in p for p in constraints(dataclasses.replace(SMALL, EPILOGUE_SPLIT=2)))
    # clusters: the descriptor kernel's one program per tile, 64 rows a CTA at least, an epilogue
    # in one piece (Triton 3.6 builds no other); a CTA's shared memory holds half of A's tile
    from templates.gemm import SKINNY_DEFAULT, SKINNY_PAIR
    assert constraints(SKINNY_PAIR) == [] and SKINNY_PAIR.num_ctas == 2
    for knobs in (dict(use_tma=False), dict(persistent=1), dict(BLOCK_M=64),
                  dict(EPILOGUE_SPLIT=2)):
        assert any("num_ctas" in p for p in constraints(
            dataclasses.replace(SKINNY_PAIR, **knobs))), knobs
    assert constraints(dataclasses.replace(SKINNY_PAIR, num_ctas=1)) != []  # 288 KB of stages
    assert constraints(SKINNY_DEFAULT) == [] and SKINNY_DEFAULT.num_ctas == 1
    # swap_ab: for tiles under a warp group's 64 MMA rows, never in a cluster
    assert constraints(DECODE_WIDE) == [] and DECODE_WIDE.swap_ab
    assert any("swap_ab" in p for p in constraints(dataclasses.replace(DEFAULT, swap_ab=True)))
    assert any("swap_ab" in p for p in constraints(dataclasses.replace(SKINNY_PAIR, swap_ab=True)))
    # shift_tail: not with split-K's shared partial rows or the warp-specialized kernel; every
    # skinny and decode companion's tile builds within the constraints
    assert constraints(dataclasses.replace(DEFAULT, shift_tail=True, fuse_norm=True)) == []
    assert any("shift_tail" in p for p in constraints(dataclasses.replace(
        SKINNY_POINTER, use_tma=False, SPLIT_K=2, shift_tail=True)))
    assert any("shift_tail" in p for p in constraints(dataclasses.replace(
        DEFAULT, ws_pingpong=True, shift_tail=True)))
    for _, cfg, _ in SKINNY_TILES:
        assert constraints(cfg) == [], cfg
    assert constraints(DECODE_WIDER) == [] and DECODE_WIDER.swap_ab
    with pytest.raises(InvalidConfig, match="shared memory"):
        GEMM.render(too_big, op="matmul", a={"source": "arg", "index": 0, "transposed": False},
                    b={"source": "arg", "index": 1, "transposed": False}, params=[])
    # every config the space admits fits 227 KB at 2 bytes and one fp32 stage (the knobs that
    # leave shared memory alone stay at their defaults: the full product is 1.6M configs)
    tiles = [p for p in GEMM.space if p.name not in LATER_KNOBS]
    valid = [cfg for cfg in (GEMM.config(dict(zip([p.name for p in tiles], values)))
                             for values in itertools.product(*(p.choices for p in tiles)))
             if not constraints(cfg)]
    assert len(valid) > 100
    assert all(c.num_stages * (c.BLOCK_M * c.BLOCK_K + c.BLOCK_K * c.BLOCK_N) * 2 <= 227 * 1024
               for c in valid)


def test_params_written_before_the_later_knobs_still_load():
    """A zoo entry's or a config file's params dict from before EPILOGUE_SPLIT, flatten and
    gelu_erf_fit existed means those knobs at their old behaviour; an unknown key still fails."""
    old = {k: v for k, v in dataclasses.asdict(TILED).items() if k not in LATER_KNOBS}
    assert GEMM.config(old) == TILED
    assert GEMM.config({**old, "flatten": True, "persistent": 1}).flatten
    with pytest.raises(InvalidConfig, match="do not match"):
        GEMM.config({**old, "BLOCK_Q": 1})
    with pytest.raises(InvalidConfig, match="EPILOGUE_SPLIT"):
        GEMM.config({**old, "EPILOGUE_SPLIT": 3})


def test_gelu_erf_fit_is_rendered_only_where_asked():
    found = plan(_task("linear_bias_gelu"))
    fit = GEMM.render(dataclasses.replace(TILED, gelu_erf_fit=True), **found.context)
    plain = GEMM.render(TILED, **found.context)
    assert "erfc" in fit and "tl.math.erf(" not in fit
    assert "tl.math.erf(" in plain and "1.00002368" not in plain


def test_render_refuses_a_bad_context():
    base = {"op": "matmul", "a": {"source": "arg", "index": 0, "transposed": False},
            "b": {"source": "arg", "index": 1, "transposed": False}, "params": []}
    with pytest.raises(InvalidConfig, match="acc"):
        GEMM.render(SMALL, **base, epilogue=["relu", ["input", 0]],
                    inputs=[{"kind": "full", "source": "arg", "index": 2}])
    with pytest.raises(InvalidConfig, match="transposed"):
        GEMM.render(SMALL, **{**base, "a": {"source": "arg", "index": 0}})
    with pytest.raises(InvalidConfig, match="params"):
        GEMM.render(SMALL, **{**base, "b": {"source": "param", "path": "w", "transposed": True}})


MATCHED = {
    "matmul": ("matmul", False, False, ["acc"]),
    "matmul_mlp": ("matmul", False, False, ["acc"]),
    "matmul_skinny": ("matmul", False, False, ["acc"]),
    "matmul_batched": ("matmul", False, False, ["acc"]),
    "matmul_transposed": ("matmul_transposed", True, False, ["acc"]),
    "linear_bias_gelu": ("linear_bias_gelu", False, True,
                         ["gelu", ["add", ["acc"], ["input", 0]], "none"]),
    "linear_bias_silu": ("linear_bias_silu", False, True, ["silu", ["add", ["acc"], ["input", 0]]]),
    "linear_residual": ("linear_residual", False, True,
                        ["add", ["add", ["acc"], ["input", 0]], ["input", 1]]),
}


@pytest.mark.parametrize("name", sorted(MATCHED))
def test_matcher_on_each_task(name):
    op, a_t, b_t, epilogue = MATCHED[name]
    found = plan(_task(name))
    assert (found.op, found.family, found.template) == (op, "gemm", "gemm")
    ctx = found.context
    assert (ctx["a"]["transposed"], ctx["b"]["transposed"], ctx["epilogue"]) == (a_t, b_t, epilogue)


class _Inline:
    """A throwaway task around a Model class, for matcher cases no task file holds."""

    def __init__(self, fn, shapes: tuple):
        self.fn, self.shapes, self.op, self.path = fn, shapes, None, "inline"

    def make_model(self):  # called under capture's meta device, as a task's would be
        return _Lambda(self.fn)

    def make_inputs(self):
        return [torch.empty(s) for s in self.shapes]


def _match(fn, *shapes):
    task = _Inline(fn, shapes)
    gm, _ = capture(task)
    return match_gemm(Graph(gm, task))


class _Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.w = nn.Parameter(torch.empty(6, 4))
        self.bias = nn.Parameter(torch.empty(6))

    def forward(self, a, b):
        return self.fn(self, a, b)


@pytest.mark.parametrize("fn,shapes,expected", [
    (lambda m, a, b: a.T @ b.t(), [(4, 5), (6, 4)], (True, True, ["acc"])),
    (lambda m, a, b: torch.matmul(a.transpose(-2, -1), b.mT), [(2, 4, 5), (2, 6, 4)],
     (True, True, ["acc"])),
    (lambda m, a, b: torch.addmm(b, a, m.w.t(), beta=0.5, alpha=2.0), [(3, 4), (3, 6)],
     (False, True, ["add", ["mul", ["acc"], ["const", 2.0]],
                    ["mul", ["input", 0], ["const", 0.5]]])),
    (lambda m, x, _: torch.relu(F.linear(x, m.w, m.bias)) * 3, [(2, 7, 4), (1,)],
     (False, True, ["mul", ["relu", ["add", ["acc"], ["input", 0]]], ["const", 3.0]])),
])
def test_matcher_reads_transposes_addmm_and_chains(fn, shapes, expected):
    found = _match(fn, *shapes)
    assert found is not None
    ctx = found["context"]
    assert (ctx["a"]["transposed"], ctx["b"]["transposed"], ctx["epilogue"]) == expected


@pytest.mark.parametrize("fn,shapes", [
    (lambda m, a, b: (a @ b) @ b, [(4, 4), (4, 4)]),  # two matmuls
    (lambda m, a, b: a @ b, [(4,), (4, 5)]),  # a vector
    (lambda m, a, b: torch.bmm(a, b), [(2, 4, 5), (2, 5, 3)]),  # matches: control case
    (lambda m, a, b: (a @ b).sum(-1), [(4, 5), (5, 3)]),  # a reduction after it
])
def test_matcher_declines_what_the_template_does_not_cover(fn, shapes):
    found = _match(fn, *shapes)
    assert (found is not None) == (shapes[0] == (2, 4, 5))


def test_ops_fall_back_on_cpu_and_check_activations():
    from kernel_zoo import ops
    from kernel_zoo._ops_gemm import variant_name

    x, w, b = torch.randn(2, 3, 8), torch.randn(5, 8), torch.randn(5)
    torch.testing.assert_close(ops.linear(x, w, b, "gelu_tanh"),
                               F.gelu(F.linear(x, w, b), approximate="tanh"))
    torch.testing.assert_close(ops.matmul(x, w.t()), x @ w.t())
    with pytest.raises(ValueError, match="activation"):
        ops.linear(x, w, b, "swish")
    assert variant_name(True, "gelu") == "linear_bias_gelu"
    assert variant_name(False, None) == "linear"
    # the task's op is the variant's name: its zoo entry serves ops.linear(x, w, b, "gelu")
    assert _task("linear_bias_gelu").op == variant_name(True, "gelu")


def test_rendered_launcher_matches_the_zoo_op_signature(tmp_path):
    found = plan(_task("linear_bias_gelu"))
    module = _load(GEMM.render(SMALL, **found.context), tmp_path)
    x, w, b = torch.randn(2, 9, 40), torch.randn(24, 40), torch.randn(24)
    got = module.launch_linear_bias_gelu(x, w, b)  # (x, weight, bias), as ops.linear calls it
    torch.testing.assert_close(got, F.gelu(F.linear(x, w, b)), rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
def test_tma_path_is_taken_and_correct_on_hopper(tmp_path):
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("TMA needs sm_90")
    found = plan(_task("linear_bias_gelu"))
    # the use_tma config at aligned sizes, and the default config (use_tma off), which routes
    # rows of 1000 and 3073 elements to the same kernel
    for cfg, (m, k, n) in ((dataclasses.replace(TILED, use_tma=True), (1024, 512, 768)),
                           (TILED, (515, 1000, 3073)), (DEFAULT, (515, 1000, 3073))):
        module = _load(GEMM.render(cfg, **found.context), tmp_path)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        assert module.tma_plan(x.unsqueeze(0), w.t().unsqueeze(0)) == "tma"
        got = module.launch_linear_bias_gelu(x, w, b)
        ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
        torch.testing.assert_close(got.double(), ref, rtol=1.6e-2, atol=1e-2)


@pytest.mark.gpu
def test_descriptor_launches_reuse_their_recipe_and_stay_correct(tmp_path):
    """A repeated descriptor-path call launches from its recipe (descriptors built anew over the
    caller's tensors, the compiled kernel's own launcher): right for new values and a new weight,
    recorded once per signature."""
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("TMA needs sm_90")
    found = plan(_task("linear_bias_gelu"))
    cfg = dataclasses.replace(DEFAULT, use_tma=True, persistent=1, flatten=True,
                              EPILOGUE_SPLIT=2, gelu_erf_fit=True)
    module = _load(GEMM.render(cfg, **found.context), tmp_path)
    torch.manual_seed(3)
    for _ in range(3):
        x = torch.randn(777, 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(640, 512, device="cuda", dtype=torch.bfloat16) / 512 ** 0.5
        b = torch.randn(640, device="cuda", dtype=torch.bfloat16)
        got = module.launch_linear_bias_gelu(x, w, b)
        ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
        torch.testing.assert_close(got.double(), ref, rtol=1.6e-2, atol=1e-2)
        assert [r[0] for r in module._RECIPES.values()] == ["tma"]
        # repeated calls launch through the compiled kernel's own launcher
        assert all(r[-1] is not None for r in module._RECIPES.values())


_CLUSTER_BUILD = """
import json, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
from pathlib import Path
import torch, triton
import probe_gluon_gemm
from verifier.core import load_candidate
triton.runtime.driver.set_active(probe_gluon_gemm._CompileOnlyDriver())
for path, transposed in json.loads(sys.argv[1]):
    module = load_candidate(Path(path).read_text(), Path(sys.argv[2]))
    module._tma_refused = lambda *a: None  # no GPU here: the descriptor kernel regardless
    built = []

    def compile_only(kernel, grid, args, kwargs, out):
        built.append(kernel.warmup(*args, grid=grid, **kwargs))
        return kwargs, None
    module._launch_fitting = compile_only
    a, w = torch.empty(100, 512, dtype=torch.float16), torch.empty(1000, 512, dtype=torch.float16)
    b = torch.empty(1000, dtype=torch.float16)
    module._gemm(a, w.t() if transposed else w.t().contiguous(), (b, ), use_tma=True)
    print(json.dumps({{"path": path, "num_ctas": built[0].metadata.num_ctas,
                      "shared": built[0].metadata.shared}}))
"""


def test_the_cluster_tiles_build_for_hopper_without_a_gpu(tmp_path):
    """SKINNY_PAIR's descriptor kernel builds for sm_90a as CTA pairs under a bias and GELU
    (under CI's Triton; the GPU machine's 3.6 too): each CTA's shared memory holds half the A
    tile and all of B, as stage_bytes counts; a B passed transposed builds as single CTAs."""
    from conftest import build_for_hopper
    from templates.gemm import SKINNY_PAIR, stage_bytes

    context = plan(_task("linear_bias_gelu")).context
    context = {**context, "b": {**context["b"], "transposed": False}}
    path = tmp_path / "cluster.py"
    path.write_text(GEMM.render(SKINNY_PAIR, **context))
    script = _CLUSTER_BUILD.format(root=str(ROOT), bench=str(ROOT / "bench"))
    pair, single = build_for_hopper(script, [(str(path), False), (str(path), True)],
                                    tmp_path / "c")
    assert pair["num_ctas"] == 2 and single["num_ctas"] == 1
    stages = SKINNY_PAIR.num_stages * stage_bytes(SKINNY_PAIR, 2)
    assert stages <= pair["shared"] <= stages + 1024, pair


def _gelu_linear_cases(device: str = "cuda"):
    """gelu(x @ w^T + b) at skinny and odd shapes, both 16-bit dtypes: rows from 1 to past one
    tile, K and N off the tile, a 3-D x. Yields (label, x, w, b, the float64 reference, eager's
    own relative error against it)."""
    for dtype in (torch.bfloat16, torch.float16):
        for shape, n in (((1, 4096), 4096), ((17, 1000), 3000), ((48, 1000), 3000),
                         ((128, 4096), 4096), ((100, 72), 136), ((2, 50, 512), 1000),
                         ((300, 512), 256)):
            torch.manual_seed(0)
            x = torch.randn(*shape, device=device, dtype=dtype)
            w = (torch.randn(n, shape[-1], device=device) / shape[-1] ** 0.5).to(dtype)
            b = torch.randn(n, device=device, dtype=dtype)
            ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
            eager = F.gelu(F.linear(x, w, b)).double()
            yield (dtype, shape, n), x, w, b, ref, ((eager - ref).norm() / ref.norm()).item()


def _rel_err(got, ref) -> float:
    assert got.shape == ref.shape
    return ((got.double() - ref).norm() / ref.norm()).item()


@pytest.mark.gpu
def test_cluster_tiles_are_right_at_odd_shapes_on_hopper(tmp_path):
    """SKINNY_PAIR's tiles in CTA pairs (num_ctas=2, the descriptor kernel) under a bias and
    GELU at skinny and odd shapes (_gelu_linear_cases), against float64 within eager's own error;
    the recorded repeat is bit-identical. A B passed transposed runs single CTAs (Triton 3.6 does
    not build it in a cluster), rightly too."""
    from templates.gemm import SKINNY_PAIR

    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("clusters and TMA need sm_90")
    assert SKINNY_PAIR.num_ctas == 2 and SKINNY_PAIR.use_tma
    context = plan(_task("linear_bias_gelu")).context
    # epilogue(x @ B) with B (K, N) row-major: the weight as a matmul's operand
    context = {**context, "b": {**context["b"], "transposed": False}}
    module = _load(GEMM.render(SKINNY_PAIR, **context), tmp_path)
    for label, x, w, b, ref, bound in _gelu_linear_cases():
        for weight, ctas in ((w.t().contiguous(), 2), (w.t(), 1)):
            module._RECIPES.clear()
            assert module.tma_plan(x.reshape(1, -1, x.shape[-1]), weight.unsqueeze(0)) == "tma"
            got = module.launch_linear_bias_gelu(x, weight, b)
            [recipe] = module._RECIPES.values()
            assert recipe[0] == "tma" and recipe[5]["num_ctas"] == ctas
            assert torch.equal(module.launch_linear_bias_gelu(x, weight, b), got)
            assert _rel_err(got, ref) <= max(bound, 1e-3), (label, ctas, bound)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["SKINNY_NARROW", "SKINNY_NARROW_WIDE", "SKINNY_NARROW_PAIR",
                                  "SKINNY_DEFAULT", "SKINNY_POINTER", "SKINNY_WIDE", "SKINNY_WIDER",
                                  "SKINNY_LARGE", "DECODE_WIDE", "DECODE_WIDER"])
def test_the_skinny_tiles_are_right_at_odd_shapes_in_both_layouts(tmp_path, name):
    """The skinny and decode companions' tiles (single CTAs: 32x64 and 32x128 swapped, 32x64
    swapped and shifted, 64x64 through descriptors and through pointer loads, 64x128, 64x256,
    128x128, 16x64 and 16x128 swapped) on Linear's transposed weight and on the weight as a
    row-major matmul operand, at the cluster test's shapes, against float64 within eager's own
    error; the recorded repeat is bit-identical. A tile whose last tile row is shifted
    (shift_tail: 48, 100 and 300 rows here where tiles are 32 rows, 100 and 300 where 64) stores
    the same bits as the same tile unshifted: the rows two tiles share are computed alike."""
    import templates.gemm

    cfg = getattr(templates.gemm, name)
    context = plan(_task("linear_bias_gelu")).context
    for transposed in (True, False):
        layout = {**context, "b": {**context["b"], "transposed": transposed}}
        module = _load(GEMM.render(cfg, **layout), tmp_path)
        unshifted = _load(GEMM.render(dataclasses.replace(cfg, shift_tail=False), **layout),
                          tmp_path) if cfg.shift_tail else None
        for label, x, w, b, ref, bound in _gelu_linear_cases():
            weight = w if transposed else w.t().contiguous()
            got = module.launch_linear_bias_gelu(x, weight, b)
            assert torch.equal(module.launch_linear_bias_gelu(x, weight, b), got)
            assert _rel_err(got, ref) <= max(bound, 1e-3), (label, transposed, bound)
            if unshifted is not None:
                assert torch.equal(unshifted.launch_linear_bias_gelu(x, weight, b), got), label


@pytest.mark.gpu
@pytest.mark.parametrize("split", [2, 4, 8])
def test_split_k_is_correct_and_deterministic_on_the_gpu(tmp_path, split):
    """The split that arrives last sums every split's partial from L2 in split order: right at
    even and odd sizes, in bf16 and fp32, and the same bits on every run, however the splits
    are scheduled."""
    from templates.gemm import SKINNY_PAIR

    found = plan(_task("linear_bias_gelu"))
    cfg = dataclasses.replace(SKINNY_PAIR, BLOCK_N=128, BLOCK_K=64, num_warps=8,
                              num_stages=3, SPLIT_K=split, use_tma=False, num_ctas=1)
    module = _load(GEMM.render(cfg, **found.context), tmp_path)
    torch.manual_seed(split)
    for (m, n, k), dtype in (((128, 4096, 4096), torch.bfloat16), ((100, 1000, 3000),
                                                                     torch.bfloat16),
                             ((64, 512, 2048), torch.float32)):
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
        b = torch.randn(n, device="cuda", dtype=dtype)
        first = module.launch_linear_bias_gelu(x, w, b)
        ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
        tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1.6e-2,
                                                                             atol=1e-2)
        torch.testing.assert_close(first.double(), ref, **tol)
        for _ in range(20):
            assert torch.equal(module.launch_linear_bias_gelu(x, w, b), first)


@pytest.mark.gpu
def test_skinny_default_is_correct_at_the_skinny_gpu_shapes(tmp_path):
    """The rows_le_128 bucket's starting config (64x64 tiles, six stages) through the verifier at
    matmul_skinny's GPU shapes, and in float32 (fewer stages: its tiles are twice the bytes)."""
    from templates.gemm import SKINNY_DEFAULT

    task = tasks.load(ROOT / "tasks" / "matmul_skinny.py")
    found = plan(task)
    assert found.template_object().default_for(found.shape_bucket) == SKINNY_DEFAULT
    module = _load(GEMM.render(SKINNY_DEFAULT, **found.context), tmp_path)
    verifier = Verifier("gpu", tmp_path)
    for dtype in task.dtypes:
        verdict = verifier.verify(task, GEMM.render(SKINNY_DEFAULT, **found.context), dtype,
                                  time=False)
        assert verdict.accepted, (dtype, verdict.reasons)
    assert module.fp32_stages() < SKINNY_DEFAULT.num_stages
    torch.manual_seed(0)
    a = torch.randn(128, 4096, device="cuda")
    b = torch.randn(4096, 1000, device="cuda") / 64
    # 1e-4: IEEE fp32 sums stay well inside it; TF32 products (1e-3) would not
    torch.testing.assert_close(module.launch_matmul(a, b).double(), a.double() @ b.double(),
                               rtol=1e-4, atol=1e-4)


def test_skinny_plans_land_in_their_bucket_and_start_from_the_skinny_tile():
    from templates.gemm import SKINNY_DEFAULT, SKINNY_PAIR

    skinny = plan(tasks.load(ROOT / "tasks" / "matmul_skinny.py"))
    large = plan(tasks.load(ROOT / "tasks" / "matmul.py"))
    assert (skinny.shape_bucket, large.shape_bucket) == ("rows_le_128", "rows_gt_128")
    template = skinny.template_object()
    assert template.default_for(skinny.shape_bucket) == SKINNY_DEFAULT
    assert template.default_for(large.shape_bucket) == DEFAULT
    # a fresh search tries, second, DEFAULT with TILED serving the odd rows and the calls one
    # wave of its persistent grid covers, and with the skinny companion too where a task's shapes
    # may mix skinny and large rows (a bucket-less op); third, the one-program-per-tile kernel
    # (faster at odd rows) everywhere; except in the skinny bucket, whose starts are its own: the
    # single-CTA 64x64 tile, then the CTA pair. The second start also takes the
    # warp-specialized kernel for the Linear calls it serves; the fourth, its cooperative form.
    companions = dict(odd_tiled=True, single_wave_tiled=True, ws_pingpong=True)
    assert template.starts_for(large.shape_bucket) == [
        DEFAULT, dataclasses.replace(DEFAULT, **companions), TILED,
        dataclasses.replace(DEFAULT, **companions, ws_coop=True)]
    assert template.starts_for(skinny.shape_bucket) == [SKINNY_DEFAULT, SKINNY_PAIR]
    assert template.starts_for("any") == [
        DEFAULT, dataclasses.replace(DEFAULT, skinny_rows=128, **companions), TILED,
        dataclasses.replace(DEFAULT, skinny_rows=128, **companions, ws_coop=True)]


@pytest.mark.parametrize("cfg", [DEFAULT, SMALL], ids=["default", "small"])
def test_a_skinny_companion_serves_the_calls_with_few_rows(cfg, tmp_path, verifier, monkeypatch):
    """skinny_rows = 128: calls whose output has at most 128 rows (A's batch dims folded in) run
    SKINNY_DEFAULT's kernels, rendered into the module under a prefix (SKINNY_WIDE's,
    SKINNY_WIDER's or SKINNY_LARGE's past one wave of the SMs, SKINNY_NARROW's at 17-32 rows where
    its tiles fit one, else SKINNY_NARROW_WIDE's where its do, SKINNY_NARROW_PAIR's at 33-64 rows
    where two of its tile rows fit one, else SKINNY_POINTER's (SKINNY_DEFAULT's at 64)),
    and those of at most 16 rows DECODE_DEFAULT's (DECODE_WIDE's where DECODE_DEFAULT's tiles
    would take more than one wave, DECODE_WIDER's where DECODE_WIDE's would too and its own would
    not); larger calls run the config's own. All correct, each recorded in its own recipe table;
    the verifier accepts it."""
    found = plan(_task("linear_bias_silu"))
    source = GEMM.render(dataclasses.replace(cfg, skinny_rows=128), **found.context)
    module = _load(source, tmp_path)
    # the routes below count 4 SMs, the interpreter's, on a GPU as well
    monkeypatch.setattr(module, "_sm_count", lambda device_index: 4)
    torch.manual_seed(0)
    # rows of 16-element multiples: no padded copy, so every call records its recipe; compiled
    # kernels where there is a GPU
    device = "cuda" if torch.cuda.is_available() else "cpu"
    w, bias = torch.randn(32, 48, device=device) / 48 ** 0.5, torch.randn(32, device=device)
    # 17-32 rows run SKINNY_NARROW's 32x64 tiles where one tile row covers them and they fit one
    # wave (17 and 32 rows against 32 columns: one tile), else SKINNY_NARROW_WIDE's 32x128 (32
    # rows against 320 columns: five 32x64 tiles for 4 "SMs", three 32x128); 33-64 rows
    # SKINNY_NARROW_PAIR's where its two tile rows fit one wave (33, 63 and 64 rows against 32 and
    # 64 columns: two tiles), else SKINNY_POINTER's under one of SKINNY_DEFAULT's tile rows (33
    # rows against 192 columns: six 32x64 tiles, three 64x64) and SKINNY_DEFAULT's at 64 rows or
    # more (64 rows against 192 columns; 100 and 128 rows: at 100 its last tile row shifted back
    # in bounds). Counts: decode, narrow, narrow wide, narrow pair, skinny, pointer, the config's
    # own
    for shape, n, calls in [((2, 8, 48), 32, (1, 0, 0, 0, 0, 0, 0)),
                            ((2, 70, 48), 32, (1, 0, 0, 0, 0, 0, 1)),
                            ((128, 48), 32, (1, 0, 0, 0, 1, 0, 1)),
                            ((17, 48), 32, (1, 1, 0, 0, 1, 0, 1)),
                            ((32, 48), 32, (1, 2, 0, 0, 1, 0, 1)),
                            ((33, 48), 32, (1, 2, 0, 1, 1, 0, 1)),
                            ((63, 48), 64, (1, 2, 0, 2, 1, 0, 1)),
                            ((33, 48), 192, (1, 2, 0, 2, 1, 1, 1)),
                            ((32, 48), 320, (1, 2, 1, 2, 1, 1, 1)),
                            ((64, 48), 32, (1, 2, 1, 3, 1, 1, 1)),
                            ((64, 48), 192, (1, 2, 1, 3, 2, 1, 1)),
                            ((100, 48), 32, (1, 2, 1, 3, 3, 1, 1))]:
        w, bias = torch.randn(n, 48, device=device) / 48 ** 0.5, torch.randn(n, device=device)
        x = torch.randn(shape, device=device)
        got = module.launch_linear_bias_silu(x, w, bias)
        torch.testing.assert_close(got.double(), F.silu(F.linear(x.double(), w.double(),
                                                                 bias.double())),
                                   rtol=1e-5, atol=1e-5)
        assert (len(module._decode__RECIPES), len(module._skinny_narrow__RECIPES),
                len(module._skinny_narrow_wide__RECIPES), len(module._skinny_narrow_pair__RECIPES),
                len(module._skinny__RECIPES), len(module._skinny_pointer__RECIPES),
                len(module._RECIPES)) == calls, (shape, n)
    # 16 rows against weights whose 32-wide tiles are one more than the SMs (the interpreter's
    # _sm_count is 4: 16x64 tiles fit one wave), whose 64-wide ones are (16x128 tiles fit), and
    # whose 128-wide ones are (none fits: DECODE_WIDE's). Counts: decode wide, wider, decode
    sms = module._sm_count(max(w.get_device(), 0))
    for wide, calls in ((32 * sms + 32, (1, 0, 1)), (64 * sms + 64, (1, 1, 1)),
                        (128 * sms + 128, (2, 1, 1))):
        w = torch.randn(wide, 48, device=device) / 48 ** 0.5
        bias = torch.randn(wide, device=device)
        x = torch.randn(16, 48, device=device)
        got = module.launch_linear_bias_silu(x, w, bias)
        torch.testing.assert_close(got.double(), F.silu(F.linear(x.double(), w.double(),
                                                                 bias.double())),
                                   rtol=1e-5, atol=1e-5)
        assert (len(module._decode_wide__RECIPES), len(module._decode_wider__RECIPES),
                len(module._decode__RECIPES)) == calls, wide
    # skinny calls whose 64x64 tiles pass one wave (4 "SMs"): the smallest tile that fits one
    # (64 rows x 320 columns: three 64x128 tiles; 100 and 128 x 320: four 64x256), else the
    # largest (128 x 640: six 64x256, five 128x128: 128x128)
    skinny = len(module._skinny__RECIPES)
    for rows, n, wide, wider, large in ((64, 320, 1, 0, 0), (100, 320, 1, 1, 0),
                                        (128, 320, 1, 2, 0), (128, 640, 1, 2, 1)):
        w, bias = torch.randn(n, 48, device=device) / 48 ** 0.5, torch.randn(n, device=device)
        x = torch.randn(rows, 48, device=device)
        got = module.launch_linear_bias_silu(x, w, bias)
        torch.testing.assert_close(got.double(), F.silu(F.linear(x.double(), w.double(),
                                                                 bias.double())),
                                   rtol=1e-5, atol=1e-5)
        assert (len(module._skinny_wide__RECIPES), len(module._skinny_wider__RECIPES),
                len(module._skinny_large__RECIPES), len(module._skinny__RECIPES)) == \
            (wide, wider, large, skinny), (rows, n)
    verdict = verifier.verify(_task("linear_bias_silu"), source, "float32", time=False)
    assert verdict.accepted, verdict.reasons


def test_the_odd_companion_serves_the_calls_whose_rows_are_not_16_aligned(tmp_path, verifier,
                                                                         monkeypatch):
    """odd_tiled: calls whose K or N is not a multiple of 16 elements run TILED's kernels (under
    the `_tiled_` prefix); skinny calls still go to the skinny companion first; the rest run the
    config's own. Each correct; the verifier accepts the module."""
    found = plan(_task("linear_bias_gelu"))
    cfg = dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True)
    source = GEMM.render(cfg, **found.context)
    module = _load(source, tmp_path)
    # the routes below count 4 SMs, the interpreter's, on a GPU as well
    monkeypatch.setattr(module, "_sm_count", lambda device_index: 4)
    routed = []
    for name in ("_skinny_narrow_launch_linear_bias_gelu", "_skinny_launch_linear_bias_gelu",
                 "_skinny_narrow_pair_launch_linear_bias_gelu",
                 "_skinny_pointer_launch_linear_bias_gelu", "_tiled_launch_linear_bias_gelu",
                 "_gemm"):
        original = getattr(module, name)
        setattr(module, name, lambda *args, _f=original, _n=name: routed.append(_n) or _f(*args))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    for (m, k, n), want in [((200, 40, 32), "_tiled_launch_linear_bias_gelu"),
                            ((200, 48, 24), "_tiled_launch_linear_bias_gelu"),
                            ((20, 40, 24), "_skinny_narrow_launch_linear_bias_gelu"),
                            ((40, 40, 24), "_skinny_narrow_pair_launch_linear_bias_gelu"),
                            ((40, 40, 136), "_skinny_pointer_launch_linear_bias_gelu"),
                            ((64, 40, 24), "_skinny_narrow_pair_launch_linear_bias_gelu"),
                            ((100, 40, 24), "_skinny_launch_linear_bias_gelu"),
                            ((200, 48, 32), "_gemm")]:
        x = torch.randn(m, k, device=device)
        w, bias = torch.randn(n, k, device=device) / k ** 0.5, torch.randn(n, device=device)
        routed.clear()
        got = module.launch_linear_bias_gelu(x, w, bias)
        assert routed[0] == want, (m, k, n)
        torch.testing.assert_close(got.double(), F.gelu(F.linear(x.double(), w.double(),
                                                                 bias.double())),
                                   rtol=1e-5, atol=1e-5)
    verdict = verifier.verify(_task("linear_bias_gelu"), source, "float32", time=False)
    assert verdict.accepted, verdict.reasons


def test_calls_one_wave_of_the_persistent_grid_covers_run_the_tiled_companion(tmp_path,
                                                                            verifier):
    """single_wave_tiled: a call with no more tiles than the persistent grid has programs (SMs x
    persistent; 4 SMs in Triton's interpreter) runs TILED's kernels under the `_tiled_` prefix;
    more tiles, batched ones counted, run the config's own. Each correct; the verifier accepts
    the module; the knob needs a persistent grid (a constraint)."""
    assert GEMM.violations(dataclasses.replace(TILED, single_wave_tiled=True))
    found = plan(_task("linear_bias_gelu"))
    cfg = dataclasses.replace(DEFAULT, single_wave_tiled=True)
    source = GEMM.render(cfg, **found.context)
    module = _load(source, tmp_path)
    routed = []
    for name in ("_tiled_launch_linear_bias_gelu", "_gemm"):
        original = getattr(module, name)
        setattr(module, name, lambda *args, _f=original, _n=name: routed.append(_n) or _f(*args))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    programs = module._sm_count(0) * module.PERSISTENT
    torch.manual_seed(0)
    # 128 x 256 tiles: `programs` tile rows of one tile column fill one wave; one more row does not
    for rows, batch, want in [(128 * programs, (), "_tiled_launch_linear_bias_gelu"),
                              (128 * programs + 1, (), "_gemm"),
                              (64, (2,), "_tiled_launch_linear_bias_gelu")]:
        if device == "cuda" and rows > 1024:
            continue  # a GPU's wave is larger than an interpreter-sized test needs
        x = torch.randn(*batch, rows, 48, device=device)
        w, bias = torch.randn(32, 48, device=device) / 48 ** 0.5, torch.randn(32, device=device)
        routed.clear()
        got = module.launch_linear_bias_gelu(x, w, bias)
        assert routed[0] == want, (rows, batch)
        torch.testing.assert_close(got.double(), F.gelu(F.linear(x.double(), w.double(),
                                                                 bias.double())),
                                   rtol=1e-5, atol=1e-5)
    verdict = verifier.verify(_task("linear_bias_gelu"), source, "float32", time=False)
    assert verdict.accepted, verdict.reasons


def test_unaligned_rows_are_padded_to_16_bytes_and_the_product_is_unchanged(tmp_path):
    found = plan(tasks.load(ROOT / "tasks" / "matmul.py"))
    template = found.template_object()
    path = tmp_path / "gemm_mod.py"
    path.write_text(template.render(template.default, **found.context))
    spec = importlib.util.spec_from_file_location("gemm_mod", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = torch.randn(5, 9, dtype=torch.float16)  # rows of 18 bytes: not 16-byte aligned
    padded = module._aligned(a.unsqueeze(0))
    assert padded.stride(1) == 16 and padded.shape == (1, 5, 9)
    assert torch.equal(padded[0], a)
    aligned = torch.randn(5, 16, dtype=torch.float16).unsqueeze(0)
    assert module._aligned(aligned) is aligned  # aligned operands are read in place
    b = torch.randn(9, 7, dtype=torch.float16)
    torch.testing.assert_close(module.launch_matmul(a, b).float(), a.float() @ b.float(),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("cfg", [SMALL, dataclasses.replace(SMALL, SPLIT_K=2),
                                 dataclasses.replace(SMALL, persistent=1)],
                         ids=["tiled", "split-k", "persistent"])
def test_outputs_of_any_width_are_stored_through_their_unit(tmp_path, cfg):
    """The kernels take N and the output's row and batch strides in units of the widest vector
    (at most 16 bytes) that N aligns to (_output_unit), so that a store at N = 3000 is 16 bytes
    wide, but never in units that make 32 vectors of a store's row (the slow layout on an
    H100). Every width, batched too, still gives the product, by the pointer kernel and the
    descriptor kernel."""
    ctx = {"op": "matmul", "a": {"source": "arg", "index": 0, "transposed": False},
           "b": {"source": "arg", "index": 1, "transposed": False}, "params": []}
    module = _load(GEMM.render(cfg, **ctx), tmp_path)
    wide = torch.empty(1, 4, 3000, dtype=torch.bfloat16)
    assert [module._output_unit(wide, cols) for cols in (256, 128, 64)] == [4, 8, 8]
    assert module._output_unit(wide.float(), 128) == 2  # 4-byte elements: 4 a vector, 32 a row
    for dtype, n, unit in ((torch.bfloat16, 40, 8), (torch.float32, 44, 4),
                           (torch.float32, 42, 2), (torch.float16, 41, 1)):
        assert module._output_unit(torch.empty(3, 20, n, dtype=dtype), module.BLOCK_N) == unit
        a, b = torch.randn(3, 20, 32, dtype=dtype), torch.randn(3, 32, n, dtype=dtype)
        want = a.double() @ b.double()
        torch.testing.assert_close(module.launch_matmul(a, b).double(), want, rtol=1.6e-2,
                                   atol=1e-2)
        if n % 8 == 0:  # 16-byte rows: what descriptors need
            got = module._gemm(a[1], b[1], (), use_tma=True)
            torch.testing.assert_close(got.double(), want[1], rtol=1.6e-2, atol=1e-2)


# ---- a GEMM with a row norm (linear + LayerNorm / RMSNorm) --------------------------------------

RMS_LONG_ROWS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out, bias=False)
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(d_out))

    def forward(self, x):
        return F.rms_norm(torch.relu(self.proj(x)) * 2.0, (self.scale.shape[0],), self.scale,
                          eps=1e-6)


d_in, d_out = 8, 4100


def get_inputs():
    return [torch.randn(3, d_in)]


def get_init_inputs():
    return [d_in, d_out]


KZOO = {"op": "linear_rms_norm", "shapes": [{"d_in": 64, "d_out": 4100}],
        "cpu_shapes": [{"d_in": 8, "d_out": 4100}], "dtypes": ["bfloat16", "float32"]}
'''


def test_linear_then_a_norm_plans_one_gemm_with_a_row_norm(tmp_path):
    """The norm's weight and bias become "row" inputs after the chain's, named by `row_norm`,
    with its eps; a chain before the norm stays the epilogue."""
    found = plan(_task("linear_layer_norm"))
    ctx = found.context
    assert (found.family, found.template) == ("gemm", "gemm")
    assert ctx["epilogue"] == ["add", ["acc"], ["input", 0]]
    assert ctx["row_norm"] == {"kind": "layer", "eps": 1e-5, "weight": 1, "bias": 2}
    assert [i["path"] for i in ctx["inputs"]] == ["proj.bias", "norm.weight", "norm.bias"]
    path = tmp_path / "linear_rms_norm.py"
    path.write_text(RMS_LONG_ROWS)
    rms = plan(tasks.load(path)).context
    assert rms["row_norm"] == {"kind": "rms", "eps": 1e-6, "weight": 0, "bias": None}
    assert rms["epilogue"] == ["mul", ["relu", ["acc"]], ["const", 2.0]]


@pytest.mark.parametrize("cfg,route", [
    # 16x32 tiles: 1x2 tiles at 7x24->40, one wave of the interpreter's 4 "SMs": fused (two
    # launches there), two tiles' partials combined per row
    (dataclasses.replace(SMALL, BLOCK_M=16, fuse_norm=True), "fused"),
    (dataclasses.replace(SMALL, BLOCK_M=16), "config: fuse_norm is off"),
    (dataclasses.replace(SMALL, BLOCK_M=16, persistent=1, fuse_norm=True), "fused"),
    # DEFAULT with its companions: 7x24->40 is skinny, the companion fuses as the config says
    (dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True, single_wave_tiled=True,
                         fuse_norm=True), "fused"),
], ids=["fused", "two-kernels", "fused-persistent-config", "default-companions"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_linear_layer_norm_is_verified_correct_on_both_paths(verifier, tmp_path, cfg, route,
                                                              dtype):
    found = plan(_task("linear_layer_norm"))
    source = GEMM.render(cfg, **found.context)
    module = _load(source, tmp_path)
    plan_of = module._skinny_norm_plan if cfg.skinny_rows else module.norm_plan
    assert plan_of(torch.empty(1, 7, 24), torch.empty(1, 24, 40)) == route
    verdict = verifier.verify(_task("linear_layer_norm"), source, dtype)
    assert verdict.accepted, verdict.reasons


def test_more_tiles_than_a_wave_take_the_two_kernels(tmp_path):
    """40x72 in 16x32 tiles is 9 tiles for the interpreter's 4 "SMs": the GEMM, then the row-norm
    kernel, even with fuse_norm on; both paths agree with PyTorch."""
    module = _load(GEMM.render(dataclasses.replace(SMALL, BLOCK_M=16, fuse_norm=True),
                               **plan(_task("linear_layer_norm")).context), tmp_path)
    assert "more than one wave" in module.norm_plan(torch.empty(1, 40, 24), torch.empty(1, 24, 72))
    torch.manual_seed(0)
    for m in (7, 40):
        x, w, b = torch.randn(m, 24), torch.randn(72, 24), torch.randn(72)
        nw, nb = torch.randn(72), torch.randn(72)
        got = module.launch_linear_layer_norm(x, w, b, nw, nb)
        want = F.layer_norm(F.linear(x, w, b), (72,), nw, nb)
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_repeated_two_kernel_calls_reuse_the_norm_recipe(tmp_path):
    """A two-kernel call records its row-norm launch by the call's signature; a repeat takes the
    recipe (no views, checks or unit arithmetic) and still gives the norm of the product, and
    another shape, or a norm weight with another stride, records its own."""
    module = _load(GEMM.render(SMALL, **plan(_task("linear_layer_norm")).context), tmp_path)
    torch.manual_seed(0)
    w, b = torch.randn(40, 24), torch.randn(40)
    nw, nb = torch.randn(80)[::2], torch.randn(40)  # a strided weight: its stride is an argument
    # (input, recipes after it): one a weight layout a shape; the second 7-row input adds none
    for x, recipes in ((torch.randn(7, 24), 2), (torch.randn(7, 24), 2),
                       (torch.randn(2, 9, 24), 4)):
        for weight in (nw, nw.contiguous()):
            got = module.launch_linear_layer_norm(x, w, b, weight, nb)
            want = F.layer_norm(F.linear(x, w, b), (40,), weight, nb)
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        assert len(module._NORM_RECIPES) == recipes


@pytest.mark.parametrize("fuse", [False, True])
def test_rms_norm_of_long_rows_is_verified_correct(verifier, tmp_path, fuse):
    """RMSNorm (no bias) of rows of 4100: fused with fuse_norm, else the row-norm kernel's
    chunked loop (rows over 4096)."""
    path = tmp_path / "linear_rms_norm.py"
    path.write_text(RMS_LONG_ROWS)
    task = tasks.load(path)
    # 16x2048 tiles: 3 for the interpreter's 4 "SMs" (fused); 16x512: 9 (the two kernels)
    cfg = dataclasses.replace(SMALL, BLOCK_M=16, BLOCK_N=2048 if fuse else 512, BLOCK_K=8,
                              num_warps=8, fuse_norm=fuse)
    for dtype in task.dtypes:
        verdict = verifier.verify(task, GEMM.render(cfg, **plan(task).context), dtype)
        assert verdict.accepted, (dtype, verdict.reasons)


@pytest.mark.parametrize("fuse", [False, True])
def test_a_wrong_row_norm_is_rejected(verifier, fuse):
    """The norm's weight and bias swapped: the verifier must say no, on either path."""
    ctx = plan(_task("linear_layer_norm")).context
    cfg = dataclasses.replace(SMALL, BLOCK_M=16, fuse_norm=fuse)
    verdict = verifier.verify(_task("linear_layer_norm"), GEMM.render(
        cfg, **{**ctx, "row_norm": {**ctx["row_norm"], "weight": 2, "bias": 1}}), "float32")
    assert not verdict.accepted


@pytest.mark.parametrize("row_norm,match", [
    ({"kind": "batch", "eps": 1e-5, "weight": None, "bias": None}, "kind"),
    ({"kind": "layer", "eps": None, "weight": None, "bias": None}, "eps"),
    ({"kind": "rms", "eps": 1e-6, "weight": None, "bias": 1}, "no bias"),
    ({"kind": "layer", "eps": 1e-5, "weight": 7, "bias": None}, "weight"),
    ({"kind": "layer", "eps": 1e-5}, "keys"),
])
def test_render_refuses_a_bad_row_norm(row_norm, match):
    ctx = plan(_task("linear_layer_norm")).context
    with pytest.raises(InvalidConfig, match=match):
        GEMM.render(SMALL, **{**ctx, "row_norm": row_norm})


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", [
    dataclasses.replace(TILED, fuse_norm=True),
    dataclasses.replace(TILED, BLOCK_M=256, BLOCK_N=128, fuse_norm=True),
    dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True, single_wave_tiled=True,
                        fuse_norm=True),
    dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True, single_wave_tiled=True),
], ids=["tiled-fused", "256x128-fused", "default-companions-fused", "default-companions"])
def test_linear_layer_norm_is_correct_on_the_gpu(verifier, tmp_path, cfg):
    """At 1000x1024->3000 (96 of the 128x256 tiles for an H100's 132 SMs) the fused kernel's
    tiles meet in one cooperative launch; at 8192x4096->4096 the GEMM and the row-norm kernel run.
    Every GPU shape and seed of the task, in every dtype, through the verifier."""
    task = _task("linear_layer_norm")
    source = GEMM.render(cfg, **plan(task).context)
    module = _load(source, tmp_path)
    x = torch.empty(1, 1000, 1024, device="cuda", dtype=torch.bfloat16)
    w = torch.empty(1, 1024, 3000, device="cuda", dtype=torch.bfloat16)
    norm_plan = module._tiled_norm_plan if cfg.odd_tiled else module.norm_plan
    assert norm_plan(x, w) == ("fused" if cfg.fuse_norm else "config: fuse_norm is off")
    for dtype in task.dtypes:
        verdict = verifier.verify(task, source, dtype, time=False)
        assert verdict.accepted, (dtype, verdict.reasons)


def test_decode_splitk_probe_is_right_in_the_interpreter():
    """bench/probe_decode_splitk.py (GPU rounds 429-430), which found swap_ab, still runs: each of
    its variants that fits 16x256x512 matches a float32 product three calls running (split-K's
    self-cleaning counters back at 0 after each), the operands swapped or not."""
    probe = bench_scripts.load("probe_decode_splitk")
    small = [v for v in probe.VARIANTS if 256 % v[0] == 0 and 512 % (v[1] * v[2]) == 0]
    assert any(v[2] > 1 for v in small) and any(len(v) > 5 and v[5] for v in small)
    _, _, errors, _ = probe.check(16, 256, 512, small, "cpu")
    assert len(errors) == len({probe.name_of(v) for v in small})
    assert max(errors.values()) < 1e-2
