"""bench/probe_split_reread.py's kernels in Triton's interpreter: the split-row walks (outputs
stored relative to a slice's max and rescaled a row later; the served lag walk with its slice
whole or half held) give torch's softmax and log-softmax (a run of -inf, and a row of -inf only:
NaN as torch gives), their copies give the input, and the diagnostic walks that skip the wait
normalize each slice by its own pair, at ragged widths and with more groups than rows."""

import pytest
import torch

import bench_scripts

WALKS = ("fixup", "lag", "hold")


@pytest.fixture(scope="module")
def probe():
    if torch.cuda.is_available():
        pytest.skip("the interpreter's path (CPU tensors)")
    return bench_scripts.load("probe_split_reread")


def _input(rows, cols):
    torch.manual_seed(0)
    x = torch.randn(rows, cols) * 4.0
    x[1, 5:200] = float("-inf")
    x[2] = float("-inf")
    return x


@pytest.mark.parametrize("rows,cols", [(7, 1000), (5, 333)])
@pytest.mark.parametrize("split,groups", [(4, 3), (2, 1), (8, 9)])
@pytest.mark.parametrize("walk", WALKS)
def test_walks_match_torch(probe, rows, cols, split, groups, walk):
    x = _input(rows, cols)
    want = {"softmax": torch.softmax(x.double(), dim=1),
            "log_softmax": torch.log_softmax(x.double(), dim=1), "copy": x.double()}
    for op, ref in want.items():
        got = probe.run_variant(x, (walk, op, split, 4, 8, 0), {}, interpret=True,
                                groups=groups)
        assert torch.allclose(got.double(), ref, rtol=1e-5, atol=1e-6, equal_nan=True), op
        if op == "softmax":
            assert torch.isnan(got[2]).all() and (got[1, 5:200] == 0).all()


@pytest.mark.parametrize("walk", ["lag_nowait", "hold_nowait"])
def test_diagnostic_walks_normalize_each_slice_alone(probe, walk):
    x = _input(6, 1000)[3:]  # rows without -inf: every slice has a max
    split = 4
    unit, slice_u = probe.slice_units(x.shape[1], split)
    slice_len = unit * slice_u
    want = torch.cat([torch.softmax(x[:, i:i + slice_len].double(), dim=1)
                      for i in range(0, x.shape[1], slice_len)], dim=1)
    got = probe.run_variant(x, (walk, "softmax", split, 4, 8, 0), {}, interpret=True, groups=2)
    assert torch.allclose(got.double(), want, rtol=1e-5, atol=1e-6)
    assert not torch.allclose(got.double(), torch.softmax(x.double(), dim=1), atol=1e-3)


def test_template_configs_render_split_kernels_that_match_torch(probe, tmp_path, monkeypatch):
    """`--template`'s renders of the softmax template (each op's served split geometry with and
    without held quarters) give torch's result on rows wider than single_pass_max, where the
    split kernel takes them."""
    torch.manual_seed(0)
    x = torch.randn(3, 33000) * 4.0
    x[1, 100:9000] = float("-inf")
    for op, configs in probe.TEMPLATE_CONFIGS.items():
        modules = probe.template_modules(op, tmp_path / op)
        assert list(modules) == [label for label, *_ in configs]
        ref = getattr(torch, op)(x.double(), dim=1)
        for label, module in modules.items():
            launched, real = [], module._launch
            monkeypatch.setattr(module, "_launch", lambda kernel, *a, real=real, **k:
                                (launched.append(kernel.__name__), real(kernel, *a, **k))[1])
            got = module.ModelNew()(x)
            assert torch.allclose(got.double(), ref, rtol=1e-5, atol=1e-6), (op, label)
            assert set(launched) == {"_softmax_split_ahead_kernel"}, (op, label, launched)
