"""The gemm template's ws_pingpong path: the warp-specialized Gluon kernel of Linear calls on
Hopper (templates/_gemm_ws.jinja), in its pingpong form and its cooperative one (ws_coop).
Without a GPU: which epilogues it renders, that a candidate with it passes the verifier's guards
and, in the interpreter, the verifier (every call falls back to the template's Triton kernels),
and that its kernel builds for sm_90a with every activation. On an H100/H200: that the calls
take it, and that it is right."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F

import tasks
from agent.plan import plan
from conftest import ROOT, build_for_hopper
from templates import get_template
from templates.gemm import DEFAULT, ws_epilogue
from verifier.core import Verifier, load_candidate
from verifier.guards import check_source
from verifier.worker import detect_mode

GEMM = get_template("gemm")
WS = dataclasses.replace(DEFAULT, ws_pingpong=True)
COOP = dataclasses.replace(WS, ws_coop=True)
ROW = {"kind": "row", "source": "param", "path": "fc.bias"}
FULL = {"kind": "full", "source": "arg", "index": 1}
SCALAR = {"kind": "scalar", "source": "arg", "index": 1}


# every activation the warp-specialized kernel renders, and none
ACTIVATIONS = ["gelu", "gelu_tanh", "silu", "relu", "sigmoid", "tanh", None]


def _bias_then(act):
    """The epilogue act(acc + bias row), the bias row being input 0 (None: the bias alone)."""
    inner = ["add", ["acc"], ["input", 0]]
    return {None: inner, "gelu": ["gelu", inner, "none"],
            "gelu_tanh": ["gelu", inner, "tanh"]}.get(act, [act, inner])


def _rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    """Relative L2 error of `got` against the float64 reference `ref`."""
    return ((got.double() - ref).norm() / ref.norm()).item()


def _context(name: str, **overrides):
    return {**plan(tasks.load(ROOT / "tasks" / f"{name}.py")).context, **overrides}


@pytest.mark.parametrize("epilogue,inputs,expected", [
    (["acc"], [], {"bias": None, "act": None}),
    (["add", ["acc"], ["input", 0]], [ROW], {"bias": 0, "act": None}),
    (["add", ["input", 0], ["acc"]], [ROW], {"bias": 0, "act": None}),
    (["gelu", ["add", ["acc"], ["input", 0]], "none"], [ROW], {"bias": 0, "act": "gelu"}),
    (["gelu", ["acc"], "tanh"], [], {"bias": None, "act": "gelu_tanh"}),
    (["silu", ["add", ["acc"], ["input", 0]]], [ROW], {"bias": 0, "act": "silu"}),
    (["relu", ["acc"]], [], {"bias": None, "act": "relu"}),
    (["sigmoid", ["acc"]], [], {"bias": None, "act": "sigmoid"}),
    (["tanh", ["add", ["acc"], ["input", 0]]], [ROW], {"bias": 0, "act": "tanh"}),
    # not rendered: a residual, a scalar, two activations, an activation it has no code for
    (["add", ["acc"], ["input", 0]], [FULL], None),
    (["add", ["acc"], ["input", 0]], [SCALAR], None),
    (["relu", ["silu", ["acc"]]], [], None),
    (["mish", ["acc"]], [], None),
    (["add", ["add", ["acc"], ["input", 0]], ["input", 1]], [ROW, FULL], None),
    (["mul", ["acc"], ["acc"]], [], None),
])
def test_ws_epilogue_is_a_bias_row_and_at_most_one_activation(epilogue, inputs, expected):
    assert ws_epilogue(epilogue, inputs) == expected


def test_the_path_renders_for_linear_epilogues_only():
    gluon = "from triton.experimental import gluon"
    source = GEMM.render(WS, **_context("linear_bias_gelu"))
    assert gluon in source and "def ws_plan" in source
    assert source.count(gluon) == 1  # the companions (skinny, tiled) do not render it
    assert gluon not in GEMM.render(DEFAULT, **_context("linear_bias_gelu"))  # knob off
    coop = GEMM.render(COOP, **_context("linear_bias_gelu"))
    assert "def _ws_consumers" in coop and "def _ws_consumer0" not in coop
    assert "def _ws_consumer0" in source and "def _ws_consumers" not in source
    assert GEMM.violations(dataclasses.replace(DEFAULT, ws_coop=True))  # needs ws_pingpong
    # a row norm as a second kernel: the warp-specialized kernel writes y, _norm_rows
    # normalizes it; a fused norm (fuse_norm) keeps its own kernel
    normed = GEMM.render(WS, **_context("linear_layer_norm"))
    assert gluon in normed and "return _norm_rows(out, (in0, in1, in2)," in normed
    assert gluon not in GEMM.render(dataclasses.replace(WS, fuse_norm=True),
                                    **_context("linear_layer_norm"))
    for name in ("linear_residual", "matmul", "matmul_transposed"):
        # a residual, no weight operand, a transposed A: the knob changes nothing
        context = _context(name)
        with_ws, without = (GEMM.render(cfg, **context).splitlines() for cfg in (WS, DEFAULT))
        # the same module but for the config's own lines (its params, in the docstring and
        # PARAMS)
        differ = [with_ws[i] for i, (x, y) in enumerate(zip(with_ws, without)) if x != y]
        assert len(with_ws) == len(without) and len(differ) == 2, name
        assert differ[0].startswith("Params:") and differ[1].startswith("PARAMS ="), name


@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("gemm-ws"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the interpreter's fallback; a GPU takes "
                    "the kernel (test_the_kernel_is_right_on_hopper)")
@pytest.mark.parametrize("name,dtype,cfg", [("linear_bias_gelu", "bfloat16", WS),
                                            ("linear_bias_silu", "float16", WS),
                                            ("linear_bias_gelu", "float32", WS),
                                            ("linear_bias_gelu", "bfloat16", COOP),
                                            ("linear_layer_norm", "bfloat16", COOP)],
                         ids=["gelu-bf16", "silu-fp16", "gelu-fp32", "gelu-bf16-coop",
                              "layer-norm-bf16-coop"])
def test_a_ws_candidate_passes_the_guards_and_falls_back_in_the_interpreter(
        verifier, tmp_path, name, dtype, cfg):
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    source = GEMM.render(cfg, **plan(task).context)
    assert check_source(source) == []
    module = load_candidate(source, tmp_path)
    x = torch.zeros(4, 64, dtype=torch.bfloat16)
    w = torch.zeros(32, 64, dtype=torch.bfloat16)
    bias = torch.zeros(32, dtype=torch.bfloat16)
    assert module.ws_plan(x, w, (bias, )).startswith("not a CUDA")
    assert module.ws_call(x, w, (bias, )) is None and module.ws_call(x, w, (bias, )) is None
    verdict = verifier.verify(task, source, dtype)
    assert verdict.accepted, verdict.reasons


def test_gluon_kernels_are_kernels_to_the_guards():
    ok = (
        "import torch\nfrom triton.experimental import gluon\n"
        "from triton.experimental.gluon import language as gl\n\n"
        "@gluon.jit\ndef k(x):\n    y = x.to(gl.float32)\n\n"
        "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
        "        return torch.empty_like(x)\n")
    assert check_source(ok) == []
    # outside a kernel the output path's rule still holds
    bad = ok.replace("return torch.empty_like(x)", "return x.to(torch.float32)")
    assert [f.exploit for f in check_source(bad)] == ["pytorch-fallback"]


# every activation's code, both 16-bit dtypes, the bias and none
BUILDS = [("linear_bias_gelu", {}, "bfloat16"), ("linear_bias_gelu", {}, "float16"),
          ("linear_bias_gelu", {"gelu_erf_fit": False}, "bfloat16"),
          ("linear_bias_silu", {}, "bfloat16")]
BUILD_EPILOGUES = [(["gelu", ["acc"], "tanh"], "bfloat16"), (["relu", ["acc"]], "float16"),
                   (["sigmoid", ["acc"]], "bfloat16"), (["tanh", ["acc"]], "bfloat16")]
_BUILD = """
import json, re, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
from pathlib import Path
import torch, triton
import probe_gluon_gemm
from verifier.core import load_candidate
triton.runtime.driver.set_active(probe_gluon_gemm._CompileOnlyDriver())
for path, dtype in json.loads(sys.argv[1]):
    module = load_candidate(Path(path).read_text(), Path(sys.argv[2]))
    dt = getattr(torch, dtype)
    x, w = torch.empty((256, 192), dtype=dt), torch.empty((384, 192), dtype=dt)
    b = torch.empty(384, dtype=dt)
    ptx = module.ws_launch(x, w, (b, ), warmup=True).asm["ptx"]
    found = re.findall(r"setmaxnreg\\.(?:inc|dec)\\.sync\\.aligned\\.u32\\s+(\\d+)", ptx)
    regs = sorted(set(found))
    print(json.dumps({{"path": path, "regs": regs, "wgmma": ptx.count("wgmma.mma_async")}}))
"""


def test_the_kernel_builds_for_hopper_with_every_activation_without_a_gpu(tmp_path):
    jobs = []
    for i, (name, knobs, dtype) in enumerate(BUILDS):
        path = tmp_path / f"ws_{i}.py"
        path.write_text(GEMM.render(dataclasses.replace(WS, **knobs), **_context(name)))
        jobs.append((str(path), dtype))
    for i, (epilogue, dtype) in enumerate(BUILD_EPILOGUES):
        path = tmp_path / f"ws_epi_{i}.py"
        context = _context("linear_bias_gelu", epilogue=epilogue)
        path.write_text(GEMM.render(WS, **context))
        assert "def _ws_activation" in path.read_text()
        jobs.append((str(path), dtype))
    built = build_for_hopper(_BUILD.format(root=str(ROOT), bench=str(ROOT / "bench")), jobs,
                             tmp_path / "c")
    assert [b["path"] for b in built] == [p for p, _ in jobs]
    for b in built:
        # two consumer warp groups and a producer (registers moved), both consumers' wgmmas
        assert {"232", "40"} <= set(b["regs"]) and b["wgmma"] == 16, b


def test_the_cooperative_kernel_builds_for_hopper_with_every_activation_without_a_gpu(tmp_path):
    jobs = []
    for i, act in enumerate(ACTIVATIONS):
        path = tmp_path / f"coop_{i}.py"
        path.write_text(GEMM.render(COOP, **_context("linear_bias_gelu",
                                                     epilogue=_bias_then(act))))
        jobs.append((str(path), "bfloat16" if i % 2 == 0 else "float16"))
    built = build_for_hopper(_BUILD.format(root=str(ROOT), bench=str(ROOT / "bench")), jobs,
                             tmp_path / "c")
    assert [b["path"] for b in built] == [p for p, _ in jobs]
    for b in built:
        # one consumer partition of two warp groups (240 registers) and a producer (24); the
        # main loop in 16 segments of 4 m64n256 wgmmas (one a K step of 64)
        assert set(b["regs"]) == {"240", "24"} and b["wgmma"] == 64, b


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("act", ACTIVATIONS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("coop", [False, True], ids=["pingpong", "coop"])
def test_the_kernel_is_right_on_hopper(tmp_path, act, dtype, coop):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the kernel is sm_90's")
    epilogue = _bias_then(act)
    module = load_candidate(GEMM.render(COOP if coop else WS,
                                        **_context("linear_bias_gelu", epilogue=epilogue)),
                            tmp_path)
    torch_act = {None: lambda y: y, "gelu": F.gelu,
                 "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"), "silu": F.silu,
                 "relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh}[act]
    # a 3-D x (rows folded), a partial last tile in M and N, several tiles a program
    for shape, n in (((2, 500, 1024), 3000), ((4096, 512), 4096), ((130, 64), 136)):
        torch.manual_seed(0)
        x = torch.randn(*shape, device="cuda", dtype=dtype)
        w = (torch.randn(n, shape[-1], device="cuda") / shape[-1] ** 0.5).to(dtype)
        b = torch.randn(n, device="cuda", dtype=dtype)
        assert module.ws_plan(x, w, (b, )) == "gluon"
        got = module.launch_linear_bias_gelu(x, w, b)
        # the second call goes through the recorded launch (ws_call's recipe)
        assert torch.equal(module.launch_linear_bias_gelu(x, w, b), got)
        ref = torch_act(F.linear(x.double(), w.double(), b.double()))
        eager = torch_act(F.linear(x, w, b)).double()
        err = _rel_err(got, ref)
        bound = _rel_err(eager, ref)
        # the cooperative form rounds x W^T + b to the dtype before the activation, as eager
        # does: its error and eager's are the same roundings, summed in another order (1% over
        # eager's for such a tie)
        bound = bound * 1.01 if coop else bound
        assert got.shape == ref.shape and err <= max(bound, 1e-3), (act, dtype, shape, err, bound)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("coop", [False, True], ids=["pingpong", "coop"])
def test_a_linear_then_layer_norm_takes_the_kernel_and_is_right_on_hopper(tmp_path, dtype, coop):
    """LayerNorm(x W^T + b): the warp-specialized kernel writes y, the row-norm kernel normalizes
    it in place (a programmatic dependent launch after a kernel that never releases it early)."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the kernel is sm_90's")
    module = load_candidate(GEMM.render(COOP if coop else WS, **_context("linear_layer_norm")),
                            tmp_path)
    for shape, n in (((2, 500, 1024), 3000), ((4096, 512), 4096), ((8192, 1024), 4096)):
        torch.manual_seed(0)
        x = torch.randn(*shape, device="cuda", dtype=dtype)
        w = (torch.randn(n, shape[-1], device="cuda") / shape[-1] ** 0.5).to(dtype)
        b = torch.randn(n, device="cuda", dtype=dtype)
        nw = (1 + 0.1 * torch.randn(n, device="cuda")).to(dtype)
        nb = (0.1 * torch.randn(n, device="cuda")).to(dtype)
        assert module.ws_plan(x, w, (b, nw, nb)) == "gluon"
        got = module.launch_linear_layer_norm(x, w, b, nw, nb)
        # the second call goes through the recorded launches (ws_call's and _norm_rows')
        assert torch.equal(module.launch_linear_layer_norm(x, w, b, nw, nb), got)
        ref = F.layer_norm(F.linear(x.double(), w.double(), b.double()), (n,), nw.double(),
                           nb.double(), 1e-5)
        eager = F.layer_norm(F.linear(x, w, b), (n,), nw, nb, 1e-5).double()
        err = _rel_err(got, ref)
        bound = _rel_err(eager, ref)
        # y is x W^T + b rounded once, as eager's GEMM writes it; the norm in fp32, as eager's
        assert got.shape == ref.shape and err <= max(1.01 * bound, 1e-3), (dtype, shape, err,
                                                                           bound)
