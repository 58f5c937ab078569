"""The reduce template: space, constraints, rendering, and every op verified in the interpreter."""

from __future__ import annotations

import dataclasses
import random

import jinja2
import pytest
import torch

import search
import tasks
from conftest import ROOT
from templates import InvalidConfig, get_template, params_of
from verifier.core import Verifier, load_candidate
from verifier.worker import detect_mode

REDUCE = get_template("reduce")
OPS = ("sum", "mean", "amax", "amin", "argmax", "argmin")
TORCH_OPS = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin,
             "argmax": torch.argmax, "argmin": torch.argmin}
# Configs that force each path in the interpreter (4 SMs): the default (one-pass rows, aligned
# bodies, column split), narrow tiles that loop and split rows, and a persistent grid without
# alignment or splits.
# Each path also with the tile reduced over packed integer keys (amax, amin, argmax).
_PATHS = (
    REDUCE.default,
    dataclasses.replace(REDUCE.default, row_block_max=1024, loop_block=1024, loop_warps=4,
                        split_per_sm=8, col_block_inner=64, col_tile_elems=1024, col_warps=2),
    dataclasses.replace(REDUCE.default, programs_per_sm=2, align_rows=False, split_per_sm=0,
                        evict_first=False, num_stages=1),
)
FORCED = tuple(dataclasses.replace(cfg, packed_keys=packed)
               for packed in (False, True) for cfg in _PATHS)
FORCED_IDS = [f"{path}{'-packed' if packed else ''}" for packed in (False, True)
              for path in ("default", "looped-split", "persistent-unaligned")]


def _render(cfg, op: str, dim: int = 2, rank: int = 3) -> str:
    return REDUCE.render(cfg, op=op, dim=dim, rank=rank, params=[])


def _valid_sample(n: int, seed: int) -> list:
    rng = random.Random(seed)
    configs = []
    while len(configs) < n:
        cfg = REDUCE.config({p.name: rng.choice(p.choices) for p in REDUCE.space})
        if not REDUCE.violations(cfg):
            configs.append(cfg)
    return configs


def test_space_is_real_choices_and_default_is_valid():
    assert all(len(p.choices) >= 2 for p in REDUCE.space)
    assert not REDUCE.violations(REDUCE.default)
    assert search.space_size(REDUCE) > 100_000


def test_constraints_prune_before_compiling():
    wide_loop = dataclasses.replace(REDUCE.default, loop_block=8192, row_block_max=4096)
    assert any("loop_block exceeds" in p for p in REDUCE.violations(wide_loop))
    with pytest.raises(InvalidConfig):
        _render(wide_loop, "sum")
    fat_loop = dataclasses.replace(REDUCE.default, loop_block=8192, loop_warps=2)
    assert any("loop tile holds 128" in p for p in REDUCE.violations(fat_loop))
    deep = dataclasses.replace(REDUCE.default, col_tile_elems=8192, num_stages=4)
    assert any("shared memory" in p for p in REDUCE.violations(deep))
    # These guards sit past the edges of today's space; they keep a widened space honest.
    idle = dataclasses.replace(REDUCE.default, col_tile_elems=256, col_warps=16)
    assert any("less than one element" in p for p in REDUCE.violations(idle))
    spills = dataclasses.replace(REDUCE.default, row_block_max=65536)
    assert any("spills" in p for p in REDUCE.violations(spills))


def test_missing_or_unknown_render_variables_fail_loudly():
    with pytest.raises(jinja2.UndefinedError):
        REDUCE.render(REDUCE.default, op="sum", dim=1, params=[])  # no rank
    with pytest.raises(jinja2.UndefinedError):
        REDUCE.render(REDUCE.default, op="median", dim=1, rank=2, params=[])


def test_bytes_moved_is_one_read_and_one_write():
    assert REDUCE.bytes_moved(n_in=15, n_out=3, itemsize=2) == 15 * 2 + 3 * 2
    assert REDUCE.bytes_moved(n_in=15, n_out=3, itemsize=2, out_itemsize=8) == 15 * 2 + 3 * 8
    task = tasks.load(ROOT / "tasks" / "argmax.py")
    task.apply_shape({"batch": 2, "rows": 3, "cols": 5, "reduce_dim": 1})
    assert task.formula_value("bytes", itemsize=2) == 2 * 3 * 5 * 2 + 2 * 5 * 8


# Every op in at least one dtype, argmax (exact integers) in all three; a new sample per row.
@pytest.mark.parametrize("dtype,ops,seed", [
    ("float32", ("sum", "amax", "argmax"), 0),
    ("bfloat16", ("mean", "amin", "argmax"), 1),
    ("float16", ("sum", "mean", "argmax"), 2),
])
def test_sampled_configs_verify_at_every_cpu_shape(tmp_path, dtype, ops, seed):
    verifier = Verifier(detect_mode(), tmp_path)
    for op, cfg in zip(ops, _valid_sample(len(ops), seed)):
        task = tasks.load(ROOT / "tasks" / f"{op}.py")
        verdict = verifier.verify(task, _render(cfg, op), dtype)
        assert verdict.accepted, (op, params_of(cfg), verdict.reasons)


def _semantic_cases() -> list:
    """NaN, ties, -inf rows, signed zeros, rank 0, negative dims and strided inputs."""
    gen = torch.Generator().manual_seed(0)
    ties = (torch.randn(2, 5, 1501, generator=gen) * 3).round()
    ties[0, 3, 100] = float("nan")
    ties[0, 3, 7] = -float("nan")  # the first NaN wins argmax, whatever its sign bit
    ties[0, 1] = ties[0, 1].abs().neg()  # the maximum is a zero, -0.0 and 0.0 mixed
    ties[0, 1, 3::2] = 0.0
    ties[1, 4, :] = float("-inf")
    ties[1, :, 11] = float("nan")
    # Over a middle dim with long columns: column blocks that tile the inner dim (no column mask),
    # the reduced dim split into chunks whose last step is partial, a NaN and ties in a column.
    columns = (torch.randn(2, 700, 64, generator=gen) * 3).round()
    columns[1, 500, 5] = float("nan")
    columns[1, 650, 5] = -float("nan")
    columns[0, :, 9] = float("-inf")
    return [
        (columns, 1), (ties[:, :, :1024], 1),
        (ties, 2), (ties, 1), (ties[:, :, :300], -3), (ties[:, :, :1000], 2), (ties.transpose(1, 2), 1),
        (ties[0, 0], 0), (torch.randn(()), 0), (torch.randn(5, 1, 3), 1),
        (torch.randn(4, 9, 1), 1),
        (torch.randn(1, 20001, generator=gen), 1),
        (torch.tensor([[-0.0, 0.0, -1.0], [0.0, -0.0, -2.0], [-3.0, -0.0, 0.0]]), 1),
    ]


def _check_semantics(tmp_path, cfg, ops) -> None:
    cases = _semantic_cases()
    for op in ops:
        module = load_candidate(_render(cfg, op), tmp_path)
        launch = getattr(module, f"launch_{op}")
        for x, dim in cases:
            expected = TORCH_OPS[op](x, dim=dim)
            got = launch(x, dim)
            if op in ("argmax", "argmin"):
                assert torch.equal(got, expected), (op, tuple(x.shape), dim)
            else:
                torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-4, equal_nan=True,
                                           msg=f"{op} {tuple(x.shape)} dim {dim}")
        empty = torch.randn(3, 0, 4)
        if op in ("sum", "mean"):
            torch.testing.assert_close(launch(empty, 1), TORCH_OPS[op](empty, dim=1),
                                       equal_nan=True)
        else:
            with pytest.raises(ValueError, match="empty dim"):
                launch(empty, 1)


@pytest.mark.parametrize("cfg", FORCED, ids=FORCED_IDS)
def test_torch_semantics_on_every_path(tmp_path, cfg):
    """NaN, ties, -inf rows, signed zeros, empty dims, rank 0, negative dims and strided inputs,
    like torch."""
    _check_semantics(tmp_path, cfg, OPS)


@pytest.mark.parametrize("cfg", _PATHS, ids=("default", "looped-split", "persistent-unaligned"))
def test_nan_combine_keeps_torch_semantics_on_every_path(tmp_path, cfg):
    """amax and amin reducing each tile with one NaN-keeping combine: the same cases."""
    combined = dataclasses.replace(cfg, nan_combine=True)
    plain = _render(cfg, "amax")
    assert _render(combined, "amax") != plain  # the knob reaches the kernel
    assert "tl.reduce(" in _render(combined, "amax") and "tl.reduce(" not in plain
    _check_semantics(tmp_path, combined, ("amax", "amin"))


@pytest.mark.parametrize("cfg", _PATHS, ids=("default", "looped-split", "persistent-unaligned"))
def test_max_then_index_keeps_torch_semantics_on_every_path(tmp_path, cfg):
    """argmax and argmin reducing each tile with one NaN-keeping max, then a first-index min over
    the lanes holding it or a NaN: the same cases (first NaN, first of ties, -0.0 == 0.0)."""
    plain = _render(cfg, "argmax")
    chosen = _render(dataclasses.replace(cfg, max_then_index=True), "argmax")
    assert chosen != plain and "_max_keep_nan" in chosen  # the knob reaches the kernel

    def code(text):  # the render less its record of the params
        return [line for line in text.splitlines() if "max_then_index" not in line]

    assert code(_render(dataclasses.replace(cfg, max_then_index=True), "amax")) == code(
        _render(cfg, "amax"))  # the other ops ignore it
    _check_semantics(tmp_path, dataclasses.replace(cfg, max_then_index=True),
                     ("argmax", "argmin"))


@pytest.mark.parametrize("cfg", _PATHS[:2], ids=("default", "looped-split"))
def test_body_tile_sizes_an_aligned_rows_tile_by_its_body(tmp_path, monkeypatch, cfg):
    """body_tile: a row whose stride breaks 16-byte alignment (1025, 4097 float32) takes a
    one-pass tile as wide as its aligned body (1024, 4096), not the row's power of two (2048,
    8192); aligned rows keep theirs. Every op stays right (NaN, ties, -0.0, rows of -inf)."""
    cfg = dataclasses.replace(cfg, body_tile=True)
    _check_semantics(tmp_path, cfg, OPS)
    gen = torch.Generator().manual_seed(3)
    for op in OPS:
        module = load_candidate(_render(cfg, op), tmp_path)
        legacy = load_candidate(_render(dataclasses.replace(cfg, body_tile=False), op), tmp_path)
        for mod, blocks in ((module, {1025: 1024, 4097: 4096, 4096: 4096}),
                            (legacy, {1025: 2048, 4097: 8192, 4096: 4096})):
            seen = []
            real = mod._launch
            monkeypatch.setattr(mod, "_launch", lambda kernel, grid, args, kw, _real=real,
                                _seen=seen: (_seen.append((kernel.__name__, kw)),
                                             _real(kernel, grid, args, kw))[1])
            for cols, block in blocks.items():
                x = (torch.randn(5, cols, generator=gen) * 3).round()
                x[1, cols // 3] = float("nan")
                x[3] = float("-inf")
                seen.clear()
                got = getattr(mod, f"launch_{op}")(x, 1)
                expected = TORCH_OPS[op](x, dim=1)
                if op in ("argmax", "argmin"):
                    assert torch.equal(got, expected), (op, cols)
                else:
                    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-4,
                                               equal_nan=True, msg=f"{op} {cols}")
                one_pass = [kw for name, kw in seen if name == "_one_pass_kernel"]
                if cfg.row_block_max >= block:
                    assert one_pass and one_pass[0]["BLOCK"] == block, (op, cols, seen)


@pytest.mark.parametrize("cfg", _PATHS, ids=("default", "looped-split", "persistent-unaligned"))
def test_const_cols_passes_the_width_as_a_constant_and_keeps_torch_semantics(tmp_path,
                                                                            monkeypatch, cfg):
    """const_cols: the row kernels (one pass, looped and split) take the row's width as the
    CONST_COLS constant, one compile a width; 0 (the width read at run time) without the knob,
    and the column kernel ignores it. Every op stays right (NaN, ties, -0.0, rows of -inf,
    strided and unaligned rows)."""
    const = dataclasses.replace(cfg, const_cols=True)
    _check_semantics(tmp_path, const, OPS)
    gen = torch.Generator().manual_seed(4)
    for knob in (True, False):
        module = load_candidate(_render(dataclasses.replace(cfg, const_cols=knob), "sum"),
                                tmp_path)
        seen = []
        real = module._launch
        monkeypatch.setattr(module, "_launch", lambda kernel, grid, args, kw, _real=real,
                            _seen=seen: (_seen.append((kernel.__name__, kw)),
                                         _real(kernel, grid, args, kw))[1])
        for cols in (1000, 1025, 4097):
            x = torch.randn(3, cols, generator=gen)
            seen.clear()
            torch.testing.assert_close(module.launch_sum(x, 1), x.sum(1), rtol=1e-5, atol=1e-4)
            rows = [kw for name, kw in seen if name in ("_one_pass_kernel", "_looped_kernel")]
            assert rows and all(kw["CONST_COLS"] == (cols if knob else 0) for kw in rows), seen


def test_const_cols_unmasks_a_4097_wide_rows_loads_compiled_for_sm90(tmp_path):
    """Compiled for sm_90 by Triton's ptxas (no GPU; bench/compile_reduce.py), the served float32
    mean's one-pass tile of a 4097-wide row (8192 lanes, 16 a thread, unaligned) takes 16 masked
    loads a thread; with const_cols the compiler knows which lanes are in the row: 9 loads, one
    masked, as torch.compile's per-shape kernel (8 + 1), and fewer instructions."""
    import json
    import os
    import subprocess
    import sys

    pytest.importorskip("triton.backends.nvidia.compiler")
    served = {"row_block_max": 8192, "tile_elems": 4096, "elems_per_thread": 16,
              "align_rows": False, "num_stages": 4, "evict_first": True}
    out = tmp_path / "compiled.json"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "compile_reduce.py"), "--ops", "mean",
         "--dtype", "float32", "--shapes", "rows_4096x4097", "--params", json.dumps(served),
         "--const-cols", "--json", str(out)],
        env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {row["variant"]: row for row in json.loads(out.read_text())["rows"]}
    plain, const = rows["plain"], rows["const_cols"]
    assert (plain["global_loads"], plain["guarded_global_loads"]) == (16, 16), plain
    assert const["global_loads"] == 9 and const["guarded_global_loads"] <= 1, const
    assert const["instructions"] < plain["instructions"], (plain, const)


def test_max_then_index_and_packed_keys_are_one_choice():
    both = dataclasses.replace(REDUCE.default, packed_keys=True, max_then_index=True)
    assert any("max_then_index" in p for p in REDUCE.violations(both))


def test_model_new_takes_its_dim_from_the_constructor(tmp_path):
    module = load_candidate(_render(REDUCE.default, "sum", dim=1, rank=3), tmp_path)
    x = torch.randn(2, 3, 4)
    torch.testing.assert_close(module.ModelNew()(x), x.sum(1))  # the traced dim
    torch.testing.assert_close(module.ModelNew(2)(x), x.sum(2))  # Model(dim)'s argument wins
    assert module.SUPPORTS_ANY_DIM


def test_wrong_candidate_is_rejected(tmp_path):
    """Argmax breaking ties towards the last index: every value right, every index checked."""
    task = tasks.load(ROOT / "tasks" / "argmax.py")
    source = (ROOT / "tests" / "candidates" / "argmax_last_tie.py").read_text()
    verdict = Verifier(detect_mode(), tmp_path).verify(task, source, "float32")
    assert not verdict.accepted
    assert any("wrong-values" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.gpu
@pytest.mark.parametrize("op", OPS)
def test_default_is_correct_at_the_gpu_shapes(tmp_path, op):
    task = tasks.load(ROOT / "tasks" / f"{op}.py")
    verifier = Verifier("gpu", tmp_path)
    for dtype in task.dtypes:
        verdict = verifier.verify(task, _render(REDUCE.default, op), dtype, time=False)
        assert verdict.accepted, (op, dtype, verdict.reasons)


@pytest.mark.gpu
@pytest.mark.parametrize("knob,op", [("nan_combine", "amax"), ("nan_combine", "amin"),
                                     ("max_then_index", "argmax"), ("max_then_index", "argmin"),
                                     *[("body_tile", op) for op in OPS],
                                     *[("const_cols", op) for op in OPS]])
def test_tile_reduction_knob_is_correct_at_the_gpu_shapes(tmp_path, knob, op):
    """nan_combine (amax, amin), max_then_index (argmax, argmin), body_tile (every op; the
    4097-wide rows take it) and const_cols (every op) at every task shape and dtype on the GPU."""
    task = tasks.load(ROOT / "tasks" / f"{op}.py")
    verifier = Verifier("gpu", tmp_path)
    cfg = dataclasses.replace(REDUCE.default, **{knob: True})
    for dtype in task.dtypes:
        verdict = verifier.verify(task, _render(cfg, op), dtype, time=False)
        assert verdict.accepted, (op, dtype, verdict.reasons)


def test_rows_that_fill_little_of_their_tile_take_the_loop(tmp_path, monkeypatch):
    """one_pass_min_fill: a row wider than loop_block that fills less of its power-of-two tile
    than the threshold loops; narrower rows and full rows keep the one-pass kernel."""
    cfg = dataclasses.replace(REDUCE.default, one_pass_min_fill=75, loop_block=1024, loop_warps=4)
    gen = torch.Generator().manual_seed(1)
    for op in OPS:
        module = load_candidate(_render(cfg, op), tmp_path)
        legacy = load_candidate(_render(dataclasses.replace(cfg, one_pass_min_fill=0), op),
                                tmp_path)
        for mod in (module, legacy):
            launched = []
            real = mod._launch
            monkeypatch.setattr(mod, "_launch", lambda kernel, *a, _real=real, _seen=launched, **k:
                                (_seen.append(kernel.__name__), _real(kernel, *a, **k))[1])
            kernels = {}
            for cols in (1000, 1025, 1501, 1536, 2048):  # fills 98%, 50%, 73%, 75%, 100%
                x = torch.randn(3, cols, generator=gen)
                x[1, cols // 2] = float("nan") if op != "sum" else x[1, cols // 2]
                launched.clear()
                got = getattr(mod, f"launch_{op}")(x, 1)
                kernels[cols] = launched[0]
                expected = TORCH_OPS[op](x, dim=1)
                if op == "argmax":
                    assert torch.equal(got, expected), (op, cols)
                else:
                    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-4,
                                               equal_nan=True, msg=f"{op} {cols}")
            looped = {c for c, name in kernels.items() if name == "_looped_kernel"}
            if mod is module:
                assert looped == {1025, 1501}, (op, kernels)
            else:
                assert looped == set(), (op, kernels)  # 0: rows up to row_block_max, one pass
