"""Launchers without launch recipes (norm, pointwise, reduce, softmax, cross-entropy) keep the compiled kernel's own launcher by
what Triton specializes a launch on (`_launch` in templates/_model.jinja): a repeat of the same
specialization launches through it, a new one through the JIT. In Triton's interpreter there is no
compiled kernel and nothing is kept; on a GPU the kept launches are correct and counted."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import tasks
from agent.plan import plan
from verifier.core import load_candidate

ROOT = Path(__file__).resolve().parents[1]
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def _module(name: str, tmp_path):
    found = plan(tasks.load(ROOT / "tasks" / f"{name}.py"))
    template = found.template_object()
    return load_candidate(template.render(template.default, **found.context), tmp_path)


def test_norm_and_pointwise_launches_are_kept_per_specialization(tmp_path):
    norm = _module("layer_norm", tmp_path)
    swiglu = _module("swiglu", tmp_path)
    torch.manual_seed(0)
    for rows, cols in [(6, 40), (6, 40), (9, 40), (6, 72)]:
        x = torch.randn(rows, cols, device=DEVICE)
        w, b = torch.randn(cols, device=DEVICE), torch.randn(cols, device=DEVICE)
        torch.testing.assert_close(norm.launch_layer_norm(x, (cols,), w, b),
                                   F.layer_norm(x, (cols,), w, b), rtol=1e-5, atol=1e-5)
        gate = torch.randn(rows, cols, device=DEVICE)
        torch.testing.assert_close(swiglu.launch_swiglu(x, gate), F.silu(x) * gate,
                                   rtol=1e-5, atol=1e-5)
    # three specializations each (the repeat of (6, 40) reuses the first); none in the interpreter
    want = 3 if DEVICE == "cuda" else 0
    assert len(norm._LAUNCHERS) == want and len(swiglu._LAUNCHERS) == want


def test_reduce_and_softmax_launches_are_kept_and_a_repeat_adds_none(tmp_path):
    sums = _module("sum", tmp_path)
    amax = _module("amax", tmp_path)
    soft = _module("softmax", tmp_path)
    torch.manual_seed(0)
    # rows (one pass and, past ROW_BLOCK_MAX, looped), columns (a split with its combine kernel
    # where the grid is small), softmax over the last dim and over a middle one
    cases = [((6, 40), 1), ((6, 40), 0), ((3, 9, 5), 1), ((2, 70000), 1)]
    kept = None
    for repeat in range(2):
        for shape, dim in cases:
            x = torch.randn(*shape, device=DEVICE)
            torch.testing.assert_close(sums.launch_sum(x, dim), x.sum(dim), rtol=1e-5, atol=1e-4)
            torch.testing.assert_close(amax.launch_amax(x, dim), x.amax(dim))
            torch.testing.assert_close(soft.launch_softmax(x, dim), torch.softmax(x, dim),
                                       rtol=1e-5, atol=1e-6)
        counts = [len(m._LAUNCHERS) for m in (sums, amax, soft)]
        if repeat == 0:
            kept = counts
    assert counts == kept  # the same calls again: every launch went through a kept launcher
    if DEVICE == "cuda":
        assert min(kept) >= len(cases)  # one or more kernels per case
    else:
        assert kept == [0, 0, 0]  # the interpreter has no compiled kernel to keep


def test_cross_entropy_launches_are_kept_split_or_not(tmp_path):
    ce = _module("cross_entropy", tmp_path)
    torch.manual_seed(0)
    # few rows split the vocabulary (partials, then the mean kernel); many rows do not
    cases = [(3, 5000), (64, 300), (3, 5000)]
    for rows, vocab in cases:
        logits = torch.randn(rows, vocab, device=DEVICE)
        target = torch.randint(0, vocab, (rows,), device=DEVICE)
        target[0] = -100
        torch.testing.assert_close(ce.launch_cross_entropy(logits, target),
                                   F.cross_entropy(logits, target), rtol=1e-5, atol=1e-5)
    # two kernels per distinct case, the repeat of (3, 5000) adding none; none in the interpreter
    assert len(ce._LAUNCHERS) == (4 if DEVICE == "cuda" else 0)


@pytest.mark.gpu
def test_a_kept_launch_counts_as_the_candidates_own(tmp_path):
    from verifier import runtime

    runtime.install_launch_hooks()
    norm = _module("layer_norm", tmp_path)
    x, w = torch.randn(4, 64, device="cuda"), torch.randn(64, device="cuda")
    norm.launch_layer_norm(x, (64,), w, None)  # the JIT launch, kept
    assert len(norm._LAUNCHERS) == 1
    with runtime.watch_call(norm.__name__) as record:
        norm.launch_layer_norm(x, (64,), w, None)
    assert record.own_launches == 1
    soft = _module("softmax", tmp_path)
    soft.launch_softmax(x, 1)
    with runtime.watch_call(soft.__name__) as record:
        torch.testing.assert_close(soft.launch_softmax(x, 1), torch.softmax(x, 1))
    assert record.own_launches == 1
