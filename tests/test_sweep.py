"""`kzoo sweep`: the regression rule on verdict data, planning over zoo layers, the report from GPU
timings, and real sweeps in Triton's interpreter (a real local Ray instance, real SQLite studies,
real kernels): killed and restarted, and over a zoo holding a kernel that is now wrong."""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import ROOT, copy_entry, run_kzoo, signal_when, trial_states
from test_zoo import kernel_source, make_record

from agent import sweep
from agent.report import write_report
from kernel_zoo import store
from verifier.verdict import ShapeResult, Verdict

SHIPPED = ROOT / "kernel_zoo" / "entries"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _copy_softmax_fixture(zoo: Path) -> None:
    """The shipped softmax entries 1.0.0 and 1.1.0 (H200-tuned), which these tests describe."""
    for version in ("1.0.0", "1.1.0"):
        copy_entry(SHIPPED, "softmax", version, zoo)


def _shipped_config(dtype: str) -> dict:
    manifest = json.loads((SHIPPED / "softmax" / "1.1.0" / "manifest.json").read_text())
    return next(c for c in manifest["configs"] if c["dtype"] == dtype)


def _fresh(recorded: dict, kernel: float = 1.0, eager: float = 1.0, compile_: float = 1.0):
    """A verdict summary as the verifier makes it, from the recorded per-shape times scaled:
    `kernel` multiplies the kernel's times, `eager`/`compile_` the baselines'."""
    verdict = Verdict(accepted=True, stage="done", mode="gpu", dtype=recorded["dtype"],
                      copy_gbps=recorded["copy_gbps"])
    for row in recorded["shapes"]:
        verdict.shapes.append(ShapeResult(
            shape=row["shape"], correct=True, ms=row["ms"] * kernel,
            eager_ms=row["eager_ms"] * eager, compile_ms=row["compile_ms"] * compile_,
            gbps=row["gbps"] / kernel, roofline_fraction=row["roofline_fraction"] / kernel,
        ))
    return verdict.summary()


# ---------------------------------------------------------------------------------------------
# the rule, on verdict data


def test_timing_rule_same_speed_and_small_drift_are_clean():
    recorded = _shipped_config("float32")["verdict"]
    assert sweep.timing_regressions(recorded, _fresh(recorded), 0.9) == []
    assert sweep.timing_regressions(recorded, _fresh(recorded, kernel=1.05), 0.9) == []


def test_timing_rule_flags_a_kernel_that_got_slower():
    recorded = _shipped_config("float32")["verdict"]  # 1.35x eager, 1.52x compile recorded
    found = sweep.timing_regressions(recorded, _fresh(recorded, kernel=1.25), 0.9)
    dropped = {r["baseline"]: r for r in found if r["kind"] == "speedup-dropped"}
    assert set(dropped) == {"eager", "torch.compile"}
    assert dropped["eager"]["ratio"] == pytest.approx(0.8)
    assert dropped["eager"]["recorded"] == pytest.approx(recorded["speedup_vs_eager"])
    assert len(dropped["eager"]["shapes"]) == len(recorded["shapes"])  # every shape lost 20%
    # 1.35 / 1.25 = 1.08x eager: still faster than eager, so not slower-than-baseline
    assert not [r for r in found if r["kind"] == "slower-than-baseline"]


def test_timing_rule_flags_baselines_that_caught_up_and_a_kernel_slower_than_eager():
    recorded = _shipped_config("float32")["verdict"]
    # same kernel time, eager twice as fast on the new software: relative speed dropped
    found = sweep.timing_regressions(recorded, _fresh(recorded, eager=0.5), 0.9)
    kinds = {(r["kind"], r["baseline"]) for r in found}
    assert kinds == {("speedup-dropped", "eager"), ("slower-than-baseline", "eager")}
    slower = next(r for r in found if r["kind"] == "slower-than-baseline")
    assert slower["speedup"] == pytest.approx(recorded["speedup_vs_eager"] / 2)
    # a looser threshold accepts what the default flags
    assert sweep.timing_regressions(recorded, _fresh(recorded, kernel=1.25), 0.75) == []


def test_speedups_are_compared_only_between_verdicts_timed_the_same_way():
    recorded = _shipped_config("float32")["verdict"]  # from before verdicts kept their timer
    fresh = {**_fresh(recorded, kernel=1.25), "timer": "host_ahead"}
    assert sweep.timer_change(recorded, fresh) == {
        "timer": {"recorded": "default", "now": "host_ahead"}}
    # 0.8 of the recorded speedups, but measured another way: not a drop; the timer change is
    # what the report shows, and the absolute rule still holds
    assert sweep.timing_regressions(recorded, fresh, 0.9) == []
    slower = {**_fresh(recorded, eager=0.5), "timer": "host_ahead"}
    assert {r["kind"] for r in sweep.timing_regressions(recorded, slower, 0.9)} == {
        "slower-than-baseline"}
    # the same timer on both sides compares as before
    again = {**recorded, "timer": "host_ahead"}
    assert sweep.timer_change(again, fresh) == {}
    assert {r["kind"] for r in sweep.timing_regressions(again, fresh, 0.9)} == {"speedup-dropped"}
    untimed = {**fresh, "ms": None}
    assert sweep.timer_change(recorded, untimed) == {}


def test_timing_rule_needs_timings_on_both_sides():
    recorded = _shipped_config("bfloat16")["verdict"]
    untimed = {**_fresh(recorded), "ms": None, "speedup_vs_eager": None,
               "speedup_vs_compile": None}
    assert sweep.timing_regressions(recorded, untimed, 0.9) == []
    # nothing recorded to compare with: only the baseline rule applies
    found = sweep.timing_regressions({"accepted": True}, _fresh(recorded, kernel=2.0), 0.9)
    assert {r["kind"] for r in found} == {"slower-than-baseline"}


def test_speedup_over_best_baseline_of_an_optimize_result_matches_the_verdicts():
    recorded = _shipped_config("bfloat16")["verdict"]
    fresh = _fresh(recorded, kernel=1.1, compile_=0.7)
    assert sweep.speedup_over_best_baseline(fresh) == pytest.approx(
        fresh["speedup_vs_best_baseline"])
    assert sweep.speedup_over_best_baseline({"shapes": [{"ms": None}]}) is None


def test_a_shape_buckets_kernel_is_re_verified_at_its_buckets_shapes_only():
    import tasks

    task_shapes = tasks.load(ROOT / "tasks" / "amax.py").shapes
    rows = [s for s in task_shapes if s["reduce_dim"] == 2 and s["cols"] > 1024]  # cols_le_16384
    assert 0 < len(rows) < len(task_shapes)
    unit = {"id": "amax/sm_90/bfloat16/cols_le_16384", "bucket": "cols_le_16384",
            "recorded": {"shapes": [{"shape": dict(reversed(list(s.items())))} for s in rows]}}
    assert sweep.bucket_shapes(unit, task_shapes) == (rows, None)  # key order does not matter
    assert sweep.bucket_shapes({**unit, "bucket": "any"}, task_shapes) == (None, None)
    gone = {**unit, "recorded": {"shapes": [{"shape": {"batch": 3, "rows": 5, "cols": 7}}]}}
    shapes, note = sweep.bucket_shapes(gone, task_shapes)
    assert shapes is None and "every shape" in note


def test_wrong_and_tampered_kernels_are_regressions_and_errors_are_not():
    unit = {"recorded": _shipped_config("float32")["verdict"]}
    wrong = {"status": "wrong", "verdict": {"stage": "correctness", "reasons": ["[wrong] x"]}}
    assert [r["kind"] for r in sweep.regressions_of(unit, wrong, 0.9)] == ["wrong"]
    tampered = {"status": "integrity", "reason": "sha256 differs"}
    assert sweep.regressions_of(unit, tampered, 0.9) == [
        {"kind": "integrity", "message": "sha256 differs"}]
    assert sweep.regressions_of(unit, {"status": "error", "reason": "no task"}, 0.9) == []
    assert sweep.regressions_of(unit, None, 0.9) == []


def test_environment_changes_name_each_changed_field():
    recorded = _shipped_config("float32")["environment"]
    now = {**recorded, "driver": "590.1", "triton": "3.9.0", "date": "later"}
    assert sweep.environment_changes(recorded, now) == {
        "driver": {"recorded": "580.159.04", "now": "590.1"},
        "triton": {"recorded": "3.6.0", "now": "3.9.0"},
    }
    assert sweep.environment_changes(recorded, recorded) == {}


def test_environment_changes_name_a_new_ptxas_release_not_a_new_path():
    """The ptxas that assembles the kernels (kernel_zoo.toolchain) by its release: a record from
    before it was kept shows it as unknown; another path to the same release is no change."""
    recorded = _shipped_config("float32")["environment"]
    ptxas = {"path": "/opt/torch/lib/python3.12/site-packages/torch/bin/ptxas", "version": "13.0"}
    now = {**recorded, "ptxas": ptxas}
    assert sweep.environment_changes({k: v for k, v in recorded.items() if k != "ptxas"}, now) \
        == {"ptxas": {"recorded": None, "now": "13.0"}}
    moved = {**now, "ptxas": {**ptxas, "path": "/usr/lib/torch/bin/ptxas"}}
    assert sweep.environment_changes(now, moved) == {}
    older = {**now, "ptxas": {**ptxas, "version": "12.8"}}
    assert sweep.environment_changes(older, now) == {"ptxas": {"recorded": "12.8", "now": "13.0"}}
    # an environment that cannot name its ptxas (a Triton without knobs) reports no change
    assert sweep.environment_changes(now, {**now, "ptxas": None}) == {}


# ---------------------------------------------------------------------------------------------
# planning


def test_plan_takes_what_dispatch_serves_and_seeds_a_new_arch(tmp_path):
    upper, lower = tmp_path / "upper", tmp_path / "lower"
    store.promote("softmax", kernel_source("low-bf16"), make_record("sm_90", "bfloat16"),
                  zoo_dir=lower)
    store.promote("softmax", kernel_source("low-f32"), make_record("sm_80", "float32"),
                  zoo_dir=lower)
    store.promote("softmax", kernel_source("up-bf16"), make_record("sm_90", "bfloat16"),
                  zoo_dir=upper)
    units, failures = sweep.plan_units(["softmax"], [upper, lower], "gpu", "sm_90")
    assert failures == []
    by_id = {u["id"]: u for u in units}
    assert set(by_id) == {"softmax/sm_90/bfloat16/any", "softmax/sm_90/float32/any"}
    bf16 = by_id["softmax/sm_90/bfloat16/any"]
    assert bf16["entry"] == str((upper / "softmax" / "1.0.0").resolve())  # the upper layer wins
    assert not bf16["new_arch"]
    f32 = by_id["softmax/sm_90/float32/any"]
    assert f32["new_arch"] and f32["arch"] == "sm_80" and f32["version"] == "1.1.0"

    units, _ = sweep.plan_units(["softmax"], [upper, lower], "interpreter", None)
    assert sorted(u["id"] for u in units) == [
        "softmax/sm_80/float32/any", "softmax/sm_90/bfloat16/any"]


def test_an_op_whose_only_entry_is_unreadable_is_a_failure_not_a_clean_sweep(tmp_path):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("ok"), make_record("sm_90", "bfloat16"), zoo_dir=zoo)
    store.promote("amax", kernel_source("broken"), make_record("sm_90", "bfloat16"),
                  zoo_dir=zoo)
    (zoo / "amax" / "1.0.0" / "manifest.json").write_text("{not json")
    ops = sweep.selected_ops(sweep.SweepOptions(zoo=str(zoo)))
    assert ops == ["amax", "softmax"]
    units, failures = sweep.plan_units(ops, [zoo], "interpreter", None)
    assert [u["op"] for u in units] == ["softmax"]
    assert [f["op"] for f in failures] == ["amax"]
    assert failures[0]["message"].startswith("cannot read amax's entries: ")


def test_plan_takes_this_gpu_models_config_of_a_bucket_two_models_tuned(tmp_path):
    """A bucket with an H100's and an H200's config: a sweep on either GPU re-times its own, on
    another GPU of the arch the one promoted last (what dispatch serves each); the interpreter
    checks both, as units of their own."""
    zoo = tmp_path / "zoo"
    for tag, device in (("h100", "NVIDIA H100 80GB HBM3"), ("h200", "NVIDIA H200")):
        store.promote("softmax", kernel_source(tag), make_record("sm_90", "bfloat16",
                                                                 device=device), zoo_dir=zoo)
    for gpu, served in (("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
                        ("NVIDIA H200", "NVIDIA H200"), ("NVIDIA GH200 480GB", "NVIDIA H200")):
        units, failures = sweep.plan_units(["softmax"], [zoo], "gpu", "sm_90", gpu)
        assert failures == [] and [u["id"] for u in units] == ["softmax/sm_90/bfloat16/any"]
        manifest = store.read_manifest(Path(units[0]["entry"]))
        (config,) = [c for c in manifest["configs"] if c["file"] == units[0]["file"]]
        assert config["device"] == served, gpu
    units, _ = sweep.plan_units(["softmax"], [zoo], "interpreter", None)
    assert sorted(u["id"] for u in units) == [
        "softmax/sm_90/bfloat16/any/nvidia-h100-80gb-hbm3", "softmax/sm_90/bfloat16/any/nvidia-h200"]


def test_a_units_kernel_is_re_tuned_with_its_own_template_where_the_plan_offers_it():
    """The shipped linear_bias_gelu entry serves the H200 the CUDA C++ `gemm_cuda` kernel and the
    H100 the Triton `gemm` one: a sweep re-tunes each with its own template (so the CUDA kernel's
    params warm-start its search), and a template the plan no longer offers falls back to the
    plan's first."""
    import tasks
    from agent.plan import plan

    found = plan(tasks.load(ROOT / "tasks" / "linear_bias_gelu.py"))
    units, failures = sweep.plan_units(["linear_bias_gelu"], [SHIPPED], "interpreter", None)
    assert failures == []
    templates = {u["template"] for u in units}
    assert templates == {"gemm", "gemm_cuda"}, templates
    for unit in units:
        template = sweep.unit_template(found, unit)
        assert template.name == unit["template"]
        assert template.config(unit["params"])  # a warm start: the entry's params are its points
    assert sweep.unit_template(found, {"template": "softmax_cuda"}).name == "gemm"
    assert sweep.unit_template(found, {}).name == "gemm"


# ---------------------------------------------------------------------------------------------
# the report from GPU data (what a GPU sweep hands it), drawn here


def test_history_survives_a_torn_line_and_bytes_that_are_not_utf8(tmp_path):
    history = tmp_path / "history.jsonl"
    first = {"sweep_id": "night-1", "unit": "softmax/sm_90/float32/any"}
    sweep.append_history(history, [first])
    with open(history, "ab") as handle:  # a crash mid-append, and a stray byte
        handle.write(b'{"sweep_id": "night-2", "unit": "caf\xe9", "spee')
    second = {"sweep_id": "night-3", "unit": "softmax/sm_90/bfloat16/any"}
    sweep.append_history(history, [second])
    assert sweep.read_history(history) == [first, second]
    assert history.read_bytes().endswith(b'"spee\n' + json.dumps(second).encode() + b"\n")
    state = tmp_path / sweep.STATE_FILE
    state.write_bytes(b"\xff{}")
    with pytest.raises(sweep.SweepUsageError, match="cannot read the sweep state"):
        sweep.SweepState.load(state)


def test_report_from_gpu_timings_has_every_file_plot_and_regression(tmp_path, kzoo_home):
    zoo = tmp_path / "zoo"
    _copy_softmax_fixture(zoo)
    history = tmp_path / "history.jsonl"
    opts = sweep.SweepOptions(zoo=str(zoo), report=str(tmp_path / "report"),
                              history=str(history), quiet=True)
    runner = sweep._Sweep(opts)
    runner.mode, runner.device, runner.arch = "gpu", "h200", "sm_90"
    runner.environment = {**_shipped_config("float32")["environment"], "driver": "590.1"}
    units, _ = sweep.plan_units(["softmax"], [zoo], "gpu", "sm_90")
    state = sweep.SweepState(tmp_path / "report" / sweep.STATE_FILE, {
        "sweep_id": "night-2", "created": "2026-11-24T02:00:00+00:00", "settings": {},
        "units": units, "plan_failures": [], "steps": {}, "runs": [],
        "history_written": False,
    })
    (tmp_path / "report").mkdir()
    scale = {"bfloat16": 1.0, "float32": 1.4}  # float32's kernel now 40% slower
    for unit in units:
        fresh = _fresh(unit["recorded"], kernel=scale[unit["dtype"]])
        state.finish(unit, "verify", runner._verify_result(unit, {}, None) | {
            "status": "correct", "verdict": fresh})
        state.finish(unit, "tune", {"status": "skipped", "reason": "test"})
    # an earlier night, in the history file
    earlier = [{"sweep_id": "night-1", "date": "2026-11-23T02:00:00+00:00", "unit": u["id"],
                "speedup_vs_best_baseline": 1.3} for u in units]
    sweep.append_history(history, earlier)

    summary = runner.summary(state)
    records = runner.history(state, summary)
    files = write_report(summary, records, tmp_path / "report")

    assert summary["complete"] and summary["exit_code"] == sweep.EXIT_REGRESSED
    kinds = {(r["unit"], r["kind"]) for r in summary["regressions"]}
    assert kinds == {("softmax/sm_90/float32/any", "speedup-dropped")}
    assert summary["ceilings"]["copy_gbps"] == pytest.approx(4254.667, rel=1e-3)
    shapes = summary["units"][0]["verify"]["verdict"]["shapes"]
    assert all(row["flops"] == 4 * row["shape"]["batch_size"] * row["shape"]["dim"]
               for row in shapes)  # the task's KZOO['flops'], for the roofline
    # this sweep joined the history once, beside the earlier night
    lines = history.read_text().splitlines()
    assert len(lines) == 4 and {json.loads(x)["sweep_id"] for x in lines} == {"night-1",
                                                                               "night-2"}
    runner.history(state, summary)
    assert len(history.read_text().splitlines()) == 4

    folder = tmp_path / "report"
    md = (folder / files["report_md"]).read_text()
    assert "**REGRESSIONS**" in md and "[speedup-dropped]" in md
    assert "driver: 580.159.04 -> 590.1" in md
    html = (folder / files["report_html"]).read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == 3
    for key, name in files["plots"].items():
        data = (folder / name).read_bytes()
        assert data.startswith(PNG_MAGIC), key
        assert base64.b64decode(images[list(files["plots"]).index(key)]) == data


# ---------------------------------------------------------------------------------------------
# real sweeps, in the interpreter


def _complete_trials(db: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for study, _, state in trial_states(db):
        if state == "COMPLETE":
            counts[study] = counts.get(study, 0) + 1
    return counts


def _steps(report: Path) -> dict:
    try:
        return json.loads((report / sweep.STATE_FILE).read_text())["steps"]
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _check_report_files(report: Path) -> dict:
    # strict JSON: a wrong kernel's inf error is the string "inf", not Python's Infinity
    summary = json.loads((report / "summary.json").read_text(),
                         parse_constant=lambda name: pytest.fail(f"summary.json holds {name}"))
    assert (report / "report.md").read_text().startswith("# kzoo sweep:")
    html = (report / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    for name in ("speedup.png", "roofline.png", "history.png"):
        assert (report / name).read_bytes().startswith(PNG_MAGIC), name
    return summary


@pytest.mark.timeout(900)
def test_a_ctrl_c_during_a_tune_step_reports_the_sweep_as_far_as_it_got(tmp_path):
    """Ctrl-C in a tune step: --json got that unit's optimize result, and the line said "completed
    trials are kept in the study"; now the sweep's summary, marked interrupted, and its steps."""
    zoo, report, home = tmp_path / "zoo", tmp_path / "report", tmp_path / "home"
    _copy_softmax_fixture(zoo)
    env = dict(os.environ, KZOO_HOME=str(home), PYTHONPATH=str(ROOT))
    out = tmp_path / "out.json"
    cmd = [sys.executable, "-m", "agent", "sweep", "--zoo", str(zoo), "--trials-per-op", "50",
           "--workers", "1", "--seed", "0", "--report", str(report), "--json", str(out)]
    sweep_proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    db = home / "studies.db"
    err = signal_when(sweep_proc,  # once inside a tune step
                      lambda: sum(_complete_trials(db).values()) >= 1,
                      signal.SIGINT, within_s=400, end_s=300)
    assert sweep_proc.returncode == 130 and "Traceback" not in err, err[-2000:]
    done = len(_steps(report))
    assert (f"kzoo: interrupted; {done} of 4 step(s) done, kept in {report} (report.md says how "
            "far it got). Run the same command again to go on.") in err, err[-2000:]
    summary = json.loads(out.read_text())
    assert summary["interrupted"] is True and summary["complete"] is False
    assert len(summary["units"]) == 2 and "interrupted" in summary["incomplete_reason"]
    assert "Incomplete, clean so far" in (report / "report.md").read_text()


def test_sweep_killed_after_a_unit_resumes_without_redoing_it(tmp_path):
    zoo, report, home = tmp_path / "zoo", tmp_path / "report", tmp_path / "home"
    _copy_softmax_fixture(zoo)
    env = dict(os.environ, KZOO_HOME=str(home), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "agent", "sweep", "--zoo", str(zoo), "--trials-per-op", "1",
           "--workers", "1", "--seed", "0", "--report", str(report)]
    first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    signal_when(first, lambda: any(key.endswith("#tune") for key in _steps(report)),
                signal.SIGKILL, within_s=400, end_s=30)
    before = _steps(report)
    tuned = [key for key in before if key.endswith("#tune")]
    assert len(tuned) == 1 and len(before) == 3  # both verify steps, one tune step
    trials_before = _complete_trials(home / "studies.db")
    first_study = before[tuned[0]]["study"]
    assert trials_before[first_study] == 1

    again = subprocess.run(cmd + ["--json", str(tmp_path / "out.json")], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "resuming: 3 of 4 step(s) already done" in again.stderr
    after = _steps(report)
    assert len(after) == 4
    for key, step in before.items():  # finished steps were kept, not redone
        assert after[key] == step
    new = [key for key in after if key not in before]
    assert len(new) == 1 and after[new[0]]["pid"] != before[tuned[0]]["pid"]
    trials_after = _complete_trials(home / "studies.db")
    assert trials_after[first_study] == 1  # no new trial in the finished unit's study
    assert sum(trials_after.values()) == 2  # one per unit, one run each
    import optuna

    from templates import get_template, params_of

    softmax = get_template("softmax")
    for study_name in trials_after:  # each study started from the zoo entry's own params
        study = optuna.load_study(study_name=study_name,
                                  storage=f"sqlite:///{home / 'studies.db'}")
        dtype = study_name.split("/")[2]
        shipped = _shipped_config(dtype)["params"]
        first = study.trials[0].params
        # the entry's params, and each knob added to the template since at its legacy choice
        assert {k: first[k] for k in shipped} == shipped
        assert first == params_of(softmax.config(shipped))

    summary = _check_report_files(report)
    assert summary == json.loads((tmp_path / "out.json").read_text()) | {
        "files": summary["files"]}
    assert summary["complete"] and summary["exit_code"] == 0 and summary["mode"] == "interpreter"
    # the tune steps' verifier throughput, summed over both runs, is kept and printed
    assert summary["throughput"]["verified"] >= 2 and "throughput: " in again.stdout
    assert [u["verify"]["status"] for u in summary["units"]] == ["correct", "correct"]
    assert all(u["verify"]["verdict"]["ms"] is None for u in summary["units"])  # never timed
    changed = summary["units"][0]["verify"]["environment_changes"]
    assert changed["gpu"] == {"recorded": "NVIDIA H200", "now": None}
    history = (home / "sweeps" / "history.jsonl").read_text().splitlines()
    assert len(history) == 2

    # a finished sweep run again does nothing new and says the same
    third = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0, third.stderr
    assert _steps(report) == after and _complete_trials(home / "studies.db") == trials_after
    assert len((home / "sweeps" / "history.jsonl").read_text().splitlines()) == 2


def _wrong_kernel_zoo(zoo: Path) -> None:
    """The shipped float32 kernel, changed to divide its output by 0 (inf: the summary's errors
    are non-finite), re-hashed: a schema-valid entry whose manifest still claims the shipped
    verdict."""
    manifest = copy.deepcopy(json.loads((SHIPPED / "softmax" / "1.1.0" /
                                         "manifest.json").read_text()))
    config = next(c for c in manifest["configs"] if c["dtype"] == "float32")
    source = store.read_entry_file(SHIPPED / "softmax" / "1.1.0", manifest,
                                   config["file"]).decode()
    wrong = source.replace("tl.store(y_ptr + y_off, y.to(", "tl.store(y_ptr + y_off, (y / 0.0).to(")
    wrong = wrong.replace("tl.store(y_row + offs, y.to(", "tl.store(y_row + offs, (y / 0.0).to(")
    assert wrong.count("y / 0.0") == 2
    data = wrong.encode()
    manifest.update(version="2.0.0", configs=[config],
                    files={config["file"]: store.sha256_bytes(data)})
    store.import_entry(manifest, {config["file"]: data}, zoo_dir=zoo, source="test")


@pytest.mark.timeout(600)
def test_a_kernel_that_is_now_wrong_is_a_regression_with_exit_3(tmp_path):
    zoo = tmp_path / "zoo"
    _wrong_kernel_zoo(zoo)
    report = tmp_path / "report"
    proc = run_kzoo("sweep", "--ops", "softmax", "--zoo", str(zoo), "--trials-per-op", "0",
                    "--workers", "1", "--report", str(report), env_home=tmp_path / "home")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "regression softmax/sm_90/float32/any (2.0.0): [wrong] rejected at correctness" in (
        proc.stdout)
    summary = _check_report_files(report)
    assert [(r["unit"], r["kind"]) for r in summary["regressions"]] == [
        ("softmax/sm_90/float32/any", "wrong")]
    assert summary["units"][0]["tune"]["status"] == "skipped"
    md = (report / "report.md").read_text()
    assert "**REGRESSIONS**" in md and "[wrong] rejected at correctness" in md
    assert "WRONG at correctness" in md


@pytest.mark.timeout(300)
def test_a_sweep_out_of_time_reports_itself_incomplete(tmp_path):
    zoo, report = tmp_path / "zoo", tmp_path / "report"
    _copy_softmax_fixture(zoo)
    proc = run_kzoo("sweep", "--zoo", str(zoo), "--time-budget", "1", "--workers", "1",
                    "--report", str(report), env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sweep INCOMPLETE (the time budget ran out during the verify steps)" in proc.stdout
    summary = _check_report_files(report)
    assert not summary["complete"] and _steps(report) == {}
    assert [u["verify"] for u in summary["units"]] == [None, None]
    assert "Incomplete: the time budget ran out" in (report / "report.md").read_text()
    assert not (tmp_path / "home" / "sweeps" / "history.jsonl").exists()  # only finished sweeps


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the CUDA C++ kernel runs")
def test_a_cuda_kernel_no_gpu_can_run_is_skipped_not_a_regression(tmp_path):
    """linear_bias_gelu 1.19.0 serves the H200 CUDA C++ kernels. A sweep on a machine with no GPU
    reported them WRONG and exited 3 (regressions) every night; they were never run."""
    zoo = tmp_path / "zoo"
    copy_entry(SHIPPED, "linear_bias_gelu", "1.19.0", zoo)
    report = tmp_path / "report"
    proc = run_kzoo("sweep", "--ops", "linear_bias_gelu", "--trials-per-op", "0", "--zoo",
                    str(zoo), "--report", str(report), env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((report / "summary.json").read_text())
    statuses = sorted(((u["id"].split("/")[-1], u["verify"]["status"]) for u in summary["units"]))
    assert statuses == [("nvidia-h100-80gb-hbm3", "correct"), ("nvidia-h100-80gb-hbm3", "correct"),
                        ("nvidia-h200", "skipped"), ("nvidia-h200", "skipped")], statuses
    assert summary["regressions"] == [] and summary["failures"] == []
    text = (report / "report.md").read_text()
    assert "**Clean**: 4 unit(s), 2 re-verified, 2 skipped (a kernel that needs a GPU)" in text
    assert "skipped: CUDA C++: it runs only on a GPU, and this machine has none" in text


def test_usage_errors_are_one_line_with_exit_2(tmp_path):
    zoo = tmp_path / "zoo"
    _copy_softmax_fixture(zoo)
    home = tmp_path / "home"
    unknown = run_kzoo("sweep", "--ops", "gemm", "--zoo", str(zoo), env_home=home)
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "kzoo: error: no zoo entries for op(s) gemm; ops there: softmax (--ops)")
    threshold = run_kzoo("sweep", "--zoo", str(zoo), "--regression-threshold", "1.5",
                         env_home=home)
    assert threshold.returncode == 2 and "--regression-threshold must be in (0, 1]" in (
        threshold.stderr)
    missing = run_kzoo("sweep", "--zoo", str(tmp_path / "nope"), env_home=home)
    assert missing.returncode == 2 and "no such zoo folder" in missing.stderr
    for proc in (unknown, threshold, missing):
        assert "Traceback" not in proc.stderr

    report = tmp_path / "report"
    state = {"schema": sweep.STATE_SCHEMA, "settings": {"ops": ["softmax"], "trials_per_op": 99}}
    report.mkdir()
    (report / sweep.STATE_FILE).write_text(json.dumps(state))
    other = run_kzoo("sweep", "--zoo", str(zoo), "--report", str(report), env_home=home)
    assert other.returncode == 2 and "holds a sweep with other settings" in other.stderr
    assert "--fresh" in other.stderr


def test_help_lists_every_sweep_flag(tmp_path):
    proc = run_kzoo("sweep", "--help", env_home=tmp_path)
    assert proc.returncode == 0
    for flag in ("--ops", "--all", "--time-budget", "--trials-per-op", "--storage", "--zoo",
                 "--address", "--report", "--json", "--regression-threshold", "--fresh"):
        assert flag in proc.stdout


@pytest.mark.timeout(600)
def test_a_shape_buckets_kernel_is_tuned_in_a_study_of_its_own(tmp_path):
    """amax 1.0.0 serves only bfloat16 rows up to 1024 wide: its unit is that bucket's, and the
    tune step continues a study named for the bucket, started from the entry's params."""
    zoo, report, home = tmp_path / "zoo", tmp_path / "report", tmp_path / "home"
    copy_entry(SHIPPED, "amax", "1.0.0", zoo)
    proc = run_kzoo("sweep", "--zoo", str(zoo), "--trials-per-op", "1", "--workers", "1",
                    "--seed", "0", "--report", str(report), env_home=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((report / "summary.json").read_text())
    (unit,) = summary["units"]
    assert unit["id"] == "amax/sm_90/bfloat16/cols_le_1024"
    tune = unit["tune"]
    assert tune["status"] == "done", tune
    assert tune["study"].split("/")[1].endswith("@cols_le_1024") and tune["trials"] == 1
    assert tune["warm_start"] is True
    import optuna

    study = optuna.load_study(study_name=tune["study"], storage=f"sqlite:///{home / 'studies.db'}")
    manifest = json.loads((zoo / "amax" / "1.0.0" / "manifest.json").read_text())
    assert study.trials[0].params == {**manifest["configs"][0]["params"], "packed_keys": False,
                                      "one_pass_min_fill": 0, "nan_combine": False,
                                      "max_then_index": False, "body_tile": False,
                                      "const_cols": False}


def test_a_winner_slower_at_one_shape_than_the_entry_is_not_promoted():
    """GPU round 115: a bucket's new config, 1.33x and 1.12x faster at two shapes, was 0.69x at a
    third; its better geometric mean promoted it. Now each shape has a limit: the entry's fresh
    time x SHAPE_SLACK."""
    from agent.loop import slower_shapes

    a, b, c = {"batch": 64}, {"batch": 8}, {"batch": 4}
    fresh = {"shapes": [{"shape": a, "ms": 0.0638}, {"shape": b, "ms": 0.0528},
                        {"shape": c, "ms": None}]}
    limits = sweep.shape_limits(fresh)
    assert set(limits) == {json.dumps(a), json.dumps(b)}  # an untimed shape has no limit
    assert limits[json.dumps(b)] == pytest.approx(0.0528 * sweep.SHAPE_SLACK)
    winner = {"shapes": [{"shape": a, "ms": 0.0479}, {"shape": b, "ms": 0.0767},
                         {"shape": c, "ms": 0.0137}]}
    assert slower_shapes(winner, limits) == [
        {"shape": b, "ms": 0.0767, "limit_ms": pytest.approx(0.0528 * sweep.SHAPE_SLACK)}]
    within = {"shapes": [{"shape": a, "ms": 0.0479}, {"shape": b, "ms": 0.0528 * 1.04}]}
    assert slower_shapes(within, limits) == []  # inside the timer's spread
    assert slower_shapes(winner, {}) == []  # no limits: the geometric mean alone decides
