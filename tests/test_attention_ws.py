"""The attention template's ws path: the warp-specialized Gluon kernel of Hopper
(templates/_attention_ws.jinja). Without a GPU: which score modifiers render it, that a candidate
with it passes the verifier's guards and, in the interpreter, the verifier (every call falls back
to the template's Triton kernel), and that its kernel builds for sm_90a. On an H100/H200: that
the calls take it, and that it is right against float64."""

from __future__ import annotations

import dataclasses

import pytest
import torch

import tasks
from agent.plan import plan
from conftest import ROOT, build_for_hopper
from conftest import attention_reference as _reference
from templates import get_template
from verifier import tolerance
from verifier.core import Verifier, load_candidate
from verifier.guards import check_source
from verifier.worker import detect_mode

ATTENTION = get_template("attention")
WS = ATTENTION.default  # the default takes the ws path, consumers taking turns
GLUON = "from triton.experimental import gluon"


def _context(**overrides) -> dict:
    return {"op": "attention", "is_causal": False, "scale": None, "score_mod": None,
            "softcap": None, "window": None, "params": [], **overrides}


def test_default_renders_the_ws_path_for_key_term_modifiers_only():
    assert WS.ws and WS.ws_pingpong
    for mod in (None, "relative_position", "alibi"):
        source = ATTENTION.render(WS, **_context(score_mod=mod))
        assert source.count(GLUON) == 1 and "def ws_plan" in source, mod
        assert f"WS_COLUMN = {dict(relative_position=1, alibi=2).get(mod, 0)}" in source
    for mod, extra in (("softcap", {"softcap": 20.0}), ("sliding_window", {"window": 64})):
        # their per-score terms are not a key's alone: the tl kernel serves every call
        assert GLUON not in ATTENTION.render(WS, **_context(score_mod=mod, **extra)), mod
    off = dataclasses.replace(WS, ws=False)
    assert GLUON not in ATTENTION.render(off, **_context())


@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("attention-ws"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the interpreter's fallback; a GPU takes "
                    "the kernel (test_the_kernel_is_right_on_hopper)")
@pytest.mark.parametrize("name,dtype", [("sdpa", "bfloat16"), ("sdpa_causal", "float16"),
                                        ("attention_relpos", "bfloat16")])
def test_a_ws_candidate_passes_the_guards_and_falls_back_in_the_interpreter(
        verifier, tmp_path, name, dtype):
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    source = ATTENTION.render(WS, **plan(task).context)
    assert GLUON in source and check_source(source) == []
    module = load_candidate(source, tmp_path)
    q = torch.zeros(1, 2, 128, 64, dtype=torch.bfloat16)
    assert module.ws_plan(q, q, q).startswith("not a CUDA")
    for _ in range(2):  # recorded as refused, then refused by its recipe
        assert module.ws_call(q, q, q, False, 0.125, torch.empty_like(q)) is None
    assert list(module._RECIPES.values()) == ["refused"]
    verdict = verifier.verify(task, source, dtype)
    assert verdict.accepted, verdict.reasons


_BUILD = """
import json, re, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
from pathlib import Path
import torch, triton
import probe_gluon_gemm
from verifier.core import load_candidate
triton.runtime.driver.set_active(probe_gluon_gemm._CompileOnlyDriver())
for path, dtype, causal, dim in json.loads(sys.argv[1]):
    module = load_candidate(Path(path).read_text(), Path(sys.argv[2]))
    q = torch.empty((1, 2, 256, dim), dtype=getattr(torch, dtype))
    kernel = module.ws_launch(q, q, q, causal, dim ** -0.5, torch.empty_like(q), warmup=True)
    ptx = kernel.asm["ptx"]
    found = re.findall(r"setmaxnreg\\.(?:inc|dec)\\.sync\\.aligned\\.u32\\s+(\\d+)", ptx)
    print(json.dumps({{"path": path, "causal": causal, "regs": sorted(set(found)),
                      "wgmma": ptx.count("wgmma.mma_async"), "shared": kernel.metadata.shared}}))
"""


def test_the_kernel_builds_for_hopper_without_a_gpu(tmp_path):
    jobs = []
    for i, (mod, pingpong) in enumerate(((None, True), (None, False),
                                         ("relative_position", True), ("alibi", True))):
        path = tmp_path / f"ws_{i}.py"
        cfg = dataclasses.replace(WS, ws_pingpong=pingpong)
        path.write_text(ATTENTION.render(cfg, **_context(score_mod=mod)))
        for dtype, causal, dim in (("bfloat16", False, 128), ("float16", True, 128),
                                   ("bfloat16", True, 64)):
            jobs.append((str(path), dtype, causal, dim))
    built = build_for_hopper(_BUILD.format(root=str(ROOT), bench=str(ROOT / "bench")), jobs,
                             tmp_path / "c")
    assert [b["path"] for b in built] == [job[0] for job in jobs]
    for b in built:
        # two consumer warp groups and a producer (registers moved), both consumers' wgmmas
        # (more where the causal kernel has its masked loop), within an H100's shared memory
        assert {"240", "24"} <= set(b["regs"]), b
        assert b["wgmma"] >= 32 and b["shared"] <= 232448, b


# (B, Hq, Hkv, Lq, Lk, D): one CTA, GQA with several row blocks, Lq != Lk both ways, head dim 64;
# lengths that are not multiples of the tiles (partial query tiles, whose rows past Lq are not
# written, partial key blocks, a second consumer with no row at all, keys fewer than a block)
SHAPES = [(1, 2, 2, 128, 128, 128), (2, 4, 2, 384, 384, 128), (1, 2, 1, 256, 640, 128),
          (1, 2, 2, 512, 256, 64), (1, 3, 1, 512, 512, 64), (2, 4, 2, 1000, 1000, 64),
          (1, 2, 1, 200, 333, 128), (1, 3, 3, 130, 70, 64), (1, 2, 2, 33, 33, 128),
          (1, 1, 1, 64, 257, 128)]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("mod,dtype,pingpong", [
    (None, torch.bfloat16, True), (None, torch.float16, True),
    ("relative_position", torch.bfloat16, True), ("alibi", torch.float16, True),
    (None, torch.bfloat16, False), ("relative_position", torch.float16, False)])
def test_the_kernel_is_right_on_hopper(tmp_path, mod, dtype, pingpong):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the kernel is sm_90's")
    slack = {torch.bfloat16: 2.5e-3, torch.float16: 3.5e-4}[dtype]  # tasks/sdpa.py says why
    tol = tolerance.tolerance_for(str(dtype).removeprefix("torch."), {"atol_scale": slack})
    for causal in (False, True):
        cfg = dataclasses.replace(WS, ws_pingpong=pingpong)
        module = load_candidate(ATTENTION.render(cfg, **_context(score_mod=mod,
                                                                 is_causal=causal)), tmp_path)
        for b, hq, hkv, lq, lk, d in SHAPES:
            torch.manual_seed(0)
            q = torch.randn(b, hq, lq, d, device="cuda", dtype=dtype)
            k, v = (torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype) for _ in range(2))
            # small shapes: below ws_plan's work threshold, straight to the kernel
            assert module.ws_plan(q, k, v).startswith("too little work")
            # the output inside a NaN canvas one batch element longer: a row left unwritten
            # stays NaN, and a write past the last head's last row lands in the extra element
            canvas = torch.full((b + 1, hq, lq, d), float("nan"), device="cuda", dtype=dtype)
            got = module.ws_launch(q, k, v, causal, d ** -0.5, canvas[:b])
            assert canvas[b].isnan().all(), (mod, causal, (b, hq, hkv, lq, lk, d))
            comparison = tolerance.compare(got, _reference(q, k, v, causal, None, mod), None, tol)
            assert comparison.ok, (mod, causal, (b, hq, hkv, lq, lk, d), comparison)
    # through the launcher: with the threshold lifted a small call takes the kernel, recorded by
    # its signature, and a repeat runs the recorded launch (ws_call's recipe)
    module.WS_MIN_FLOPS = 0
    q, k, v = (torch.randn(2, 4, 1000, 64, device="cuda", dtype=dtype) for _ in range(3))
    first = module.launch_attention(q, k, v, True)
    assert callable(module._RECIPES[module._ws_signature(q, k, v, True, 0.125)][0])
    assert torch.equal(module.launch_attention(q, k, v, True), first)
    assert tolerance.compare(first, _reference(q, k, v, True, None, mod), None, tol).ok
    # a call with the work to take it by default
    module.WS_MIN_FLOPS = 2 ** 33
    q, k, v = (torch.randn(4, 16, 2048, 128, device="cuda", dtype=dtype) for _ in range(3))
    assert module.ws_plan(q, k, v, True) == "gluon"
    got = module.launch_attention(q, k, v, True)
    assert torch.equal(got, module.launch_attention(q, k, v, True))
    # batch element 0, every head (ALiBi's slopes depend on the head count)
    expected = _reference(q[:1], k[:1], v[:1], True, None, mod)
    comparison = tolerance.compare(got[:1], expected, None, tol)
    assert comparison.ok, (mod, comparison)
