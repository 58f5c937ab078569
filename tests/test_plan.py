"""The planner's refusals: a graph whose row op (reduction, softmax) reads an integer tensor is not
covered, with the reason, rather than planned onto a template whose every trial fails to launch."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, run_kzoo

import tasks
from agent.errors import PlanError
from agent.plan import plan

INT_ROW_OPS = {
    "sum_int": ("x.sum(-1)", "call_method:sum"),
    "amax_int": ("torch.amax(x, -1)", "call_function:amax"),
    "amin_int": ("x.amin(dim=1)", "call_method:amin"),
    "argmax_int": ("torch.argmax(x, -1)", "call_function:argmax"),
    "softmax_int": ("torch.softmax(x, -1)", "call_function:softmax"),
    "log_softmax_int": ("self.act(x)", "call_function:log_softmax"),
}
FLOATING_ONLY = "its operand x is torch.int64: the templates read floating tensors only"


def _task_file(tmp_path, name: str, forward: str, inputs: str):
    path = tmp_path / f"{name}.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.act = nn.LogSoftmax(dim=-1)\n\n"
        f"    def forward(self, x):\n        return {forward}\n\n\n"
        f"def get_inputs():\n    return [{inputs}]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    return path


@pytest.mark.parametrize("name", sorted(INT_ROW_OPS))
def test_a_row_op_over_an_integer_tensor_is_refused_with_the_reason(tmp_path, name):
    forward, node = INT_ROW_OPS[name]
    task = tasks.load(_task_file(tmp_path, name, forward, "torch.randint(0, 10, (4, 64))"))
    with pytest.raises(PlanError) as err:
        plan(task)
    assert f"no template covers {node} " in str(err.value)
    assert FLOATING_ONLY in str(err.value)


def test_the_same_row_ops_over_floats_and_an_integer_target_stay_covered(tmp_path):
    for name, (forward, _) in INT_ROW_OPS.items():
        task = tasks.load(_task_file(tmp_path, name, forward, "torch.randn(4, 64)"))
        assert plan(task).family in ("reduce", "softmax_rows"), name
    # cross-entropy's target is an index tensor by contract: only its logits must be floating
    found = plan(tasks.load(ROOT / "tasks" / "cross_entropy.py"))
    assert found.family == "cross_entropy"


def test_analyze_and_optimize_refuse_an_integer_sum_before_any_search(tmp_path):
    task = _task_file(tmp_path, "sum_int", "x.sum(-1)", "torch.randint(0, 10, (4, 64))")
    out = tmp_path / "a.json"
    proc = run_kzoo("analyze", str(task), "--json", str(out), env_home=tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (result,) = json.loads(out.read_text())
    assert result["covered"] is False and result["groups"] == []
    assert [(u["node"], u["why"]) for u in result["unmatched"]] == [("sum_1", FLOATING_ONLY)]
    proc = run_kzoo("optimize", str(task), "--trials", "1", env_home=tmp_path / "home")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert FLOATING_ONLY in proc.stderr
    assert "unsupported dtype" not in proc.stdout + proc.stderr


def test_a_forward_torch_refuses_at_capture_is_one_line_with_torch_s_reason(tmp_path):
    # torch's ShapeProp prints the failing node's traceback before it raises; the user gets the
    # one-line reason instead
    task = _task_file(tmp_path, "mean_int", "x.mean(-1)", "torch.randint(0, 10, (4, 64))")
    proc = run_kzoo("analyze", str(task), env_home=tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "shape propagation failed: RuntimeError: mean(): could not infer output dtype" in \
        proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("returned, said", [
    ("{'a': torch.relu(x), 'b': x * 2}", "forward() returns a dict"),
    ("[x + 1, (x * 2, x - 1)]", "forward() returns nested tuples, lists or dicts"),
])
def test_a_return_no_candidate_could_match_is_not_covered(tmp_path, returned, said):
    # the verifier compares a tensor or a flat tuple of tensors: every trial of such a plan failed
    path = _task_file(tmp_path, "structured", returned, "torch.randn(4, 64)")
    with pytest.raises(PlanError, match=re.escape(said)):
        plan(tasks.load(path))
    proc = run_kzoo("analyze", str(path), "--json", str(tmp_path / "a.json"),
                    env_home=tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (result,) = json.loads((tmp_path / "a.json").read_text())
    assert result["covered"] is False and result["reason"].startswith(said)
    flat = _task_file(tmp_path, "flat", "(torch.relu(x), x * 2)", "torch.randn(4, 64)")
    assert plan(tasks.load(flat)).family  # a flat tuple stays covered
