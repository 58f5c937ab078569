"""Joining an existing Ray cluster: a real head started with `ray start --head` on loopback, then
`kzoo optimize --address` from outside the repository; the project's packages reach the workers
through Ray's runtime environment."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(600)
def test_optimize_joins_an_existing_cluster(tmp_path):
    ray_bin = Path(sys.executable).with_name("ray")
    if not ray_bin.exists():
        ray_bin = Path(shutil.which("ray") or "ray")
    port = _free_port()
    env = dict(os.environ, RAY_AUTH_MODE="token")  # the head enables token auth; present ours
    head = subprocess.Popen(
        [str(ray_bin), "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", "--block"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and head.poll() is None:  # the head's GCS comes up
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert head.poll() is None, "ray start --head exited"
        out = tmp_path / "out.json"
        proc = subprocess.run(
            [sys.executable, "-m", "agent", "optimize", str(ROOT / "tasks" / "softmax.py"),
             "--trials", "3", "--address", f"127.0.0.1:{port}", "--json", str(out)],
            cwd=ROOT, env=dict(env, KZOO_HOME=str(tmp_path / "home")),
            capture_output=True, text=True, timeout=400,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
        payload = json.loads(out.read_text())
        assert payload["ray"]["address"] == f"127.0.0.1:{port}"
        assert payload["trials"] == 3 and payload["best"]["correct"]
        assert len(payload["throughput"]["workers"]) == 2

        # With that cluster still up, no --address means a local instance of its own.
        alone = subprocess.run(
            [sys.executable, "-m", "agent", "optimize", str(ROOT / "tasks" / "softmax.py"),
             "--trials", "1", "--json", str(out)],
            cwd=ROOT, env=dict(env, KZOO_HOME=str(tmp_path / "home2")),
            capture_output=True, text=True, timeout=400,
        )
        assert alone.returncode == 0, alone.stdout + alone.stderr[-3000:]
        assert json.loads(out.read_text())["ray"]["address"] == "local"
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # the head and everything it started, nothing else
        head.wait(30)


def test_an_unreachable_cluster_is_a_clear_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "agent", "optimize", str(ROOT / "tasks" / "softmax.py"),
         "--trials", "1", "--address", f"127.0.0.1:{_free_port()}"],
        cwd=ROOT, env=dict(os.environ, KZOO_HOME=str(tmp_path), PYTHONPATH=str(ROOT)),
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1
    assert "kzoo: error: nothing answers at 127.0.0.1" in proc.stderr
    assert "Traceback" not in proc.stderr
