"""The pipeline ahead of the GPUs: Optuna asks a batch ahead, CPU prepare workers guard and compile
candidates in processes of their own, guard rejections never reach a verifier actor, a prepare
worker that crashes or hangs is replaced, and the JSON carries the stage's numbers. A real local
Ray instance declares two GPU resources; kernels run in Triton's interpreter."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, of_this_run

SOFTMAX = str(ROOT / "tasks" / "softmax.py")
MODULE_HANG = "\nwhile True:  # hangs whoever imports it\n    pass\n"


class RenderEdits:
    """The softmax template, with the Nth rendered candidate edited by `edits[N]`."""

    def __init__(self, base, edits: dict):
        self._base = base
        self._edits = edits
        self.renders = -1  # render 0: the loop's check of the plan's context, before any trial

    def __getattr__(self, name):
        return getattr(self._base, name)

    def render(self, cfg, **context):
        source = self._base.render(cfg, **context)
        self.renders += 1
        edit = self._edits.get(self.renders)
        return edit(source) if edit else source


def _optimize(monkeypatch, edits: dict, **kwargs):
    import ray

    import agent.loop as loop
    from templates import get_template

    template = RenderEdits(get_template("softmax"), edits)
    from agent.plan import Plan

    monkeypatch.setattr(Plan, "template_object", lambda self, wanted=None: template)
    try:
        return loop.optimize(loop.OptimizeOptions(task=SOFTMAX, quiet=True, **kwargs))
    finally:
        ray.shutdown()


def test_a_batch_asked_ahead_spreads_out_and_follows_the_model():
    """The loop's sampler, asked 16 times with nothing told in between (as the pipeline asks
    ahead), gives 16 distinct configs near the good region: the constant liar keeps the batch
    apart, TPE keeps it informed. (With constant_liar=False the same seed repeats configs: 12 of
    16 distinct under optuna 4.)"""
    import optuna

    import search
    from templates import get_template, params_of

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    template = get_template("softmax")
    target = params_of(template.default)
    study = optuna.create_study(direction="maximize", sampler=search.study.make_sampler(seed=0))

    def ask():
        while True:
            trial = study.ask()
            cfg = search.suggest(trial, template)
            if not template.violations(cfg):
                return trial, params_of(cfg)
            search.reject(study, trial, template.violations(cfg))

    def closeness(params):  # how many knobs match the target config
        return sum(params[k] == target[k] for k in params)

    for _ in range(40):
        trial, params = ask()
        study.tell(trial, float(closeness(params)))
    batch = [ask()[1] for _ in range(16)]
    assert len({json.dumps(p, sort_keys=True) for p in batch}) == 16, batch
    # Uniform sampling matches about 2.65 of the 9 knobs; a sampler that uses the model, more.
    assert sum(closeness(p) for p in batch) / len(batch) > 4.5


def _kill_first_hanging_preparer(stop: threading.Event, killed: list, home: Path,
                                 after_s: float = 8.0):
    """SIGKILL the first process of this run that Ray titles as running PrepareActor.prepare for
    `after_s`."""
    first_seen: dict[int, float] = {}
    while not stop.is_set() and not killed:
        now = time.monotonic()
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "PrepareActor.prepare" in cmdline and of_this_run(proc, home):
                pid = int(proc.name)
                if now - first_seen.setdefault(pid, now) > after_s:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return
        time.sleep(0.1)


@pytest.mark.timeout(600)
def test_prepare_workers_guard_ahead_and_survive_a_crash_and_a_hang(kzoo_home, monkeypatch):
    """Candidate 2 fails the guards, 3 and 4 hang whoever imports them: one of the two prepare
    workers running them is killed with SIGKILL, the other overruns the time limit. None of the
    three reaches a verifier actor; the replaced workers prepare the rest."""
    import agent.pipeline as pipeline

    # Keep every candidate in the prepare stage: no free GPU slot may take one unprepared.
    monkeypatch.setattr(pipeline.Pipeline, "_bypass", lambda self, slot: None)
    add_os_import = lambda source: "import os\n" + source  # noqa: E731
    hang = lambda source: source + MODULE_HANG  # noqa: E731
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_first_hanging_preparer,
                              args=(stop, killed, kzoo_home), daemon=True)
    killer.start()
    try:
        result = _optimize(monkeypatch, {2: add_os_import, 3: hang, 4: hang}, trials=6,
                           workers=2, local_gpus=2, prepare_workers=2, timeout_s=20.0, seed=5)
    finally:
        stop.set()
        killer.join(5)
    assert killed, "no prepare worker was seen hanging"
    payload, table = result.payload, result.table
    assert payload["trials"] == 6 and payload["best"]["correct"]
    by_stage: dict[str, list[str]] = {}
    for row in table:
        by_stage.setdefault(row["stage"], []).append(row["reason"])
    assert len(by_stage.get("guards", [])) == 1 and "[forbidden-import]" in by_stage["guards"][0]
    assert any("the prepare worker died" in r for r in by_stage.get("crash", [])), table
    assert any("did not finish within 20 s in the prepare worker" in r
               for r in by_stage.get("timeout", [])), table
    tp = payload["throughput"]
    prep = tp["prepare"]
    assert prep["guard_rejected"] == 1 and prep["failed"] == 2 and prep["restarts"] >= 1
    # The three never took a verifier slot: the actors verified every other candidate, only.
    assert tp["verified"] == payload["new_trials"] - 3
    assert sum(row["accepted"] for row in table) >= 2, table
    verifier_pids = {w["pid"] for w in tp["workers"]}
    assert prep["workers"] == 2 and prep["prepared"] >= 6
    assert prep["worker_pids"] and not set(prep["worker_pids"]) & verifier_pids
    assert os.getpid() not in set(prep["worker_pids"]) | verifier_pids
    for key in ("prepare_s", "mean_prepare_s", "gpu_slot_waits", "gpu_slot_wait_s", "bypassed",
                "kernels_compiled"):
        assert key in prep, key
    assert prep["lookahead"] == 2 * 2 + 2  # verifying and ready per GPU slot, one per preparer
    assert tp["candidates_per_gpu_minute"] > 0 and "verifier_compiles" in tp


WARM_UP = """
import json, sys
from pathlib import Path
import tasks
from agent.plan import plan
from templates import get_template
from verifier.prepare import CompileTarget, Preparer, PrepareRequest
task = tasks.load(sys.argv[1])
template = get_template("softmax")
source = template.render(template.default, **plan(task).context)
preparer = Preparer("gpu", sys.argv[2], CompileTarget("cuda", 90, 32), sys.argv[3], "H100")
print(json.dumps(preparer.prepare(PrepareRequest(str(task.path), task.source, source, "bfloat16"))))
"""

# What the verifier does at its first call, on real tensors (on the CPU here, in compile-only
# mode since there is no GPU): a new import of the same source, every GPU shape of the task.
REAL_TENSORS = """
import json, sys
import torch
import tasks
from agent.plan import plan
from templates import get_template
from verifier.core import load_candidate
from verifier.prepare import CompileCounter, CompileTarget, _enter_compile_only
from pathlib import Path
task = tasks.load(sys.argv[1])
template = get_template("softmax")
source = template.render(template.default, **plan(task).context)
_enter_compile_only(CompileTarget("cuda", 90, 32))
counter = CompileCounter()
module = load_candidate(source, Path(sys.argv[2]))
for shape in task.shapes_for(False):
    task.apply_shape(shape)
    inputs = [x.to(torch.bfloat16) for x in task.make_inputs()]
    module.ModelNew()(*inputs)
print(json.dumps({"available": counter.available, **counter.counts(), "built": counter.built}))
"""


def test_warm_up_on_meta_tensors_compiles_exactly_what_real_tensors_need(tmp_path):
    """No GPU needed: compile for sm_90 from meta tensors in one process; in another, the same
    source launched on real tensors at the same shapes finds every kernel in Triton's cache."""
    import triton.backends

    if "nvidia" not in triton.backends.backends:
        pytest.skip("this Triton has no CUDA backend to compile for")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="", TRITON_CACHE_DIR=str(tmp_path / "tc"))

    def run(script: str, *args: str, cache: str = "tc") -> dict:
        proc = subprocess.run([sys.executable, "-c", script, SOFTMAX, *args], cwd=ROOT,
                              env={**env, "TRITON_CACHE_DIR": str(tmp_path / cache)},
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    prepared = run(WARM_UP, str(tmp_path / "cand"), str(tmp_path / "tc"))
    assert prepared["warmup_error"] is None and prepared["verdict"] is None, prepared
    assert prepared["shapes_warmed"] == 5
    # Five GPU shapes; four take the one-pass kernel (its constexprs vary with the width), one
    # the looped kernel: each specialization compiled once.
    assert prepared["compiled"] >= 2 and list((tmp_path / "tc").iterdir())
    again = run(REAL_TENSORS, str(tmp_path / "cand-elsewhere"))
    if not again["available"]:
        pytest.skip("this Triton has no compilation listener to count cache hits with")
    assert again["compiled"] == 0 and again["built"] == [], again  # all from the cache
    assert again["cache_hits"] == prepared["compiled"] + prepared["cache_hits"]
    # without the prepared cache every kernel is built here, and the counter names each build:
    # the kernel and the specialization (signature, alignment attributes) it was built for
    cold = run(REAL_TENSORS, str(tmp_path / "cand-cold"), cache="tc-cold")
    assert cold["compiled"] == again["cache_hits"] == len(cold["built"]), cold
    assert all(b.startswith("_softmax_") and "BLOCK=" in b for b in cold["built"]), cold["built"]


SPLIT_WARM_UP = """
import dataclasses, json, sys
from pathlib import Path
import tasks
from agent.plan import plan
from templates import get_template
from verifier.prepare import CompileTarget, Preparer, PrepareRequest
task = tasks.load(sys.argv[1])
template = get_template("softmax")
cfg = dataclasses.replace(template.default, row_split=4, row_ahead=sys.argv[4] == "ahead")
source = template.render(cfg, **plan(task).context)
preparer = Preparer("gpu", sys.argv[2], CompileTarget("cuda", 90, 32), sys.argv[3], "H100")
result = preparer.prepare(PrepareRequest(str(task.path), task.source, source, "float32"))
print(json.dumps({**result, "built": preparer.counter.built}))
"""


@pytest.mark.parametrize("form", ["row", "ahead"])
def test_warm_up_builds_the_split_row_kernel_a_gpu_launches(tmp_path, form):
    """A split row's programs wait on each other on a GPU (SYNC, one cooperative launch) and run
    in two phases without waiting in the interpreter. On the prepare stage's meta tensors the
    launcher builds the GPU's kernel (GPU round 330: it built the interpreter's, and the verifier
    built the GPU's itself), and asks no GPU for its residency."""
    import triton.backends

    if "nvidia" not in triton.backends.backends:
        pytest.skip("this Triton has no CUDA backend to compile for")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="", TRITON_CACHE_DIR=str(tmp_path / "tc"))
    proc = subprocess.run([sys.executable, "-c", SPLIT_WARM_UP, SOFTMAX, str(tmp_path / "cand"),
                           str(tmp_path / "tc"), form], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    prepared = json.loads(proc.stdout.strip().splitlines()[-1])
    assert prepared["warmup_error"] is None and prepared["shapes_warmed"] == 5, prepared
    split = [b for b in prepared["built"] if b.startswith(f"_softmax_split_{form}_kernel")]
    assert split and all("SYNC=True" in b and "PHASE=0" in b for b in split), prepared["built"]


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_on_a_gpu_the_verifier_loads_what_the_prepare_workers_compiled(kzoo_home, monkeypatch):
    """Every candidate goes through the prepare stage; the verifier actor then builds no kernel of
    a candidate itself: it finds each in the Triton cache the prepare workers filled."""
    import agent.pipeline as pipeline
    from verifier.prepare import CompileCounter

    if not CompileCounter().available:
        pytest.skip("this Triton has no compilation listener to count cache hits with")
    monkeypatch.setattr(pipeline.Pipeline, "_bypass", lambda self, slot: None)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(kzoo_home / "triton-cache"))  # starts empty
    result = _optimize(monkeypatch, {}, trials=4, workers=1, prepare_workers=2, seed=11,
                       promote=False)
    tp = result.payload["throughput"]
    prep, compiles = tp["prepare"], tp["verifier_compiles"]
    assert prep["warmup_errors"] == 0 and prep["shapes_warmed"] == 5 * prep["prepared"]  # 5 shapes
    assert prep["kernels_compiled"] >= 1 and prep["restarts"] == 0  # warm-up patches nothing
    # on failure, `built` names what the verifier built itself
    assert compiles["compiled"] == 0 and compiles["cache_hits"] >= 1, compiles
