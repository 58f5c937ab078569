"""`pdl_fill` (softmax and norm templates): the split-row kernel's slot words zeroed by a kernel it
starts beside (a programmatic dependent launch), which it waits for after loading its first row.
In Triton's interpreter the words are zeroed by torch.zeros as before; on a GPU (`gpu` tests) the
fill kernel runs, the cooperative split kernel launches with `launch_pdl`, and its outputs stay
right call after call and in CUDA graph replays."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import tasks
from agent.plan import plan
from verifier.core import load_candidate

ROOT = Path(__file__).resolve().parents[1]
KNOBS = {"ahead": dict(row_ahead=True), "lag": dict(row_ahead=True, row_lag=True),
         "depth2": dict(row_ahead=True, ahead_depth=2)}


def _render(name: str, tmp_path, **knobs):
    found = plan(tasks.load(ROOT / "tasks" / f"{name}.py"))
    template = found.template_object()
    cfg = dataclasses.replace(template.default, **knobs)
    assert not template.violations(cfg), template.violations(cfg)
    return load_candidate(template.render(cfg, **found.context), tmp_path)


def _launches(module, monkeypatch) -> list:
    seen = []
    real = module._launch

    def spy(kernel, grid, args, kwargs):
        seen.append((kernel.__name__, kwargs.get("PDL"), kwargs.get("launch_pdl")))
        return real(kernel, grid, args, kwargs)

    monkeypatch.setattr(module, "_launch", spy)
    return seen


def _call(name: str, module, x):
    """(the launcher's output, PyTorch's in float64) for x."""
    cols = x.shape[-1]
    w = torch.linspace(0.5, 1.5, cols, dtype=x.dtype, device=x.device)
    b = torch.linspace(-1.0, 1.0, cols, dtype=x.dtype, device=x.device)
    if name in ("softmax", "log_softmax"):
        return (getattr(module, f"launch_{name}")(x, -1),
                getattr(torch, name)(x.double(), dim=-1))
    if name == "rms_norm":
        return module.launch_rms_norm(x, (cols,), w), F.rms_norm(
            x.double(), (cols,), w.double(), eps=torch.finfo(x.dtype).eps)
    if name == "layer_norm":
        return module.launch_layer_norm(x, (cols,), w, b), F.layer_norm(
            x.double(), (cols,), w.double(), b.double())
    res = x.flip(-1) * 0.5  # x's own, so a graph's replay and an eager call agree
    return module.launch_add_rms_norm(x, res, w)[0], F.rms_norm(
        (x + res).double(), (cols,), w.double(), eps=1e-6)


NAMES = ["softmax", "log_softmax", "rms_norm", "layer_norm", "add_rms_norm"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("form", list(KNOBS))
def test_pdl_fill_runs_the_split_kernels_in_the_interpreter(name, form, tmp_path, monkeypatch):
    """In the interpreter (no GPU) pdl_fill changes nothing a call computes: the split kernel's two
    launches (partials, then writes), no fill kernel, PDL off; rows of 1-2 groups, ragged slices."""
    if torch.cuda.is_available():
        pytest.skip("the interpreter's path (CPU tensors)")
    module = _render(name, tmp_path, row_split=4, single_pass_max=2048, elems_per_thread=4,
                     loop_block=1024, pdl_fill=True, **KNOBS[form])
    seen = _launches(module, monkeypatch)
    for rows, cols in ((5, 3001), (3, 8000)):
        x = torch.randn(rows, cols)
        seen.clear()
        got, want = _call(name, module, x)
        torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5,
                                   msg=str((name, form, rows, cols)))
        assert [s[0] for s in seen] == [seen[0][0]] * 2 and "split" in seen[0][0], seen
        assert all(pdl is False and launch is None for _, pdl, launch in seen), seen


def test_pdl_fill_needs_the_ahead_kernel():
    """The fill feeds the slot words only the row_ahead kernel publishes."""
    for name in ("softmax", "rms_norm"):
        template = plan(tasks.load(ROOT / "tasks" / f"{name}.py")).template_object()
        for knobs in (dict(pdl_fill=True), dict(pdl_fill=True, row_split=4)):
            problems = template.violations(dataclasses.replace(template.default, **knobs))
            assert any("pdl_fill" in p for p in problems), (name, knobs)
        ok = dataclasses.replace(template.default, pdl_fill=True, row_split=4, row_ahead=True)
        assert not template.violations(ok)


GPU_CASES = (("softmax", (256, 128256), KNOBS["lag"]),
             ("log_softmax", (256, 128256), KNOBS["ahead"]),
             ("softmax", (256, 128256), KNOBS["depth2"]),
             ("add_rms_norm", (256, 65536), KNOBS["ahead"]),
             ("add_rms_norm", (256, 65536), KNOBS["lag"]),
             ("layer_norm", (256, 65536), KNOBS["ahead"]), ("rms_norm", (256, 65536), KNOBS["lag"]))


@pytest.mark.gpu
@pytest.mark.parametrize("name,shape,knobs", GPU_CASES,
                         ids=[f"{c[0]}-{'-'.join(sorted(c[2]))}" for c in GPU_CASES])
def test_pdl_fill_is_right_on_the_gpu_eager_and_in_graphs(name, shape, knobs, tmp_path,
                                                          monkeypatch):
    """float32 rows that take the split kernel: the fill kernel, then the cooperative split kernel
    launched with launch_pdl; right over three eager calls on new inputs and over a CUDA graph's
    replays (captured as the verifier's timer captures) with eager calls in between. A kernel
    that touched a slot before the fill was done would read a word of the call before."""
    from verifier.timing import captured

    module = _render(name, tmp_path, row_split=32, single_pass_max=32768, elems_per_thread=16,
                     pdl_fill=True, **knobs)
    seen = _launches(module, monkeypatch)
    x = torch.randn(*shape, device="cuda")
    for _ in range(3):
        x.normal_()
        seen.clear()
        got, want = _call(name, module, x)
        torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)
        assert [s[0] for s in seen][-2:] == ["_zero_words", seen[-1][0]], seen
        assert seen[-1][1:] == (True, True) and "split" in seen[-1][0], seen
    replay, out = captured(lambda: _call(name, module, x)[0])
    for _ in range(4):
        x.normal_()
        replay()
        got, want = _call(name, module, x)
        torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)
