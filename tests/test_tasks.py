from __future__ import annotations

import textwrap

import pytest

import tasks
from conftest import ROOT


def write(tmp_path, body: str):
    path = tmp_path / "task.py"
    path.write_text(textwrap.dedent(body))
    return path


_IDENTITY_TASK = """
    import torch, torch.nn as nn
    class Model(nn.Module):
        def forward(self, x):
            return x
    def get_inputs():
        return [torch.randn(3)]
    def get_init_inputs():
        return []
"""


def write_identity(tmp_path, kzoo: str):
    """The smallest task, x -> x over 3 values, with `KZOO = <kzoo>` (a dict's source)."""
    return write(tmp_path, _IDENTITY_TASK + f"    KZOO = {kzoo}\n")


def test_builtin_softmax_task_has_odd_and_wide_shapes_in_three_dtypes():
    task = tasks.load(ROOT / "tasks" / "softmax.py")
    widths = {s["dim"] for s in task.shapes}
    assert {1000, 4097, 32768} <= widths
    assert max(widths) > 100_000
    assert set(task.dtypes) == {"float32", "bfloat16", "float16"}
    assert {s["dim"] for s in task.cpu_shapes} >= {1000, 4097, 32768}


def test_shape_override_redraws_inputs_at_that_shape():
    task = tasks.load(ROOT / "tasks" / "softmax.py")
    task.apply_shape({"batch_size": 3, "dim": 17})
    (x,) = task.make_inputs()
    assert x.shape == (3, 17)
    assert task.formula_value("bytes", itemsize=2) == 2 * 3 * 17 * 2


def test_missing_get_inputs_is_a_clear_error(tmp_path):
    path = write(tmp_path, """
        import torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return x
        def get_init_inputs():
            return []
    """)
    with pytest.raises(tasks.TaskError) as info:
        tasks.load(path)
    message = str(info.value)
    assert "get_inputs" in message and str(path) in message
    assert "Traceback" not in message


def test_get_inputs_that_raises_is_reported_with_its_cause(tmp_path):
    path = write(tmp_path, """
        import torch, torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return x
        def get_inputs():
            raise RuntimeError("no data here")
        def get_init_inputs():
            return []
    """)
    task = tasks.load(path)
    with pytest.raises(tasks.TaskError, match="get_inputs\\(\\) raised RuntimeError: no data here"):
        task.make_inputs()


@pytest.mark.parametrize("where", ["import", "get_inputs", "get_init_inputs", "Model"])
def test_sys_exit_in_a_task_is_a_task_error_not_the_end_of_the_caller(tmp_path, where):
    # SystemExit is no Exception: uncaught, kzoo ended silently with the task's exit code
    exits = {w: "sys.exit(3)" if w == where else "pass" for w in
             ("import", "get_inputs", "get_init_inputs", "Model")}
    path = write(tmp_path, f"""
        import sys, torch, torch.nn as nn
        {exits["import"]}
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                {exits["Model"]}
            def forward(self, x):
                return x
        def get_inputs():
            {exits["get_inputs"]}
            return [torch.randn(2, 3)]
        def get_init_inputs():
            {exits["get_init_inputs"]}
            return []
    """)
    with pytest.raises(tasks.TaskError, match="SystemExit: 3"):
        task = tasks.load(path)
        task.make_model()
        task.make_inputs()


def test_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, "def broken(:\n    pass\n")
    with pytest.raises(tasks.TaskError, match=r"task.py:1: syntax error"):
        tasks.load(path)


def test_shape_override_of_unknown_global_is_refused(tmp_path):
    path = write(tmp_path, """
        import torch, torch.nn as nn
        n = 4
        class Model(nn.Module):
            def forward(self, x):
                return x
        def get_inputs():
            return [torch.randn(n)]
        def get_init_inputs():
            return []
        KZOO = {"shapes": [{"m": 3}]}
    """)
    with pytest.raises(tasks.TaskError, match="overrides m"):
        tasks.load(path)


def test_unsupported_dtype_is_refused(tmp_path):
    path = write_identity(tmp_path, '{"dtypes": ["float64"]}')
    with pytest.raises(tasks.TaskError, match="unsupported dtypes"):
        tasks.load(path)


def test_model_constructor_failure_is_a_task_error(tmp_path):
    path = write(tmp_path, """
        import torch, torch.nn as nn
        class Model(nn.Module):
            def __init__(self, k):
                super().__init__()
                raise ValueError("bad k")
        def get_inputs():
            return [torch.randn(3)]
        def get_init_inputs():
            return [1]
    """)
    task = tasks.load(path)
    with pytest.raises(tasks.TaskError, match="bad k"):
        task.make_model()


def test_seeds_come_from_the_task(tmp_path):
    path = write_identity(tmp_path, '{"seeds": [5, 6, 7]}')
    assert tasks.load(path).seeds == (5, 6, 7)
    assert tasks.load(ROOT / "tasks" / "softmax.py").seeds == (0, 1)
    bad = write(tmp_path, "import torch.nn as nn\nclass Model(nn.Module): pass\n"
                "def get_inputs(): return [1]\ndef get_init_inputs(): return []\nKZOO = {'seeds': []}\n")
    with pytest.raises(tasks.TaskError, match="seeds"):
        tasks.load(bad)


ABOVE_0 = "must be a finite number above 0"


@pytest.mark.parametrize("tolerances, key, wrong, allowed", [
    ("{'float32': {'rtol': 'big'}}", "['float32']['rtol']", "'big' (str)", ABOVE_0),
    ("{'float32': {'rtol': -1}}", "['float32']['rtol']", "-1 (int)", ABOVE_0),
    ("{'float16': {'rel_l2': 0}}", "['float16']['rel_l2']", "0 (int)", ABOVE_0),
    ("{'float32': {'atol_scale': float('nan')}}", "['float32']['atol_scale']", "nan (float)",
     ABOVE_0),
    ("{'float32': {'rtol': float('inf')}}", "['float32']['rtol']", "inf (float)", ABOVE_0),
    ("{'float32': {'rtol': True}}", "['float32']['rtol']", "True (bool)", ABOVE_0),
    ("{'float32': {'atol': 1e-3}}", "['float32']", "unknown keys ['atol']",
     "allowed: ['atol_scale', 'rel_l2', 'rtol']"),
    ("{'float64': {'rtol': 1e-3}}", "['float64']", "'float64' is not a dtype name",
     "['float32', 'bfloat16', 'float16']"),
    ("{'float32': 1e-3}", "['float32']", "is a float", "dict of atol_scale, rel_l2, rtol"),
    ("[('float32', {'rtol': 1e-3})]", "", "is a list",
     "dict mapping dtype names (float32, bfloat16, float16)"),
])
def test_a_bad_tolerance_override_is_refused_naming_its_key(tmp_path, tolerances, key, wrong,
                                                           allowed):
    # unchecked, a string made every trial fail with a TypeError blamed on the candidate, and a
    # negative rtol rejected every correct kernel as wrong-values
    path = write_identity(tmp_path, f'{{"tolerances": {tolerances}}}')
    with pytest.raises(tasks.TaskError) as info:
        tasks.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: KZOO['tolerances']{key}")
    assert wrong in message and allowed in message


def test_tolerance_overrides_load_as_floats_for_any_known_dtype(tmp_path):
    path = write_identity(tmp_path, '{"dtypes": ["float32"], "tolerances": {"float32": '
                          '{"rtol": 1, "rel_l2": 2e-5}, "bfloat16": {"atol_scale": 2.5e-3}}}')
    task = tasks.load(path)
    assert task.tolerances == {"float32": {"rtol": 1.0, "rel_l2": 2e-5},
                               "bfloat16": {"atol_scale": 2.5e-3}}
    assert all(type(v) is float for entry in task.tolerances.values() for v in entry.values())
    # every task in tasks/ still loads, the six with overrides among them
    with_overrides = [p.name for p in sorted((ROOT / "tasks").glob("*.py"))
                      if p.name not in ("__init__.py", "loader.py") and tasks.load(p).tolerances]
    assert len(with_overrides) == 6, with_overrides


@pytest.mark.parametrize("formula, cause", [
    ("lambda n: n / 0", "ZeroDivisionError: division by zero"),
    ("lambda n: float('nan')", "ValueError: cannot convert float NaN to integer"),
])
def test_a_formula_that_fails_is_the_task_files_error(tmp_path, formula, cause):
    """`kzoo analyze` called it a kernel-zoo bug, to be reported."""
    path = write(tmp_path, f"""
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return x * 2
        n = 8
        def get_inputs():
            return [torch.randn(n)]
        def get_init_inputs():
            return []
        KZOO = {{"flops": {formula}}}
    """)
    task = tasks.load(path)
    with pytest.raises(tasks.TaskError) as info:
        task.formula_value("flops", itemsize=4)
    assert str(info.value) == (f"{path}: the KZOO['flops'] formula failed with {{'n': 8}}: "
                               f"{cause}; it must return the flops as a finite number.")
