"""Studies in a real PostgreSQL server that the test starts (initdb + pg_ctl in a temporary folder):
two drivers share one study and finish it together."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name)]
    return found[-1] if found and found[-1] else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed; .ci/run installs Debian's postgresql package")
        pytest.skip("PostgreSQL server binaries not found (apt-get install postgresql)")
    # Its own folder under /tmp: pytest's temporary root is private to us, not to postgres.
    root = Path(tempfile.mkdtemp(prefix="kzoo-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    # initdb refuses to run as root: run the server as the postgres user when we are root.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    port = _free_port()
    subprocess.run(as_user + [initdb, "-D", str(data), "-A", "trust", "-U", "kzoo", "--no-sync"],
                   check=True, capture_output=True)
    subprocess.run(as_user + [pg_ctl, "-D", str(data), "-w", "-l", str(root / "log"), "-o",
                              f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off",
                              "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://kzoo@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(as_user + [pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _count(url: str, study_prefix: str) -> dict[str, int]:
    import optuna

    summaries = optuna.get_all_study_summaries(storage=url)
    names = [s.study_name for s in summaries if s.study_name.startswith(study_prefix)]
    assert len(names) == 1, names
    study = optuna.load_study(study_name=names[0], storage=url)
    counts: dict[str, int] = {}
    for trial in study.trials:
        counts[trial.state.name] = counts.get(trial.state.name, 0) + 1
    drivers = {t.user_attrs.get("driver") for t in study.trials}
    counts["drivers"] = len(drivers - {None})
    return counts


@pytest.mark.timeout(900)
def test_two_drivers_share_a_postgresql_study(postgres_url, tmp_path):
    cmd = [sys.executable, "-m", "agent", "optimize", "tasks/softmax.py", "--trials", "5",
           "--workers", "1", "--storage", postgres_url]
    drivers = []
    for i in range(2):
        env = dict(os.environ, KZOO_HOME=str(tmp_path / f"home{i}"), PYTHONPATH=str(ROOT))
        drivers.append(subprocess.Popen(cmd + ["--json", str(tmp_path / f"out{i}.json")],
                                        cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True))
        time.sleep(2)  # let the first create the study; the second then loads it
    outputs = [d.communicate(timeout=600) for d in drivers]
    for d, (out, err) in zip(drivers, outputs):
        assert d.returncode == 0, out + err
    counts = _count(postgres_url, "softmax-")
    assert counts.get("COMPLETE", 0) >= 5  # finished together (each may add one in flight)
    assert counts.get("RUNNING", 0) == 0
    assert counts["drivers"] == 2  # both asked trials of the same study
