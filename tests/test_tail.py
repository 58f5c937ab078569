"""The `tail` template's kernels against PyTorch, in Triton's interpreter: broadcast patterns that
leave an operand constant along the columns or along the innermost reduced dim, every reduction,
reductions split among several programs (the CPU counts 4 SMs, so small shapes split) and not,
NaN propagation, and wide rows whose columns span several programs."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import sys

import pytest
import torch

from templates import get_template

TAIL = get_template("tail")
# The interpreter on the CPU; compiled kernels where there is a GPU (the device machine).
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
EXPR = ["mul", ["sigmoid", ["add", ["input", 0], ["input", 1]]], ["input", 2]]


def _module(tmp_path, reduce, cfg, name, expr=EXPR, n_inputs=3, **extra):
    context = {"op": "t", "expr": expr,
               "inputs": [{"source": "arg", "index": k} for k in range(n_inputs)],
               "params": [], "reduce": reduce, **extra}
    path = tmp_path / f"{name}.py"
    path.write_text(TAIL.render(cfg, **context))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# (x's shape, the second and third operands' shapes): per-channel, per-row, scalar and full
# operands, a transposed x, and a row of 3000 columns (several column blocks)
CASES = [
    ((2, 5, 3, 7), (1, 5, 1, 1), (5, 1, 1)),
    ((3, 4, 6), (4, 1), (1,)),
    ((2, 3, 3000), (3, 1), (2, 3, 3000)),
    ((6, 9), (9,), (6, 1)),
    ((4, 1, 5), (4, 7, 5), (7, 1)),
    ((2, 3, 4, 300), (3, 1, 1), (1, 1, 4, 1)),
    ((1, 6, 5, 9), (2, 6, 1, 1), (9,)),
]
REDUCES = [None,
           {"op": "sum", "dims": [2, 3], "keepdim": False},
           {"op": "mean", "dims": [1, 2, 3], "keepdim": True},
           {"op": "amax", "dims": [1], "keepdim": False},
           {"op": "amin", "dims": [0, 3], "keepdim": False},
           {"op": "sum", "dims": [0], "keepdim": False}]


def _want(ops, reduce):
    y = torch.sigmoid(ops[0].double() + ops[1].double()) * ops[2].double()
    if reduce is None:
        return y
    dims = [d for d in reduce["dims"] if d < y.dim()]
    fn = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin}
    return fn[reduce["op"]](y, dim=dims, keepdim=reduce["keepdim"])


@pytest.mark.parametrize("red_split", [0, 4])
@pytest.mark.parametrize("reduce", REDUCES, ids=lambda r: "map" if r is None else
                         f"{r['op']}{''.join(map(str, r['dims']))}")
def test_the_tail_matches_pytorch(reduce, red_split, tmp_path):
    cfg = dataclasses.replace(TAIL.default, red_split=red_split, map_block=512, tile_elems=1024,
                              r_block_max=16)
    module = _module(tmp_path, reduce, cfg, f"tail_{red_split}_{id(reduce)}")
    torch.manual_seed(0)
    ran = 0
    for shapes in CASES:
        rank = max(len(s) for s in shapes)
        if reduce is not None and max(reduce["dims"]) >= rank:
            continue
        ops = [torch.randn(s, device=DEVICE) for s in shapes]
        if shapes[0] == (6, 9):
            ops[0] = torch.randn(9, 6, device=DEVICE).t()  # a transposed operand
        for _ in range(2):  # the first launch, then its recipe
            got = module.launch_t(*ops)
            torch.testing.assert_close(got.double(), _want(ops, reduce), rtol=1e-5, atol=1e-5)
        ran += 1
    assert ran >= 2


def test_a_reduction_split_among_programs_is_split_and_deterministic(tmp_path):
    """Few outputs, a long reduction: the launch splits it (a second kernel combines the
    partials), the result matches PyTorch and is the same bits on every call."""
    reduce = {"op": "sum", "dims": [1, 2], "keepdim": False}
    module = _module(tmp_path, reduce, TAIL.default, "tail_split")
    x, b, c = (torch.randn(s, device=DEVICE) for s in [(2, 64, 900), (64, 1), (1,)])
    first = module.launch_t(x, b, c)
    (recipe,) = module._RECIPES.values()
    grid, finish, direct = recipe[1], recipe[8], recipe[9]
    assert grid[1] > 1 and finish is not None  # shared among programs, then combined
    # on a GPU a repeated call launches through the compiled kernels' own launchers
    assert (direct is not None) == (DEVICE == "cuda")
    torch.testing.assert_close(first.double(), _want([x, b, c], reduce), rtol=1e-5, atol=1e-4)
    for _ in range(3):
        assert torch.equal(module.launch_t(x, b, c), first)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_max_and_min_propagate_nan_through_a_split(op, tmp_path):
    reduce = {"op": op, "dims": [1], "keepdim": False}
    module = _module(tmp_path, reduce, TAIL.default, f"tail_nan_{op}")
    x, b, c = (torch.randn(s, device=DEVICE) for s in [(3, 5000), (1,), (1,)])
    x[1, 4321] = float("nan")
    got = module.launch_t(x, b, c)
    (recipe,) = module._RECIPES.values()
    assert recipe[8] is not None  # the NaN sits in one share; the combine must keep it
    assert torch.isnan(got[1]) and not torch.isnan(got[[0, 2]]).any()
    torch.testing.assert_close(got[[0, 2]].double(), _want([x, b, c], reduce)[[0, 2]])


def test_a_sample_of_the_space_is_correct(tmp_path):
    """Six valid configs drawn from the space (blocks below and above the row length, splits
    on and off) on one map and one reduction."""
    torch.manual_seed(1)
    x, b, c = (torch.randn(s, device=DEVICE) for s in [(2, 3, 37, 5), (3, 1, 1), (5,)])
    rng = random.Random(0)
    checked = 0
    for k in range(200):
        cfg = TAIL.draw(rng)
        if TAIL.violations(cfg):
            continue
        for reduce in (None, {"op": "mean", "dims": [1, 2, 3], "keepdim": False}):
            module = _module(tmp_path, reduce, cfg, f"tail_cfg_{k}_{reduce is None}")
            torch.testing.assert_close(module.launch_t(x, b, c).double(), _want([x, b, c], reduce),
                                       rtol=1e-5, atol=1e-5)
        checked += 1
        if checked == 6:
            break
    assert checked == 6


NORM = ["square", ["input", 0]]
ROOT = ["sqrt", ["reduced"]]


@pytest.mark.parametrize("red_split", [0, 4])
def test_a_root_after_the_reduction_is_taken_in_fp32_before_the_rounding(red_split, tmp_path):
    """sqrt(sum(square(x))) in float16 where the sum of squares (about 1.8e7) is far past
    float16's largest value (65504) and the norm (about 4300) is not: the root is taken on the fp32
    sum, in the reducing kernel or in the kernel that combines a split's partials, and the one
    rounding is the norm's."""
    cfg = dataclasses.replace(TAIL.default, red_split=red_split, tile_elems=1024, r_block_max=16)
    module = _module(tmp_path, {"op": "sum", "dims": [1], "keepdim": True}, cfg,
                     f"tail_root_{red_split}", expr=NORM, n_inputs=1, post=ROOT)
    torch.manual_seed(2)
    x = (torch.randn(3, 5000, device=DEVICE) * 60).half()
    got = module.launch_t(x)
    (recipe,) = module._RECIPES.values()
    assert (recipe[8] is not None) == (red_split > 0)  # the split's partials were combined
    want = x.double().square().sum(1, keepdim=True).sqrt()
    assert got.dtype == torch.float16 and got.shape == (3, 1)
    assert want.min() > 1000 and x.double().square().sum(1).min() > 65504
    torch.testing.assert_close(got.double(), want, rtol=2e-3, atol=0)
    mean = _module(tmp_path, {"op": "mean", "dims": [0, 1], "keepdim": False}, cfg,
                   f"tail_rsqrt_{red_split}", expr=NORM, n_inputs=1,
                   post=["rsqrt", ["add", ["reduced"], ["const", 1e-6]]])
    torch.testing.assert_close(mean.launch_t(x).double(),
                               (x.double().square().mean() + 1e-6).rsqrt(), rtol=2e-3, atol=0)


def test_post_needs_a_reduction_and_must_read_it():
    from templates.base import InvalidConfig

    context = {"op": "t", "expr": NORM, "inputs": [{"source": "arg", "index": 0}], "params": []}
    with pytest.raises(InvalidConfig, match="needs a reduce"):
        TAIL.render(TAIL.default, **context, reduce=None, post=ROOT)
    with pytest.raises(InvalidConfig, match="must read the reduced value"):
        TAIL.render(TAIL.default, **context, reduce={"op": "sum", "dims": [0]},
                    post=["const", 1.0])


@pytest.mark.parametrize("red_split", [0, 4])
def test_a_mean_with_a_correction_divides_by_n_minus_it(red_split, tmp_path):
    """torch.var's last step: the sum of squares over n values divided by max(n - c, 0), n from
    the call's shape; in the reducing kernel and in the one that combines a split's partials."""
    cfg = dataclasses.replace(TAIL.default, red_split=red_split, tile_elems=1024, r_block_max=16)
    module = _module(tmp_path, {"op": "mean", "dims": [1], "keepdim": False, "correction": 1},
                     cfg, f"tail_corr_{red_split}", expr=NORM, n_inputs=1)
    torch.manual_seed(3)
    for shape in [(3, 5000), (4, 7), (2, 1)]:
        x = torch.randn(shape, device=DEVICE)
        want = x.double().square().sum(1) / max(shape[1] - 1, 0)
        torch.testing.assert_close(module.launch_t(x).double(), want, rtol=1e-5, atol=0,
                                   equal_nan=True)
    from templates.base import InvalidConfig

    with pytest.raises(InvalidConfig, match="for a mean only"):
        TAIL.render(TAIL.default, op="t", expr=NORM, inputs=[{"source": "arg", "index": 0}],
                    params=[], reduce={"op": "sum", "dims": [0], "correction": 1})
