"""Shared fixtures. With no CUDA device, kernels run in Triton's interpreter and `gpu` tests skip."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAS_CUDA = None


def _has_cuda() -> bool:
    global HAS_CUDA
    if HAS_CUDA is None:
        import torch

        HAS_CUDA = torch.cuda.is_available()
    return HAS_CUDA


if not _has_cuda():
    # Must precede any @triton.jit decoration in this process (candidates are imported by tests).
    os.environ["TRITON_INTERPRET"] = "1"


# Modules whose tests start Ray instances, CLI drivers and their verifier processes. Under
# pytest-xdist (`make test` runs two workers with --dist loadgroup) they share one worker, one after
# another, while the other worker takes the in-process tests: two loops at once on a 2-core CI
# machine would only slow each other down.
LOOP_MODULES = {"test_cli", "test_cluster", "test_compose", "test_llm", "test_loop_faults",
                "test_pipeline", "test_postgres", "test_scale", "test_sweep", "test_zoo"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__ in LOOP_MODULES:
            item.add_marker(pytest.mark.xdist_group("loop"))
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run on the device machine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def kzoo_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "kzoo-home"
    monkeypatch.setenv("KZOO_HOME", str(home))
    return home


def run_kzoo(*args: str, env_home: Path, timeout: float = 600, cwd: Path = ROOT):
    """Run the CLI as a user would, in a subprocess; returns CompletedProcess."""
    env = dict(os.environ, KZOO_HOME=str(env_home), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "agent", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout,
    )


def signal_when(proc: subprocess.Popen, ready, sig: int, within_s: float = 300,
                end_s: float = 120) -> str | None:
    """Wait (polling every 0.2 s, at most `within_s`) until `ready()`, send `sig` to `proc` alone,
    wait up to `end_s` for it to end and return its stderr (None where it is not piped). Fails
    if `proc` ended before the signal. Then SIGKILLs `proc`'s process group (it was started with
    `start_new_session=True`): Ray's agents outlive a killed driver there, and the test leaves
    nothing running behind it."""
    deadline = time.monotonic() + within_s
    try:
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.2)
        assert proc.poll() is None, f"it ended (exit {proc.returncode}) before the signal"
        os.kill(proc.pid, sig)
        return proc.communicate(timeout=end_s)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def trial_states(db: Path) -> list[tuple[str, int, str]]:
    """(study name, trial number, state) of every trial in a study store that a run may be
    writing right now; [] while the file exists without Optuna's tables (the run creates them
    just after the file)."""
    import sqlite3

    if not Path(db).exists():
        return []
    with sqlite3.connect(db, timeout=60) as conn:  # a run writing: wait out its lock
        try:
            return conn.execute(
                "SELECT s.study_name, t.number, t.state FROM trials t JOIN studies s "
                "ON t.study_id = s.study_id").fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise


def copy_entry(src_zoo: Path, op: str, version: str, dst_zoo: Path) -> Path:
    """Copy one entry byte for byte into another zoo folder, with the blobs it names when it is
    schema 2 or 3 (its folder holds only its manifest); returns the copy's folder."""
    import shutil

    from kernel_zoo import store

    src, dst = Path(src_zoo) / op / version, Path(dst_zoo) / op / version
    shutil.copytree(src, dst)
    manifest = store.read_manifest(src)
    if manifest["schema"] != 1:
        (dst.parent / store.BLOBS).mkdir(exist_ok=True)
        for name in manifest["files"]:
            blob = store.entry_file_path(src, manifest, name)
            shutil.copyfile(blob, dst.parent / store.BLOBS / blob.name)
    return dst


def of_this_run(proc: Path, home: Path) -> bool:
    """Whether a /proc entry belongs to the run under KZOO_HOME=home (Ray's workers inherit the
    driver's environment): other runs on the machine have actors too, not a test's to kill."""
    try:
        return f"KZOO_HOME={home}\0" in (proc / "environ").read_bytes().decode(errors="replace")
    except OSError:
        return False


@pytest.fixture
def isolated_zoo(tmp_path, monkeypatch):
    """Default zoo layers point into tmp_path: the real user and shipped zoos are never touched."""
    from kernel_zoo import _home, ops

    monkeypatch.setenv("KZOO_HOME", str(tmp_path / "kzoo_home"))
    monkeypatch.setattr(_home, "SHIPPED_ZOO", tmp_path / "shipped_zoo")
    ops.clear_cache()
    yield
    ops.clear_cache()


def build_for_hopper(script: str, jobs: list, cache: Path, timeout: float = 900) -> list[dict]:
    """Runs `script` (python -c) in a fresh process without TRITON_INTERPRET, as the Gluon kernels'
    sm_90a builds need (bench/probe_gluon_gemm.py's _CompileOnlyDriver stands in for a GPU): its
    argv is the jobs as JSON and a cache folder; returns the JSON objects it printed, one a line."""
    import json
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", script, json.dumps(jobs), str(cache)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def attention_reference(q, k, v, causal=False, scale=None, mod=None, cap=None, window=None):
    """float64 attention of (B, Hq, Lq, D) q over (B, Hkv, Lk, D) k and v, on their device: the
    score modifier on the scaled score, the causal (top-left) and window masks after it."""
    import torch

    from templates.attention import alibi_slopes
    q, k, v = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
    kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
    if mod == "relative_position":
        s = s + (q_idx - kv_idx)
    elif mod == "alibi":
        slopes = torch.tensor(alibi_slopes(q.shape[1]), dtype=torch.float64,
                              device=q.device)[:, None, None]
        s = s + slopes * (kv_idx - q_idx)
    elif mod == "softcap":
        s = cap * torch.tanh(s / cap)
    if causal or mod == "sliding_window":
        s = s.masked_fill(kv_idx > q_idx, float("-inf"))
    if mod == "sliding_window":
        s = s.masked_fill(kv_idx <= q_idx - window, float("-inf"))
    return torch.softmax(s, -1) @ v


def assert_model_new_matches_float64(task, module) -> None:
    """A rendered candidate's ModelNew, the task's Model's state loaded, within 1e-5 of the Model
    in float64 on the task's inputs at its current shape (seed 0)."""
    import torch

    torch.manual_seed(0)
    model, (x,) = task.make_model().float(), task.make_inputs()
    new = module.ModelNew(*task.module.get_init_inputs())
    new.load_state_dict(model.state_dict(), strict=False, assign=True)
    ref = model.double()(x.double())
    assert (new(x.float()).double() - ref).abs().max().item() < 1e-5
