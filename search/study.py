"""Optuna studies: where they live, what they are called, how a run resumes and how trials score."""

from __future__ import annotations

import hashlib
import json
import os
import socket
from dataclasses import dataclass
from typing import Any

from kernel_zoo._home import ensure_home

DRIVER_ATTR = "driver"  # "host:pid" of the process that asked the trial


def default_storage() -> str:
    return f"sqlite:///{ensure_home() / 'studies.db'}"


def space_tag(space) -> str:
    """A short hash of a template's parameter space (names and choices, in order)."""
    text = json.dumps([[p.name, list(p.choices)] for p in space], default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def study_name(task_name: str, task_sha: str, template: str, dtype: str, device: str,
               space=None, bucket: str | None = None) -> str:
    """Named by task (and a hash of its source, so an edited task starts afresh), template, dtype
    and device; given the template's `space`, by a hash of it too: Optuna refuses a parameter
    whose choices differ from the ones the study's earlier trials drew from, so a template whose
    space changed (a new num_stages, say) starts a study of its own. A search over one shape
    bucket's shapes (a sweep tuning a bucket's kernel) scores differently: `@bucket` names it."""
    segment = template if space is None else f"{template}.{space_tag(space)}"
    if bucket and bucket != "any":
        segment += f"@{bucket}"
    return f"{task_name}-{task_sha[:10]}/{segment}/{dtype}/{device}"


def _storage(url: str):
    import optuna

    engine_kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        engine_kwargs = {"connect_args": {"timeout": 60}}
    return optuna.storages.RDBStorage(url, engine_kwargs=engine_kwargs)


class StorageError(Exception):
    """The study storage cannot be opened; the message says what to do."""


def make_sampler(seed: int | None = None):
    """TPE over the joint space. The loop asks a batch ahead of the verdicts (agent.pipeline); the
    constant liar scores the trials still running as bad ones, so a batch spreads out instead of
    sampling one promising point over and over."""
    import optuna

    return optuna.samplers.TPESampler(
        constant_liar=True, multivariate=True, n_startup_trials=8, seed=seed
    )


def connect_storage(storage_url: str):
    """The Optuna storage at `storage_url`; StorageError, saying what to do, when it cannot open."""
    try:
        return _storage(storage_url)
    except ModuleNotFoundError as exc:
        raise StorageError(
            f"study storage {storage_url!r} needs the Python package {exc.name!r}; for "
            "PostgreSQL install kernel-zoo[postgres] (psycopg 3)"
        ) from exc
    except Exception as exc:
        hint = ("" if "://" in storage_url else "; a storage is a URL: sqlite:///PATH/studies.db "
                "or postgresql://USER@HOST/DB")
        raise StorageError(
            f"cannot open study storage {storage_url!r}: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}{hint}"
        ) from exc


def open_study(name: str, storage_url: str, seed: int | None = None):
    """Create the study or load it when it exists: the same command resumes where it stopped."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = make_sampler(seed)
    storage = connect_storage(storage_url)
    return optuna.create_study(
        study_name=name, storage=storage, sampler=sampler,
        direction="maximize", load_if_exists=True,
    )


def this_driver() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reclaim_stale_trials(study) -> int:
    """Mark as failed the RUNNING trials whose driver process on this host is gone (a killed run).

    Trials of drivers on other hosts are left alone: they may be alive, sharing the study.
    """
    from optuna.trial import TrialState

    host = socket.gethostname()
    reclaimed = 0
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        owner = trial.user_attrs.get(DRIVER_ATTR, "")
        owner_host, _, pid = owner.rpartition(":")
        dead_here = owner_host == host and pid.isdigit() and not _pid_alive(int(pid))
        if dead_here or not owner:
            study._storage.set_trial_user_attr(trial._trial_id, "reclaimed", "driver died")
            study._storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
            reclaimed += 1
    return reclaimed


@dataclass(frozen=True)
class TrialRecord:
    number: int
    params: dict[str, Any]
    value: float | None
    verdict: dict[str, Any] | None


def score(verdict: dict[str, Any]) -> float:
    """What Optuna maximizes: the geometric-mean speedup over the best baseline when timed; in the
    interpreter (never timed) just correctness. Anything rejected scores 0."""
    if not verdict.get("accepted"):
        return 0.0
    speedup = verdict.get("speedup_vs_best_baseline")
    return float(speedup) if speedup else 1.0


def count_completed(study) -> int:
    """Completed trials, without reading their verdicts (the loop asks after every tell)."""
    from optuna.trial import TrialState

    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def completed_trials(study) -> list[TrialRecord]:
    from optuna.trial import TrialState

    records = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        verdict = t.user_attrs.get("verdict")
        records.append(
            TrialRecord(t.number, dict(t.params), t.value, json.loads(verdict) if verdict else None)
        )
    return records


def best_accepted(study) -> TrialRecord | None:
    accepted = [r for r in completed_trials(study) if r.verdict and r.verdict.get("accepted")]
    return max(accepted, key=lambda r: (r.value or 0.0, -r.number), default=None)
