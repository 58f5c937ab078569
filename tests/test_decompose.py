"""verifier.decompose: composite torch functions written out in the planner's primitives. Each
rewritten graph must compute what the function does, at the edges too (zero rows, inf, NaN),
and a form a rule does not cover must stay as it was."""

from __future__ import annotations

import math
import operator

import pytest
import torch
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

import tasks
from agent.plan import plan
from verifier.capture import FlatTracer
from verifier.core import Verifier
from verifier.decompose import decompose
from verifier.worker import detect_mode


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _decomposed(fn, x):
    model = _Fn(fn)
    gm = torch.fx.GraphModule(model, FlatTracer().trace(model))
    ShapeProp(gm).propagate(x)
    changed = decompose(gm)
    return gm, changed


def _targets(gm) -> set:
    return {n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")}


def _edge_rows(cols: int = 7) -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(6, cols) * 3
    x[1] = 0.0  # a zero row: norms clamp to eps, variance 0
    x[2, 3] = math.inf
    x[3, 1] = -math.inf
    x[4, 5] = math.nan
    x[5] = 1e-20  # tiny values: relative error matters
    return x


CASES = {
    "normalize": (lambda x: F.normalize(x, dim=1), F.normalize),
    "normalize_p1_dim0": (lambda x: F.normalize(x, p=1.0, dim=0, eps=1e-6), F.normalize),
    "norm_fro_all": (lambda x: torch.norm(x), torch.norm),
    "norm_dim_keepdim": (lambda x: torch.norm(x, p=2, dim=1, keepdim=True), torch.norm),
    "norm_method_inf": (lambda x: x.norm(math.inf, 1), "norm"),
    "vector_norm": (lambda x: torch.linalg.vector_norm(x, dim=(0, 1)), torch.linalg.vector_norm),
    "softsign": (lambda x: F.softsign(x), F.softsign),
    "selu": (lambda x: torch.selu(x), torch.selu),
    "logsigmoid": (lambda x: F.logsigmoid(x), F.logsigmoid),
    "var_biased": (lambda x: torch.var(x, dim=1, unbiased=False), torch.var),
    "var_biased_keepdim": (lambda x: x.var(1, unbiased=False, keepdim=True), "var"),
    "var_correction_all": (lambda x: torch.var(x, correction=0), torch.var),
    "std_biased": (lambda x: torch.std(x, 0, unbiased=False), torch.std),
    # Bessel's correction (the default) and others: the divisor from the call's own shape
    "std_default": (lambda x: torch.std(x, dim=1), torch.std),
    "var_default_all": (lambda x: x.var(), "var"),
    "var_correction_2_keepdim": (lambda x: torch.var(x, 0, keepdim=True, correction=2), torch.var),
    "std_unbiased_method": (lambda x: x.std(1, True), "std"),
    "smooth_l1": (lambda x: F.smooth_l1_loss(x, x.flip(0) * 0.5, beta=0.7), F.smooth_l1_loss),
    "smooth_l1_beta0_sum": (lambda x: F.smooth_l1_loss(x, -x, reduction="sum", beta=0.0),
                            F.smooth_l1_loss),
    "huber_none": (lambda x: F.huber_loss(x, x * 0.25, reduction="none", delta=2.0),
                   F.huber_loss),
    "mse": (lambda x: F.mse_loss(x, x.flip(1)), F.mse_loss),
    "l1_sum": (lambda x: F.l1_loss(x, x * 2, reduction="sum"), F.l1_loss),
    "pow3": (lambda x: torch.pow(x, 3.0), torch.pow),
    "pow_half_method": (lambda x: x.pow(0.5), "pow"),
    "pow_minus_half": (lambda x: torch.pow(x, -0.5), torch.pow),
    "pow_minus_one_operator": (lambda x: x ** -1, operator.pow),
    "pow_minus_two": (lambda x: torch.pow(x, -2), torch.pow),
    "pairwise_distance": (lambda x: F.pairwise_distance(x, x.flip(0)), F.pairwise_distance),
    "triplet_margin": (lambda x: F.triplet_margin_loss(x, x.flip(0), x * 0.5, margin=0.3),
                       F.triplet_margin_loss),
    "cosine_similarity": (lambda x: F.cosine_similarity(x, x.flip(0) + 1.0), F.cosine_similarity),
    "kl_div_batchmean": (lambda x: F.kl_div(torch.log_softmax(x, 1), torch.softmax(x.flip(0), 1)
                                            * (x > 0), reduction="batchmean"), F.kl_div),
    "kl_div_log_target_sum": (lambda x: F.kl_div(x, x.flip(1) * 0.1, reduction="sum",
                                                 log_target=True), F.kl_div),
    "kl_div_zero_targets": (lambda x: F.kl_div(x, x.abs() * (x > 1)), F.kl_div),
    "max_all": (lambda x: torch.max(x), torch.max),
    "min_pairwise": (lambda x: torch.min(x, x.flip(0)), torch.min),
    "max_values_indices": (lambda x: torch.max(x, dim=1)[0] + torch.max(x, dim=1)[1], torch.max),
    "max_method_values": (lambda x: x.max(dim=0, keepdim=True).values, "max"),
    "min_values": (lambda x: torch.min(x, 1)[0], torch.min),
    "min_indices": (lambda x: x.min(dim=1).indices, "min"),
    # Tensor methods of the library calls: the torch functions
    "cumsum_method": (lambda x: x.cumsum(1), "cumsum"),
    "cumprod_method": (lambda x: x.cumprod(dim=-1), "cumprod"),
    "flip_varargs": (lambda x: x.flip(0, 1), "flip"),
    "flip_list": (lambda x: x.flip([1]), "flip"),
    "tril_method": (lambda x: x.tril(-1), "tril"),
    "triu_method": (lambda x: x.triu(diagonal=1), "triu"),
    "diag_method": (lambda x: x.diag(), "diag"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_rewritten_graph_computes_the_function(name):
    fn, target = CASES[name]
    x = _edge_rows()
    gm, changed = _decomposed(fn, x)
    assert changed and target not in _targets(gm), gm.code
    expected = fn(x)
    got = gm(x)
    torch.testing.assert_close(got, expected, rtol=2e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("fn", [
    lambda x: torch.norm(x, p=3, dim=1),  # a p no rule writes out
    lambda x: torch.pow(x.abs(), 1.5),  # an exponent ATen has no special case for
    lambda x: x * x.size(-1) ** -0.5,  # a power of a size, a Python number
    lambda x: F.triplet_margin_loss(x, x * 2, x * 3, swap=True),
    lambda x: F.normalize(x, p=0.5),
    lambda x: torch.var(x, 1, correction=True),  # a bool correction (torch reads it as 1)
    lambda x: F.smooth_l1_loss(x, x * 2, size_average=True),  # the legacy arguments
])
def test_forms_no_rule_covers_stay_as_they_were(fn):
    x = torch.randn(4, 6)
    gm, changed = _decomposed(fn, x)
    assert not changed
    torch.testing.assert_close(gm(x), fn(x))


TASK = '''import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
        return {expr}


rows = 33
cols = 100


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []


# other shapes than the one captured: a rule must not write the captured sizes into the kernel
KZOO = {{"shapes": [{{"rows": 33, "cols": 100}}], "cpu_shapes": [{{"rows": 7, "cols": 33}},
                                                              {{"rows": 5, "cols": 64}}]}}
'''


@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    return Verifier(detect_mode(), tmp_path_factory.mktemp("decompose"))


@pytest.mark.parametrize("expr", [
    "F.normalize(x, dim=1)",
    "x / torch.norm(x, p='fro')",
    "torch.std(x, dim=1, unbiased=False)",
    "torch.std(x, dim=1)",
    "x.var(0, keepdim=True) + x.var()",
    "F.smooth_l1_loss(x, x * 0.5)",
    "torch.max(x, dim=1)[0]",
    "torch.min(x, dim=1)[1]",
    "F.selu(x) + F.softsign(x)",
    "0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * torch.pow(x, 3.0))))",
    "F.triplet_margin_loss(x, x * 0.5, x * x)",
    "F.cosine_similarity(x, x * x, dim=1)",
    "F.kl_div(torch.log(torch.sigmoid(x)), torch.sigmoid(x * 2), reduction='batchmean')",
    # not written out: comparisons and where are the pointwise family's own, zeros_like a constant
    "torch.where(x > 0, x, x * 0.1) + (x != 0.5) * x",
    "torch.maximum(x, torch.zeros_like(x)).sum(dim=-1)",
])
def test_a_written_out_op_is_planned_and_its_kernel_is_correct(expr, tmp_path, verifier):
    path = tmp_path / "task.py"
    path.write_text(TASK.format(expr=expr))
    task = tasks.load(path)
    found = plan(task)
    template = found.template_object()
    verdict = verifier.verify(task, template.render(template.default, **found.context), "float32",
                              time=False)
    assert verdict.accepted, (found.describe(), verdict.reasons)


def test_a_comparison_is_never_the_output(tmp_path):
    """A bool result: the templates write floats, so no family takes it."""
    from agent.errors import PlanError

    path = tmp_path / "task.py"
    path.write_text(TASK.format(expr="x > 0"))
    with pytest.raises(PlanError, match="no template covers"):
        plan(tasks.load(path))


def test_a_scalar_loss_over_a_broadcast_row_is_planned(tmp_path):
    """KernelBench's hinge loss: (n, n) predictions times (n,) targets, reduced to a scalar. The
    pointwise matcher, asked about a scalar output, crashed on the 1-D operand."""
    path = tmp_path / "task.py"
    path.write_text(TASK.replace("return [torch.randn(rows, cols)]",
                                 "return [torch.randn(rows, cols), torch.randn(cols)]")
                    .replace("def forward(self, x):", "def forward(self, x, t):")
                    .format(expr="torch.mean(torch.clamp(1 - x * t, min=0))"))
    found = plan(tasks.load(path))
    assert found.family == "tail", found.describe()


def test_a_norm_in_float16_keeps_its_sum_of_squares_in_fp32(tmp_path, verifier):
    """x / ||x||_F in float16 where the sum of squares (2e6-3e6 here; 6.7e7 at the task's
    GPU shape) passes float16's largest value: the root joins the reducing kernel, so the stored
    intermediate is the norm, which fits, as PyTorch's norm kernel keeps it. The plan that stored
    the sum divided every element by inf (GPU round 310: frobenius_norm float16, zeros)."""
    path = tmp_path / "task.py"
    path.write_text(TASK.replace("torch.randn(rows, cols)", "torch.randn(rows, cols) * 100")
                    .format(expr="x / torch.norm(x, p='fro')"))
    task = tasks.load(path)
    found = plan(task)
    assert [g.found["context"].get("post") for g in found.partition.groups] == \
        [["sqrt", ["reduced"]], None]
    template = found.template_object()
    verdict = verifier.verify(task, template.render(template.default, **found.context), "float16",
                              time=False)
    assert verdict.accepted, (found.describe(), verdict.reasons)


def test_a_correction_takes_its_divisor_from_each_call():
    """torch.std(x, dim) divides by n - 1, n the reduced count of each call: the rule writes
    corrected_mean, whose n comes from the tensor it gets, so one rewritten graph is right at
    other shapes than the captured one, and n - correction <= 0 gives NaN as torch does."""
    fn = (lambda x: torch.std(x, dim=1))
    gm, changed = _decomposed(fn, torch.randn(4, 6))
    assert changed
    for shape in [(3, 11), (5, 2), (2, 1)]:
        x = torch.randn(shape)
        torch.testing.assert_close(gm(x), fn(x), equal_nan=True)
    assert torch.isnan(gm(torch.randn(3, 1))).all()
