"""The cross_entropy template: space, constraints, rendering, and verification in the interpreter."""

from __future__ import annotations

import dataclasses
import random

import jinja2
import pytest
import torch
import torch.nn.functional as F

import search
import tasks
from conftest import ROOT
from templates import InvalidConfig, get_template, params_of
from verifier.core import Verifier, load_candidate
from verifier.worker import detect_mode

CROSS_ENTROPY = get_template("cross_entropy")
# flat spans: 4103-wide rows of 9 in 4 spans of 10240 elements (rows split between two)
FLAT = dataclasses.replace(CROSS_ENTROPY.default, block=1024, warps=4, flat_per_sm=1)
# The interpreter has 4 SMs: the default splits the vocabulary of up to 7 rows; these force the
# unsplit path everywhere and the split path with unaligned rows and narrow tiles.
FORCED = (
    CROSS_ENTROPY.default,
    dataclasses.replace(CROSS_ENTROPY.default, split_per_sm=0, final_block=256, final_warps=1),
    dataclasses.replace(CROSS_ENTROPY.default, block=1024, warps=4, split_per_sm=8,
                        align_rows=False, evict_first=False, num_stages=1),
    FLAT,
    # programmatic dependent launch: inert without CUDA (the GPU test runs it)
    dataclasses.replace(CROSS_ENTROPY.default, split_per_sm=0, pdl=True),
    # lanes of one element each (the default's lanes are 16-byte vectors), split and unsplit;
    # the default's vectors unsplit, aligned rows from 128-byte lines
    dataclasses.replace(CROSS_ENTROPY.default, vector_max=False),
    dataclasses.replace(CROSS_ENTROPY.default, vector_max=False, split_per_sm=0),
    dataclasses.replace(CROSS_ENTROPY.default, split_per_sm=0, row_align=128, block=2048,
                        warps=8),
)


def _render(cfg, ignore_index: int = -100) -> str:
    return CROSS_ENTROPY.render(cfg, op="cross_entropy", ignore_index=ignore_index, params=[])


def _valid_sample(n: int, seed: int) -> list:
    rng = random.Random(seed)
    configs = []
    while len(configs) < n:
        cfg = CROSS_ENTROPY.draw(rng)
        if not CROSS_ENTROPY.violations(cfg):
            configs.append(cfg)
    return configs


def test_space_is_real_choices_and_default_is_valid():
    assert all(len(p.choices) >= 2 for p in CROSS_ENTROPY.space)
    assert not CROSS_ENTROPY.violations(CROSS_ENTROPY.default)
    assert search.space_size(CROSS_ENTROPY) > 5_000


def test_constraints_prune_before_compiling():
    fat = dataclasses.replace(CROSS_ENTROPY.default, block=16384, warps=8)
    assert any("64 values per thread" in p for p in CROSS_ENTROPY.violations(fat))
    with pytest.raises(InvalidConfig):
        _render(fat)
    deep = dataclasses.replace(CROSS_ENTROPY.default, block=8192, warps=16, num_stages=4)
    assert any("shared memory" in p for p in CROSS_ENTROPY.violations(deep))
    final = dataclasses.replace(CROSS_ENTROPY.default, final_block=4096, final_warps=1)
    assert any("final kernel" in p for p in CROSS_ENTROPY.violations(final))
    # Past the edge of today's space: keeps a widened one honest.
    thin = dataclasses.replace(CROSS_ENTROPY.default, final_block=128, final_warps=8)
    assert any("smaller than one row" in p for p in CROSS_ENTROPY.violations(thin))
    narrow = dataclasses.replace(CROSS_ENTROPY.default, block=1024, warps=8)
    assert any("vector_max" in p for p in CROSS_ENTROPY.violations(narrow))


def test_missing_render_variable_fails_loudly():
    with pytest.raises(jinja2.UndefinedError):
        CROSS_ENTROPY.render(CROSS_ENTROPY.default, op="cross_entropy", params=[])


def test_bytes_count_the_rows_that_count():
    assert CROSS_ENTROPY.bytes_moved(n_rows=16, n_cols=10, n_ignored=1, itemsize=2) == (
        15 * 10 * 2 + 16 * 8 + 2)
    task = tasks.load(ROOT / "tasks" / "cross_entropy.py")
    task.apply_shape({"batch_size": 32, "vocab_size": 7})
    (_, target) = task.make_inputs()
    n_ignored = int((target == task.module.ignore_index).sum())
    assert task.formula_value("bytes", itemsize=2) == CROSS_ENTROPY.bytes_moved(
        n_rows=32, n_cols=7, n_ignored=n_ignored, itemsize=2)


@pytest.mark.parametrize("dtype,n,seed", [("float32", 2, 0), ("bfloat16", 1, 1), ("float16", 1, 2)])
def test_sampled_configs_verify_at_every_cpu_shape(tmp_path, dtype, n, seed):
    task = tasks.load(ROOT / "tasks" / "cross_entropy.py")
    verifier = Verifier(detect_mode(), tmp_path)
    for cfg in _valid_sample(n, seed):
        verdict = verifier.verify(task, _render(cfg), dtype)
        assert verdict.accepted, (params_of(cfg), verdict.reasons)


@pytest.mark.parametrize("cfg", FORCED,
                         ids=["default", "unsplit", "split-unaligned", "flat", "pdl", "scalar",
                              "scalar-unsplit", "unsplit-line-starts"])
def test_pytorch_semantics_on_every_path(tmp_path, cfg):
    """Ignored rows, another ignore_index, all rows ignored, NaN, huge logits, int32 targets."""
    module = load_candidate(_render(cfg, ignore_index=3), tmp_path)
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(9, 4103, generator=gen) * 8
    target = torch.randint(0, 4103, (9,), generator=gen)
    target[[1, 4]] = 3
    torch.testing.assert_close(module.ModelNew(3)(logits, target),
                               F.cross_entropy(logits, target, ignore_index=3))
    # -100 is then an ordinary index for the launcher's own default: out of range, never read.
    torch.testing.assert_close(module.launch_cross_entropy(logits, target),
                               F.cross_entropy(logits, target))
    torch.testing.assert_close(module.launch_cross_entropy(logits, target.int(), 3),
                               F.cross_entropy(logits, target, ignore_index=3))
    assert module.launch_cross_entropy(logits, torch.full((9,), 3), 3).isnan()
    huge = logits * 1e4
    torch.testing.assert_close(module.launch_cross_entropy(huge, target, 3),
                               F.cross_entropy(huge.double(), target, ignore_index=3).float())
    with_nan = logits.clone()
    with_nan[2, 17] = float("nan")
    assert module.launch_cross_entropy(with_nan, target, 3).isnan()
    strided = torch.randn(9, 5000, generator=gen)[:, :4103]  # rows 5000 apart
    torch.testing.assert_close(module.launch_cross_entropy(strided, target, 3),
                               F.cross_entropy(strided, target, ignore_index=3))
    out = module.launch_cross_entropy(logits.half(), target, 3)
    assert out.dtype == torch.float16 and out.shape == ()


def _launched(module, options: list | None = None) -> list[str]:
    """Make `module` record the names of the kernels its launcher runs (and, into `options`,
    their constexprs and launch options); returns the list of names."""
    names: list[str] = []
    launch = module._launch

    def recording(kernel, grid, args, kwargs):
        names.append(kernel.fn.__name__)
        if options is not None:
            options.append(dict(kwargs))
        launch(kernel, grid, args, kwargs)
    module._launch = recording
    return names


@pytest.mark.parametrize("vector_max", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("n_rows,n_cols,split", [(9, 4103, 0), (5, 3001, 0), (3, 50257, 8),
                                                  (4, 4104, 0)])
def test_rows_read_from_line_starts(tmp_path, dtype, n_rows, n_cols, split, vector_max):
    """row_align=128: a row that breaks 16-byte alignment reads its body from a 128-byte line,
    up to a line's elements before it and after its last full line apart (split rows too); rows
    16-byte aligned (4104 wide) are read as they are."""
    cfg = dataclasses.replace(CROSS_ENTROPY.default, block=1024, warps=4, row_align=128,
                              split_per_sm=split, vector_max=vector_max)
    module = load_candidate(_render(cfg), tmp_path)
    options: list = []
    _launched(module, options)
    gen = torch.Generator().manual_seed(n_cols)
    size = n_rows * n_cols
    buffer = torch.empty(size + 128, dtype=dtype)
    start = (-buffer.data_ptr() % 128) // buffer.element_size()  # a 128-byte aligned base
    logits = buffer[start:start + size].view(n_rows, n_cols)
    logits.copy_(torch.randn(n_rows, n_cols, generator=gen) * 4)
    target = torch.randint(0, n_cols, (n_rows,), generator=gen)
    target[1] = -100
    tol = {} if dtype == torch.float32 else dict(rtol=2e-2, atol=1e-2)
    torch.testing.assert_close(module.launch_cross_entropy(logits, target).float(),
                               F.cross_entropy(logits.float(), target), **tol)
    aligned = (n_cols * logits.element_size()) % 16 == 0
    assert options[0]["ALIGN"] == (1 if aligned else 128 // logits.element_size()), options[0]
    for col in (1, n_cols - 1):  # row 2's first and last: before its body, after its last line
        saved = float(logits[2, col])
        logits[2, col] = float("nan")
        assert module.launch_cross_entropy(logits, target).isnan(), col
        logits[2, col] = saved


@pytest.mark.parametrize("per_sm", [1, 2, 8])
@pytest.mark.parametrize("n_rows,n_cols", [(9, 4103), (8, 1024), (13, 2048), (5, 3001)])
def test_flat_spans_match_pytorch(tmp_path, per_sm, n_rows, n_cols):
    """Spans of whole tiles across row ends: rows split between two spans, spans that begin and
    end on row ends, rows that end on a tile's end, ignored and NaN rows among them. Where a span
    would be shorter than a row (a row in three spans), the row kernel runs instead."""
    cfg = dataclasses.replace(FLAT, flat_per_sm=per_sm)
    module = load_candidate(_render(cfg), tmp_path)
    launched = _launched(module)
    gen = torch.Generator().manual_seed(n_rows * n_cols + per_sm)
    logits = torch.randn(n_rows, n_cols, generator=gen) * 4
    target = torch.randint(0, n_cols, (n_rows,), generator=gen)
    target[1::3] = -100
    torch.testing.assert_close(module.launch_cross_entropy(logits, target),
                               F.cross_entropy(logits, target))
    n_programs = -(-n_rows * n_cols // (-(-n_rows * n_cols // (4 * per_sm * 1024)) * 1024))
    span = -(-n_rows * n_cols // n_programs)
    flat = -(-n_rows * n_cols // (4 * per_sm * 1024)) * 1024 >= n_cols
    assert launched == (["_flat_kernel", "_flat_mean_kernel"] if flat
                        else ["_lse_kernel", "_mean_kernel"]), (launched, span)
    assert module.launch_cross_entropy(logits, torch.full((n_rows,), -100)).isnan()
    torch.testing.assert_close(module.launch_cross_entropy(logits.bfloat16(), target).float(),
                               F.cross_entropy(logits.bfloat16().float(), target),
                               rtol=2e-2, atol=1e-2)
    for row in range(n_rows):  # a NaN anywhere in a row that counts makes the mean NaN
        with_nan = logits.clone()
        with_nan[row, (row * 997) % n_cols] = float("nan")
        assert module.launch_cross_entropy(with_nan, target).isnan() == (target[row] != -100)


@pytest.mark.parametrize("vector_max", [False, True])
@pytest.mark.parametrize("row_align", [16, 128])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("split", [0, 8])
def test_every_element_around_an_aligned_body_counts(tmp_path, row_align, dtype, split,
                                                     vector_max):
    """A misaligned row is read as its aligned body plus the elements before it and after its
    last full line: a spike at the last element before the body, the body's first, its last full
    line's last, or the first after it must each reach the loss."""
    cfg = dataclasses.replace(CROSS_ENTROPY.default, block=1024, warps=4, row_align=row_align,
                              split_per_sm=split, vector_max=vector_max)
    module = load_candidate(_render(cfg), tmp_path)
    n_rows, n_cols = 12, 4103
    size = n_rows * n_cols
    buffer = torch.empty(size + 128, dtype=dtype)
    base = (-buffer.data_ptr() % 128) // buffer.element_size()  # a 128-byte aligned base
    logits = buffer[base:base + size].view(n_rows, n_cols)
    logits.copy_(torch.randn(n_rows, n_cols, generator=torch.Generator().manual_seed(0)))
    align = max(row_align, 16) // logits.element_size()
    for row in range(n_rows):
        head = (align - row * n_cols % align) % align  # elements before the row's body
        limit = (n_cols - head) // align * align  # the body's elements in full lines
        col = (head - 1, head, head + limit - 1, head + limit)[row % 4]
        logits[row, min(max(col, 0), n_cols - 1)] = 30.0
    target = torch.zeros(n_rows, dtype=torch.long)
    got = module.launch_cross_entropy(logits, target).float()
    want = F.cross_entropy(logits.float(), target)
    torch.testing.assert_close(got, want, rtol=2e-2 if dtype == torch.bfloat16 else 1e-5,
                               atol=1e-3)


def test_wrong_candidate_is_rejected(tmp_path):
    """Right per-row losses, mean over every row instead of the rows that count."""
    task = tasks.load(ROOT / "tasks" / "cross_entropy.py")
    source = (ROOT / "tests" / "candidates" / "cross_entropy_wrong_mean.py").read_text()
    verdict = Verifier(detect_mode(), tmp_path).verify(task, source, "float32")
    assert not verdict.accepted
    assert any("wrong-values" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", [CROSS_ENTROPY.default,
                                 dataclasses.replace(FLAT, block=2048, warps=8, flat_per_sm=4),
                                 dataclasses.replace(CROSS_ENTROPY.default, row_align=128),
                                 dataclasses.replace(CROSS_ENTROPY.default, pdl=True),
                                 dataclasses.replace(CROSS_ENTROPY.default, vector_max=False,
                                                     row_align=128, block=2048)],
                         ids=["default", "flat", "line-starts", "pdl", "scalar-lanes"])
def test_is_correct_at_the_gpu_shapes(tmp_path, cfg):
    task = tasks.load(ROOT / "tasks" / "cross_entropy.py")
    verifier = Verifier("gpu", tmp_path)
    for dtype in task.dtypes:
        verdict = verifier.verify(task, _render(cfg), dtype, time=False)
        assert verdict.accepted, (dtype, verdict.reasons)
