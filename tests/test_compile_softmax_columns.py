"""bench/softmax_columns_rewrites.py under Triton's interpreter: the rewrites of the one-pass
column kernel whose registers bench/compile_softmax_columns.py reads compute softmax and
log-softmax over dim 1 as the rendered kernel does (a rewrite that computed something else
could take fewer registers and mislead), and refuse a source the template has changed."""

import dataclasses
import sys
from pathlib import Path

import pytest
import torch

from templates import get_template
from verifier.core import load_candidate
from verifier.tolerance import TOLERANCES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import softmax_columns_rewrites as rewrites  # noqa: E402

REF = {"softmax": torch.softmax, "log_softmax": torch.log_softmax}


def _module(source, tmp_path):
    return load_candidate(source, tmp_path).ModelNew()


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("form,dtype", [("convert_at_use", torch.float32),
                                        ("convert_at_use", torch.bfloat16),
                                        ("bf16_pairs", torch.bfloat16)])
def test_a_rewrite_matches_the_rendered_kernel_and_float64(op, form, dtype, tmp_path):
    template = get_template("softmax")
    cfg = dataclasses.replace(template.default, tile_elems=16384)  # 100 rows: the one-pass tile
    log = op == "log_softmax"
    rendered = template.render(cfg, op=op, log=log, dim=1, params=[])
    rewritten = getattr(rewrites, form)(rendered, log)
    assert rewritten != rendered
    torch.manual_seed(0)
    for shape in ((2, 100, 96), (3, 60, 34)):  # 34 columns: a masked pair block past the end
        x = (torch.randn(*shape) * 4.0).to(dtype)
        x[0, 5, 3] = float("-inf")  # a -inf inside a column stays a zero (softmax) or -inf
        ref = REF[op](x.double(), dim=1)
        got = _module(rewritten, tmp_path)(x)
        served = _module(rendered, tmp_path)(x)
        assert got.dtype == dtype and got.shape == x.shape
        finite = torch.isfinite(ref)
        assert torch.equal(torch.isfinite(got), finite)
        err = ((got.double() - ref)[finite].norm() / ref[finite].norm()).item()
        bound = TOLERANCES[str(dtype).split(".")[1]]["rel_l2"]
        assert err < bound, (shape, err)
        # within a few float32 roundings of the kernel as rendered (the softmax rewrites take
        # exp(x - (max + log sum)), not exp(x - max) / sum: 3.6e-7 against 2.0e-7 here)
        served_err = ((served.double() - ref)[finite].norm() / ref[finite].norm()).item()
        assert served_err < bound
        assert abs(err - served_err) < 1e-6 or err <= served_err, (shape, err, served_err)


def test_a_changed_template_is_refused_not_rewritten_blindly():
    source = get_template("softmax").render(get_template("softmax").default, op="softmax",
                                            log=False, dim=1, params=[])
    for form in (rewrites.convert_at_use, rewrites.bf16_pairs):
        with pytest.raises(ValueError):
            form(source.replace(rewrites.LOAD, ""), False)
