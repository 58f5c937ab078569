"""The CLI as a user runs it: real subprocesses, a real local Ray instance, real SQLite studies."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch

from conftest import ROOT, run_kzoo, trial_states

CANDIDATES = ROOT / "tests" / "candidates"


def test_verify_accepts_a_correct_hand_written_candidate(tmp_path):
    out = tmp_path / "verdict.json"
    proc = run_kzoo("verify", "--task", "tasks/softmax.py",
                    "--candidate", str(CANDIDATES / "softmax_correct.py"), "--json", str(out),
                    env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ACCEPTED" in proc.stdout
    verdict = json.loads(out.read_text())
    assert verdict["accepted"] is True and verdict["stage"] == "done"
    assert all(s["correct"] for s in verdict["shapes"])


def test_verify_rejects_a_wrong_candidate_with_exit_1_and_a_mismatch_report(tmp_path):
    out = tmp_path / "verdict.json"
    proc = run_kzoo("verify", "--task", "tasks/softmax.py",
                    "--candidate", str(CANDIDATES / "softmax_wrong_scale.py"), "--json", str(out),
                    env_home=tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REJECTED at correctness" in proc.stdout
    # strict JSON (jq refuses Python's Infinity): this candidate's inf outputs as "inf"
    verdict = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(name))
    assert verdict["accepted"] is False
    bad = [c for s in verdict["shapes"] for c in s["comparisons"] if not c["ok"]]
    assert bad and bad[0]["mismatches"] and bad[0]["mismatches"][0]["kind"] == "value"
    assert bad[0]["rel_l2_err"] == "inf" and bad[0]["mismatches"][0]["got"] == "inf"
    # the interpreter's numpy warned on every inf it made; the report says what is wrong
    assert "RuntimeWarning" not in proc.stderr, proc.stderr


def test_verify_usage_errors_exit_2(tmp_path):
    missing = run_kzoo("verify", "--task", "tasks/softmax.py", "--candidate", "nope.py",
                       env_home=tmp_path)
    assert missing.returncode == 2 and "no such candidate file" in missing.stderr
    folder = run_kzoo("verify", "--task", "tasks/softmax.py", "--candidate", str(CANDIDATES),
                      env_home=tmp_path)
    assert folder.returncode == 2 and "is a folder; pass one candidate .py file" in folder.stderr
    no_flag = run_kzoo("verify", "--task", "tasks/softmax.py", env_home=tmp_path)
    assert no_flag.returncode == 2 and "--candidate" in no_flag.stderr
    latin1 = tmp_path / "latin1.py"
    latin1.write_bytes(b"# caf\xe9\n")
    for flag, what in [("--candidate", "a candidate"), ("--task", "a task")]:
        files = {"--task": "tasks/softmax.py", "--candidate": "nope.py", flag: str(latin1)}
        proc = run_kzoo("verify", *[x for pair in files.items() for x in pair], env_home=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith(f"kzoo: error: {latin1}: not UTF-8 text (byte 5); {what} ")


def test_bad_values_and_unwritable_json_are_usage_errors_before_any_work(tmp_path):
    for args, said in [
        (("optimize", "tasks/softmax.py", "--trials", "abc"), "expected a whole number"),
        (("optimize", "tasks"), "is a folder; pass one KernelBench-format .py file"),
        (("zoo", "verify", "softmax", "--dtype", "int8"), "invalid choice: 'int8'"),
        (("optimize", "tasks/softmax.py", "--time-budget", "soon"), "expected a positive number"),
        (("optimize", "tasks/softmax.py", "--timeout", "nan"), "must be a positive, finite number"),
        (("verify", "--task", "tasks/softmax.py", "--candidate",
          str(CANDIDATES / "softmax_correct.py"), "--timeout", "inf"),
         "must be a positive, finite number"),
        (("optimize", "tasks/softmax.py", "--json", "/proc/kzoo.json"), "cannot write there"),
        # numpy takes seeds of 0 to 2**32 - 1: Optuna's sampler raised a traceback past them
        (("optimize", "tasks/softmax.py", "--seed", "-1"), "must be from 0 to 4294967295"),
        (("sweep", "--ops", "sum", "--seed", str(2**32)), "must be from 0 to 4294967295"),
        (("optimize", "tasks/softmax.py", "--llm", "m", "--llm-timeout", "0"),
         "must be a positive, finite number"),
        (("analyze", "tasks/softmax.py", "--json", str(tmp_path)), "is a folder"),
        (("verify", "--task", "tasks/softmax.py", "--candidate",
          str(CANDIDATES / "softmax_correct.py"), "--json", "/proc/kzoo.json"),
         "cannot write there"),
    ]:
        proc = run_kzoo(*args, env_home=tmp_path / "home")
        assert proc.returncode == 2, (args, proc.stderr)
        assert said in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
    assert not (tmp_path / "home").exists() or not any((tmp_path / "home").rglob("*.db")), \
        "a search ran before the --json target was checked"


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the CUDA C++ template runs")
def test_a_cuda_template_without_a_gpu_is_a_usage_error_before_any_work(tmp_path):
    """Every trial of it failed as needs-gpu, after nvcc built each one."""
    proc = run_kzoo("optimize", "tasks/swiglu.py", "--template", "pointwise_cuda",
                    env_home=tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        "kzoo: error: --template pointwise_cuda: CUDA C++, whose candidates run only on a GPU, and "
        "this machine has none (Triton's interpreter runs Triton templates alone); leave out "
        "--template to search pointwise, or run on a GPU machine")
    assert not any((tmp_path / "home").rglob("*.db")), "a study was opened"


def test_an_unusable_kzoo_home_is_a_usage_error_before_any_work(tmp_path):
    home = tmp_path / "home"
    home.write_text("a file where the state folder should be")
    for args in [("optimize", "tasks/softmax.py", "--trials", "1"),
                 ("verify", "--task", "tasks/softmax.py", "--candidate",
                  str(CANDIDATES / "softmax_correct.py"), "--no-time"),
                 ("sweep", "--ops", "softmax", "--trials-per-op", "0")]:
        proc = run_kzoo(*args, env_home=home)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert f"KZOO_HOME {home}: cannot be made or written" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "REJECTED" not in proc.stdout, (args, proc)


_PRINTING_TASK = """
    import torch, torch.nn as nn
    print("hello from the task")
    class Model(nn.Module):
        def forward(self, x):
            print("hello from forward")
            return torch.softmax(x, dim=-1)
    def get_inputs():
        return [torch.randn(4, 8)]
    def get_init_inputs():
        return []
    KZOO = {"cpu_shapes": [{}], "dtypes": ["float32"]}
"""


def test_json_to_stdout_stays_json_when_the_task_prints(tmp_path):
    task = tmp_path / "chatty.py"
    task.write_text(textwrap.dedent(_PRINTING_TASK))
    analyzed = run_kzoo("analyze", str(task), "--json", "-", env_home=tmp_path / "home")
    assert analyzed.returncode == 0, analyzed.stderr
    assert json.loads(analyzed.stdout)[0]["covered"] is True
    assert "hello from the task" in analyzed.stderr
    # verify runs the task in a spawned worker, which inherits the descriptor, not sys.stdout
    verified = run_kzoo("verify", "--task", str(task), "--candidate",
                        str(CANDIDATES / "softmax_correct.py"), "--no-time", "--json", "-",
                        env_home=tmp_path / "home")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["accepted"] is True
    assert "hello from forward" in verified.stderr


def test_json_to_a_fifo_is_written_into_it_not_renamed_over_it(tmp_path):
    import os
    import stat
    import threading

    fifo = tmp_path / "result.fifo"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.update(text=fifo.read_text()), daemon=True)
    reader.start()
    proc = run_kzoo("analyze", "tasks/softmax.py", "--json", str(fifo), env_home=tmp_path / "h")
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert json.loads(got["text"])[0]["file"] == "tasks/softmax.py"


def test_sweep_output_flags_are_checked_before_the_sweep(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    for flag, value, said in [("--json", str(tmp_path), "is a folder"),
                              ("--history", str(tmp_path), "is a folder"),
                              ("--report", str(a_file), "is a file"),
                              ("--json", "/proc/kzoo.json", "cannot write there")]:
        proc = run_kzoo("sweep", "--ops", "softmax", "--trials-per-op", "0", flag, value,
                        env_home=tmp_path / "home")
        assert proc.returncode == 2, (flag, proc.stdout, proc.stderr)
        assert f"{flag} {value}: {said}" in proc.stderr and "Traceback" not in proc.stderr
        assert "sweep" not in proc.stdout, "the sweep ran before its output flags were checked"


def test_optimize_starts_from_the_params_given(tmp_path):
    out = tmp_path / "out.json"
    proc = run_kzoo("optimize", "tasks/softmax.py", "--trials", "1", "--dtype", "float32",
                    "--start", '{"align_rows": true, "num_stages": 1}', "--json", str(out),
                    env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    best = json.loads(out.read_text())["best"]
    assert best["trial"] == 0 and best["correct"] is True
    assert best["params"]["align_rows"] is True and best["params"]["num_stages"] == 1
    assert best["params"]["tile_elems"] == 1024  # a name left out: the default's choice
    for start, said in [('{"no_such": 1}', "has no parameter no_such"),
                        ('{"num_stages": 7}', "num_stages=7 not in"),
                        ('{"loop_block": 8192, "single_pass_max": 4096}', "refuses"),
                        ("[1, 2]", "expected a JSON object"),
                        ("{num_stages: 1}", "not JSON"),
                        ("@/nonexistent/params.json", "cannot read")]:
        bad = run_kzoo("optimize", "tasks/softmax.py", "--trials", "1", "--start", start,
                       env_home=tmp_path / "home2")
        assert bad.returncode == 2, (start, bad.stderr)
        assert said in bad.stderr and "Traceback" not in bad.stderr, (start, bad.stderr)


def test_verify_says_the_task_is_unusable_not_the_candidate_rejected(tmp_path):
    task = tmp_path / "raises.py"
    task.write_text(textwrap.dedent("""
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return torch.softmax(x, -1)
        def get_inputs():
            raise ValueError("no data here")
        def get_init_inputs():
            return []
    """))
    proc = run_kzoo("verify", "--task", str(task), "--candidate",
                    str(CANDIDATES / "softmax_correct.py"), "--no-time", env_home=tmp_path / "home")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "get_inputs() raised ValueError: no data here" in proc.stderr
    assert "REJECTED" not in proc.stdout and "Traceback" not in proc.stderr


def test_analyze_over_a_task_folder_skips_its_package_files(tmp_path):
    out = tmp_path / "a.json"
    proc = run_kzoo("analyze", "tasks/__init__.py", "tasks/loader.py", "tasks/softmax.py",
                    "--json", str(out), env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.count("skipped: not a task file") == 2
    assert [r["file"] for r in json.loads(out.read_text())] == ["tasks/softmax.py"]
    alone = run_kzoo("analyze", "tasks/__init__.py", "tasks/loader.py", env_home=tmp_path / "h2")
    assert alone.returncode == 2 and "none of the files given is a task file" in alone.stderr


def test_task_without_get_inputs_gets_a_clear_error_not_a_traceback(tmp_path):
    task = tmp_path / "broken.py"
    task.write_text(textwrap.dedent("""
        import torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return x
        def get_init_inputs():
            return []
    """))
    proc = run_kzoo("optimize", str(task), "--trials", "1", env_home=tmp_path / "home")
    assert proc.returncode == 2
    assert "kzoo: error:" in proc.stderr and "get_inputs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unplannable_op_is_reported_plainly(tmp_path):
    task = tmp_path / "cumsum.py"
    task.write_text(textwrap.dedent("""
        import torch, torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return torch.cumsum(x, dim=-1)
        def get_inputs():
            return [torch.randn(4, 8)]
        def get_init_inputs():
            return []
    """))
    proc = run_kzoo("optimize", str(task), "--trials", "1", env_home=tmp_path / "home")
    assert proc.returncode == 2
    assert "matches no template family" in proc.stderr and "cumsum" in proc.stderr


def _count_complete(db) -> int:
    return sum(state == "COMPLETE" for _, _, state in trial_states(db))


@pytest.mark.timeout(900)
def test_optimize_finds_a_correct_softmax_and_resumes_its_study(tmp_path):
    home = tmp_path / "home"
    out = tmp_path / "out.json"
    proc = run_kzoo("optimize", "tasks/softmax.py", "--trials", "3", "--json", str(out),
                    "--seed", "1", env_home=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    assert set(result) >= {"task", "device", "environment", "mode", "trials", "best", "promoted"}
    assert result["mode"] == "interpreter" and result["trials"] == 3
    env = result["environment"]
    assert env["gpu"] is None and env["torch"] and env["triton"] and env["date"]
    best = result["best"]
    assert best["correct"] is True and best["template"] == "softmax"
    assert set(best["params"]) >= {"single_pass_max", "tile_elems", "num_stages"}
    for key in ("ms", "speedup_vs_eager", "speedup_vs_compile", "speedup_vs_best_baseline",
                "roofline_fraction", "gpu"):
        assert best[key] is None  # the interpreter is never timed
    assert result["promoted"] is None  # nothing is promoted without a GPU timing
    assert "best: trial" in proc.stdout and "trial   score" in proc.stdout
    db = home / "studies.db"
    assert _count_complete(db) == 3

    # The same command with a higher target, and a budget too short for it: the stored study
    # continues instead of starting over. The budget counts from the first worker's start (Ray's
    # seconds of start-up once ate a 5 s budget whole: 0 trials), and what was asked but not
    # taken is dropped only after one trial of the run completed.
    short = run_kzoo("optimize", "tasks/softmax.py", "--trials", "400", "--time-budget", "1",
                     "--json", str(out), "--seed", "1", env_home=home)
    assert short.returncode == 0, short.stdout + short.stderr
    budgeted = json.loads(out.read_text())
    assert budgeted["time_budget_ran_out"] is True and budgeted["new_trials"] >= 1
    assert 3 < budgeted["trials"] <= 3 + budgeted["new_trials"] < 400  # on from the 3 it held
    assert (f"--time-budget 1 s ended the search at {budgeted['trials']} completed trial(s) of "
            "--trials 400") in short.stdout
    assert "already holds" not in short.stderr
    held = _count_complete(db)
    assert held == budgeted["trials"]

    # Asking for what it holds: nothing to run, and it says so.
    done = run_kzoo("optimize", "tasks/softmax.py", "--trials", str(held), "--seed", "1",
                    env_home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (f"the study already holds {held} completed trial(s), as many as --trials {held} "
            "asks") in done.stderr
    assert _count_complete(db) == held


def test_version_is_the_package_version(tmp_path):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    proc = run_kzoo("--version", env_home=tmp_path)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert proc.returncode == 0 and proc.stdout.strip() == f"kzoo {version}", proc


def test_help_lists_every_optimize_flag(tmp_path):
    proc = run_kzoo("optimize", "--help", env_home=tmp_path)
    assert proc.returncode == 0
    for flag in ("--trials", "--time-budget", "--dtype", "--workers", "--address", "--storage",
                 "--zoo", "--json", "--no-promote", "--start"):
        assert flag in proc.stdout


_NO_MODEL_TASK = """
    import torch
    def get_inputs():
        return [torch.randn(4, 8)]
    def get_init_inputs():
        return []
"""


def _said(stderr: str) -> str:
    """The one `kzoo: error:` line's message."""
    assert stderr.count("kzoo: error: ") == 1, stderr
    return stderr.split("kzoo: error: ", 1)[1].rstrip("\n")


def test_an_error_goes_to_the_json_target_as_an_object_too(tmp_path):
    """`kzoo ... --json - | jq` got empty input on a user error: the message went to stderr only."""
    task = tmp_path / "nomodel.py"
    task.write_text(textwrap.dedent(_NO_MODEL_TASK))
    proc = run_kzoo("optimize", str(task), "--json", "-", env_home=tmp_path / "home")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "defines no Model" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout) == {"error": _said(proc.stderr), "exit_code": 2,
                                       "command": "optimize"}
    out = tmp_path / "out" / "verdict.json"
    missing = run_kzoo("verify", "--task", "tasks/softmax.py", "--candidate", "nope.py",
                       "--json", str(out), env_home=tmp_path / "home")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr == "kzoo: error: nope.py: no such candidate file\n"
    assert json.loads(out.read_text()) == {"error": "nope.py: no such candidate file",
                                           "exit_code": 2, "command": "verify"}
    assert [p.name for p in out.parent.iterdir()] == ["verdict.json"]  # no scratch file left


def test_an_unwritable_json_target_gets_no_error_object(tmp_path):
    task = tmp_path / "nomodel.py"
    task.write_text(textwrap.dedent(_NO_MODEL_TASK))
    for args in [("optimize", str(task)), ("analyze", "missing.py"),
                 ("verify", "--task", "tasks/softmax.py", "--candidate", "nope.py")]:
        proc = run_kzoo(*args, "--json", "/proc/kzoo.json", env_home=tmp_path / "home")
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == "" and proc.stderr == (
            "kzoo: error: --json /proc/kzoo.json: cannot write there (No such file or directory); "
            "name a file in a writable folder, or '-' for stdout\n"), (args, proc.stderr)


def test_the_trials_table_shows_the_longest_stage_whole():
    from agent.progress import render_table

    row = {"trial": 3, "score": 0.0, "accepted": False, "stage": "correctness", "ms": None,
           "speedup_vs_eager": None, "speedup_vs_compile": None, "roofline_fraction": None,
           "reason": "[wrong-values] mismatches at 5 of 8 elements", "params": {"block": 64}}
    head, rule, line = render_table([row]).splitlines()
    assert "x correctness " in line and line.index("block=64") == head.index("params / reason")
