"""The task file a zoo config was verified against: `tasks/<name>.py`, read and hashed now.

Shared by `kzoo zoo verify` and `kzoo sweep`, which both re-run an entry's kernel against its task
as the task is today and warn when the file changed since the entry was verified.
Standard library only (the task module itself is loaded by the verifier, in its own process).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel_zoo import store

_TASK_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*$")


def tasks_dir() -> Path:
    """The folder of the project's task files (the `tasks` package)."""
    return Path(__file__).resolve().parents[1] / "tasks"


class TaskFileError(Exception):
    """The config's task file cannot be used; `path` is where it was looked for (or None)."""

    def __init__(self, reason: str, path: Path | None = None) -> None:
        super().__init__(reason)
        self.path = path


@dataclass(frozen=True)
class ConfigTask:
    path: Path
    source: str
    sha256: str
    warning: str | None  # set when the file changed since the entry was verified


def config_task(config: dict[str, Any], folder: Path | None = None) -> ConfigTask:
    """Read the task a manifest config names (`config["task"]["name"]`) from `folder` (default:
    the project's tasks/); raise TaskFileError when the name is not a file name or the file cannot
    be read."""
    task = config["task"]
    if _TASK_NAME_RE.match(task["name"]) is None:
        raise TaskFileError(f"task name {task['name']!r} is not a task file's name")
    path = (folder or tasks_dir()) / f"{task['name']}.py"
    try:
        data = path.read_bytes()
        source = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TaskFileError(f"cannot read the task {path}: {err}", path) from None
    sha = store.sha256_bytes(data)
    warning = None
    if sha != task["sha256"]:
        warning = (
            f"{path} has sha256 {sha}, the entry was verified against {task['sha256']}; "
            "checking against the task as it is now"
        )
    return ConfigTask(path, source, sha, warning)
