"""The attention family: the template against PyTorch references (every score modifier, causal, GQA,
odd lengths, Lq != Lk), the matcher on the tasks and on hand-written variants (and what it must
refuse), the verifier rejecting a kernel with the wrong modifier or without the causal mask, and
the ops' reference fallback. Kernels run in Triton's interpreter on CPU."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import tasks
from agent.plan import Graph, capture, plan
from agent.plan_attention import match_attention
from conftest import ROOT
from conftest import attention_reference as _reference
from templates import InvalidConfig, get_template
from templates.attention import SMEM_BYTES, flops, smem_bytes
from verifier import tolerance
from verifier.core import Verifier, load_candidate
from verifier.worker import detect_mode

ATTENTION = get_template("attention")
SMALL = dataclasses.replace(ATTENTION.default, block_m=32, block_n=16, causal_split=False,
                            split_tail=False, reverse_m=False)


def _context(**overrides) -> dict:
    ctx = {"op": "attention", "is_causal": False, "scale": None, "score_mod": None,
           "softcap": None, "window": None, "params": []}
    ctx.update(overrides)
    return ctx


def _launcher(tmp_path: Path, cfg=None, **ctx):
    module = load_candidate(ATTENTION.render(cfg or ATTENTION.default, **_context(**ctx)),
                            tmp_path)
    return module.launch_attention


# (mod, causal, (B, Hq, Hkv, Lq, Lk, D))
CASES = [
    (None, False, (1, 2, 2, 33, 33, 16)),
    (None, False, (1, 2, 1, 20, 45, 64)),  # Lq != Lk, GQA
    (None, True, (2, 4, 2, 37, 37, 32)),  # causal GQA, odd length
    (None, True, (1, 1, 1, 40, 24, 16)),  # causal, Lq > Lk (top-left)
    ("relative_position", False, (1, 2, 2, 33, 33, 16)),
    ("relative_position", True, (1, 2, 1, 33, 33, 32)),
    ("alibi", True, (1, 4, 4, 33, 33, 16)),
    ("softcap", False, (1, 2, 2, 20, 45, 16)),
    ("sliding_window", True, (1, 2, 2, 70, 70, 16)),
]


@pytest.mark.parametrize("cfg", [ATTENTION.default, SMALL], ids=["default", "small-blocks"])
@pytest.mark.parametrize("mod,causal,shape", CASES,
                         ids=[f"{m}-{'causal' if c else 'full'}-{s}" for m, c, s in CASES])
def test_kernel_matches_the_reference(tmp_path, cfg, mod, causal, shape):
    b, hq, hkv, lq, lk, d = shape
    launch = _launcher(tmp_path, cfg, score_mod=mod, is_causal=causal,
                       softcap=5.0 if mod == "softcap" else None,
                       window=9 if mod == "sliding_window" else None)
    torch.manual_seed(0)
    q = (torch.randn(b, hq, lq, d) * (3.0 if mod == "softcap" else 1.0)).half()
    k, v = torch.randn(b, hkv, lk, d).half(), torch.randn(b, hkv, lk, d).half()
    out = launch(q, k, v, causal)
    expected = _reference(q, k, v, causal, None, mod, 5.0, 9)
    tol = tolerance.tolerance_for("float16", {"atol_scale": 3.5e-4})  # as the tasks, see sdpa.py
    comparison = tolerance.compare(out, expected, None, tol)
    assert comparison.ok, comparison


def test_strided_inputs_and_an_explicit_scale(tmp_path):
    launch = _launcher(tmp_path, SMALL)
    torch.manual_seed(1)
    # (B, L, H, D) memory viewed as (B, H, L, D): the layout a projection's output has
    q, k, v = (torch.randn(1, 33, 2, 16).bfloat16().transpose(1, 2) for _ in range(3))
    out = launch(q, k, v, False, 0.3)
    comparison = tolerance.compare(out, _reference(q, k, v, scale=0.3), None,
                                   tolerance.tolerance_for("bfloat16", {"atol_scale": 2.5e-3}))
    assert comparison.ok, comparison


TMA = dataclasses.replace(SMALL, tma=True)


@pytest.mark.parametrize("mod,causal,shape", [CASES[1], CASES[2], CASES[8]],
                         ids=["gqa-lq-ne-lk", "causal-odd", "sliding-window"])
def test_descriptor_loads_match_the_reference(tmp_path, monkeypatch, mod, causal, shape):
    """The tma path (q, k, v and o through tensor descriptors, boxes past the sequence zero-filled
    and clipped) on odd lengths; off a GPU, forced past tma_plan, in the interpreter."""
    module = load_candidate(ATTENTION.render(TMA, **_context(
        score_mod=mod, is_causal=causal, window=9 if mod == "sliding_window" else None)), tmp_path)
    assert module.tma_plan(*(torch.randn(1, 1, 8, 16) for _ in range(3))) != "tma"  # no GPU
    monkeypatch.setattr(module, "tma_plan", lambda q, k, v: "tma")
    b, hq, hkv, lq, lk, d = shape
    torch.manual_seed(4)
    q = torch.randn(b, hq, lq, d).half()
    k, v = torch.randn(b, hkv, lk, d).half(), torch.randn(b, hkv, lk, d).half()
    out = module.launch_attention(q, k, v, causal)
    comparison = tolerance.compare(out, _reference(q, k, v, causal, None, mod, None, 9), None,
                                   tolerance.tolerance_for("float16", {"atol_scale": 3.5e-4}))
    assert comparison.ok, comparison


def test_launcher_refuses_what_it_cannot_compute(tmp_path):
    launch = _launcher(tmp_path, SMALL)
    x = torch.randn(1, 2, 8, 16).half()
    with pytest.raises(ValueError, match="power of two"):
        launch(torch.randn(1, 2, 8, 80).half(), torch.randn(1, 2, 8, 80).half(),
               torch.randn(1, 2, 8, 80).half())
    with pytest.raises(ValueError, match="multiple"):
        launch(torch.randn(1, 3, 8, 16).half(), x, x)
    with pytest.raises(ValueError, match="positive"):
        launch(x, x, x, False, -1.0)


def test_space_constraints_and_cost_model():
    assert not ATTENTION.violations(ATTENTION.default)
    assert smem_bytes(ATTENTION.default) <= SMEM_BYTES
    too_big = dataclasses.replace(ATTENTION.default, block_m=256, block_n=128, num_stages=5)
    assert ATTENTION.violations(too_big)
    with pytest.raises(InvalidConfig):
        ATTENTION.render(dataclasses.replace(ATTENTION.default, block_m=64, block_n=128),
                         **_context())
    assert flops(8, 16, 4096, 4096, 128, causal=True) * 2 == flops(8, 16, 4096, 4096, 128)
    assert ATTENTION.bytes_moved(1, 4, 2, 10, 20, 16, 2) == 2 * 16 * (2 * 4 * 10 + 2 * 2 * 20)


# ---- the matcher -------------------------------------------------------------------------------

EXPECTED = {
    "sdpa": {"score_mod": None, "is_causal": False, "scale": None},
    "sdpa_causal": {"score_mod": None, "is_causal": True, "scale": None},
    "sdpa_gqa": {"score_mod": None, "is_causal": True, "scale": None},
    "attention_relpos": {"score_mod": "relative_position", "is_causal": False, "scale": None},
    "attention_softcap": {"score_mod": "softcap", "softcap": 20.0, "is_causal": False},
    "softmax_matmul": {"score_mod": None, "is_causal": True, "scale": None},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_plan_reads_every_attention_task(name):
    found = plan(tasks.load(ROOT / "tasks" / f"{name}.py"))
    assert (found.family, found.template) == ("attention", "attention")
    for key, value in EXPECTED[name].items():
        assert found.context[key] == value, (key, found.context)


def _match(tmp_path: Path, forward: str, shapes: str = "") -> dict | None:
    source = textwrap.dedent("""
        import math
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Model(nn.Module):
            def forward(self, q, k, v):
        {body}


        def get_inputs():
            {shapes}
            return [torch.randn(1, 2, 8, 16), torch.randn(1, 2, 8, 16), torch.randn(1, 2, 8, 16)]


        def get_init_inputs():
            return []
        """).format(body=textwrap.indent(textwrap.dedent(forward), " " * 8),
                    shapes=shapes or "pass")
    path = tmp_path / "variant.py"
    path.write_text(source)
    task = tasks.load(path)
    gm, _ = capture(task)
    found = match_attention(Graph(gm, task))
    return None if found is None else found["context"]


ACCEPTED = {
    "where-tril": ("""
        s = torch.matmul(q, k.transpose(-1, -2)) * 0.25
        ones = torch.ones((q.size(2), k.size(2)), dtype=torch.bool, device=q.device)
        keep = torch.tril(ones)
        return torch.softmax(torch.where(keep, s, float("-inf")), dim=-1) @ v
        """, {"is_causal": True, "scale": 0.25, "score_mod": None}),
    "index-compare-mask": ("""
        s = q @ k.mT / math.sqrt(16)
        i = torch.arange(q.shape[-2], device=q.device)
        j = torch.arange(k.shape[-2], device=q.device)
        s = s.masked_fill(j[None, :] > i[:, None], -math.inf)
        return F.softmax(s, dim=-1) @ v
        """, {"is_causal": True, "scale": 0.25, "score_mod": None}),
    "not-tril-relpos": ("""
        s = (q @ k.transpose(2, 3)) / q.shape[-1] ** 0.5
        i = torch.arange(q.shape[-2], device=q.device).unsqueeze(-1)
        j = torch.arange(k.shape[-2], device=q.device).unsqueeze(0)
        s = s + (i - j)
        mask = ~torch.tril(torch.ones((q.shape[-2], k.shape[-2]), dtype=torch.bool,
                                      device=q.device))
        return torch.matmul(s.masked_fill(mask, float("-inf")).softmax(dim=-1), v)
        """, {"is_causal": True, "scale": None, "score_mod": "relative_position"}),
    "sdpa-scale": ("""
        return F.scaled_dot_product_attention(q, k, v, scale=q.shape[-1] ** -0.5)
        """, {"is_causal": False, "scale": None, "score_mod": None}),
}

REFUSED = {
    "mask-before-softcap": """
        s = (q @ k.transpose(-2, -1)) * 0.25
        ones = torch.ones((q.size(2), k.size(2)), dtype=torch.bool, device=q.device)
        mask = torch.triu(ones, diagonal=1)
        s = s.masked_fill(mask, float("-inf"))
        return torch.softmax(30.0 * torch.tanh(s / 30.0), dim=-1) @ v
        """,
    "reversed-relpos": """
        s = (q @ k.transpose(-2, -1)) * 0.25
        idx = torch.arange(8, device=q.device)
        s = s + (idx[None, :] - idx[:, None])
        return torch.softmax(s, dim=-1) @ v
        """,
    "in-place-mask": """
        s = (q @ k.transpose(-2, -1)) * 0.25
        ones = torch.ones((8, 8), dtype=torch.bool, device=q.device)
        s.masked_fill_(torch.triu(ones, diagonal=1), -math.inf)
        return torch.softmax(s, dim=-1) @ v
        """,
    "scale-after-bias": """
        s = q @ k.transpose(-2, -1)
        idx = torch.arange(8, device=q.device)
        s = (s + (idx[:, None] - idx[None, :])) * 0.25
        return torch.softmax(s, dim=-1) @ v
        """,
    "diagonal-0-mask": """
        s = (q @ k.transpose(-2, -1)) * 0.25
        ones = torch.ones((8, 8), dtype=torch.bool, device=q.device)
        s = s.masked_fill(torch.triu(ones), -math.inf)
        return torch.softmax(s, dim=-1) @ v
        """,
    "softmax-over-queries": """
        return torch.softmax((q @ k.transpose(-2, -1)) * 0.25, dim=-2) @ v
        """,
    "sdpa-with-mask": """
        mask = torch.ones((8, 8), dtype=torch.bool, device=q.device)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        """,
    "scale-of-two-over-sqrt-d": """
        return torch.softmax((q @ k.transpose(-2, -1)) * (2 * q.shape[-1] ** -0.5), -1) @ v
        """,
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_matcher_reads_written_out_variants(tmp_path, name):
    forward, expected = ACCEPTED[name]
    context = _match(tmp_path, forward)
    assert context is not None
    for key, value in expected.items():
        assert context[key] == value, (key, context)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_matcher_refuses_what_it_does_not_read(tmp_path, name):
    assert _match(tmp_path, REFUSED[name]) is None


def test_softmax_alone_is_still_the_softmax_family():
    assert plan(tasks.load(ROOT / "tasks" / "softmax.py")).template == "softmax"


# ---- the verifier rejects wrong kernels ----------------------------------------------------

@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("attention"))


@pytest.mark.parametrize("name,wrong", [
    ("attention_relpos", {"score_mod": None}),
    ("attention_relpos", {"score_mod": "alibi"}),
    ("attention_softcap", {"score_mod": None, "softcap": None}),
    ("sdpa_causal", {"is_causal": False}),
    ("softmax_matmul", {"is_causal": False}),
    ("sdpa", {"is_causal": True}),
])
def test_verifier_rejects_a_wrong_modifier_or_mask(verifier, name, wrong):
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    context = {**plan(task).context, **wrong}
    verdict = verifier.verify(task, ATTENTION.render(SMALL, **context), "float16")
    assert not verdict.accepted
    assert any("wrong-values" in r for r in verdict.reasons), verdict.reasons


# ---- ops: the reference fallback on CPU --------------------------------------------------------

def test_ops_fall_back_to_the_reference_on_cpu():
    from kernel_zoo import ops

    torch.manual_seed(2)
    q, k, v = torch.randn(1, 4, 9, 16), torch.randn(1, 2, 9, 16), torch.randn(1, 2, 9, 16)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    torch.testing.assert_close(ops.scaled_dot_product_attention(q, k, v, is_causal=True),
                               expected)
    torch.testing.assert_close(ops.attention(q, k, v, None, True), expected)
    # F.sdpa's arguments in F.sdpa's order: a mask (4th) or a dropout is SDPA's own call
    mask = torch.randn(9, 9)
    torch.testing.assert_close(ops.scaled_dot_product_attention(q, k, v, mask),
                               F.scaled_dot_product_attention(q, k, v, mask, enable_gqa=True))
    torch.manual_seed(3)
    dropped = ops.scaled_dot_product_attention(q, k, v, None, 0.5, True, scale=0.3,
                                               enable_gqa=True)
    torch.manual_seed(3)
    torch.testing.assert_close(dropped, F.scaled_dot_product_attention(
        q, k, v, None, 0.5, True, scale=0.3, enable_gqa=True))
    for mod in ("relative_position", "alibi", "softcap"):
        got = ops.attention(q, k, v, mod, is_causal=True, softcap=3.0)
        want = _reference(q, k, v, True, None, mod, 3.0).float()
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="score_mod"):
        ops.attention(q, k, v, "sliding")


@pytest.mark.gpu
@pytest.mark.parametrize("tma", [False, True], ids=["pointers", "tma"])
@pytest.mark.parametrize("causal", [False, True])
def test_default_kernel_matches_sdpa_on_the_gpu(tmp_path, causal, tma):
    cfg = dataclasses.replace(ATTENTION.default, tma=tma)
    module = load_candidate(ATTENTION.render(cfg, **_context(is_causal=causal)), tmp_path)
    torch.manual_seed(3)
    q, k, v = (torch.randn(2, 8, 3000, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    assert (module.tma_plan(q, k, v) == "tma") == tma
    out = module.launch_attention(q, k, v, causal)
    comparison = tolerance.compare(out, _reference(q.cpu(), k.cpu(), v.cpu(), causal).cuda(),
                                   F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                   tolerance.tolerance_for("bfloat16", {"atol_scale": 2.5e-3}))
    assert comparison.ok, comparison


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mod", ["relative_position", "alibi"])
def test_position_modifiers_match_on_the_gpu(tmp_path, mod, causal):
    """Relative position and ALiBi on the GPU, through both load paths, with whole and partial
    key blocks, against the float64 reference."""
    torch.manual_seed(5)
    q, k, v = (torch.randn(1, 4, 1000, 128, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    ref = _reference(q.cpu(), k.cpu(), v.cpu(), causal, None, mod).cuda()
    for tma in (False, True):
        cfg = dataclasses.replace(ATTENTION.default, tma=tma)
        context = _context(is_causal=causal, score_mod=mod)
        module = load_candidate(ATTENTION.render(cfg, **context), tmp_path)
        module.TMA_MIN_FLOPS = 0  # a small shape takes the descriptor path too, when asked
        out = module.launch_attention(q, k, v, causal)
        comparison = tolerance.compare(out, ref, None,
                                       tolerance.tolerance_for("bfloat16", {"atol_scale": 2.5e-3}))
        assert comparison.ok, (tma, comparison)
