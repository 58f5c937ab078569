"""The audit trail of LLM runs: $KZOO_HOME/runs/<id>/, one folder per `optimize --llm`.

    run.json                      settings, task, status, tokens, every sample's outcome, the best
    round-01/prompt.json          the messages sent (system and user)
    round-01/prompt.md            the same, readable
    round-01/sample-1/answer.md   the model's raw answer
    round-01/sample-1/reply.json  tokens, attempts, latency, finish reason (or why it failed)
    round-01/sample-1/candidate.py              a module answer, as verified
    round-01/sample-1/template.py.jinja, space.json, trials.json   a template answer and its trials
    round-01/sample-1/verdict.json              the verdict(s)
    round-01/feedback.md          what the next round was told about this one

run.json is rewritten (atomically) after every step, so a run killed half-way is still readable.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
from pathlib import Path
from typing import Any

from kernel_zoo._home import kzoo_home


class RunNotFound(Exception):
    """No run folder matches; the message lists what there is."""


def runs_dir() -> Path:
    return kzoo_home() / "runs"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, default=str) + "\n"


class RunLog:
    """Writes one run's folder as the run goes."""

    def __init__(self, task_name: str, meta: dict[str, Any]):
        now = _dt.datetime.now(_dt.timezone.utc)
        safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in task_name)[:40]
        self.id = f"{now:%Y%m%d-%H%M%S}-{safe}-{secrets.token_hex(3)}"
        self.path = runs_dir() / self.id
        self.path.mkdir(parents=True, exist_ok=False)
        self.data: dict[str, Any] = {
            "id": self.id, "created": now.isoformat(timespec="seconds"), "status": "running",
            "stop_reason": None, **meta, "tokens": {}, "rounds": [], "best": None,
        }
        self.save()

    def save(self) -> None:
        _write(self.path / "run.json", _json(self.data))

    def round_dir(self, round_index: int) -> Path:
        return self.path / f"round-{round_index:02d}"

    def sample_dir(self, round_index: int, sample: int) -> Path:
        return self.round_dir(round_index) / f"sample-{sample}"

    def prompt(self, round_index: int, messages: list[dict[str, str]]) -> None:
        folder = self.round_dir(round_index)
        _write(folder / "prompt.json", _json(messages))
        _write(folder / "prompt.md", "\n\n".join(
            f"<!-- {m['role']} -->\n{m['content']}" for m in messages))
        self.data["rounds"].append({"round": round_index, "samples": []})
        self.save()

    def answer(self, round_index: int, sample: int, text: str | None,
               reply: dict[str, Any]) -> None:
        folder = self.sample_dir(round_index, sample)
        if text is not None:
            _write(folder / "answer.md", text)
        _write(folder / "reply.json", _json(reply))

    def outcome(self, round_index: int, record: dict[str, Any]) -> None:
        """A sample's parsed answer and verdicts, in its folder and summarized in run.json."""
        folder = self.sample_dir(round_index, record["sample"])
        kind = record["kind"]
        if kind == "module":
            _write(folder / "candidate.py", record["source"])
            _write(folder / "verdict.json", _json(record["verdict"]))
        elif kind == "template":
            _write(folder / "template.py.jinja", record["template_source"])
            _write(folder / "space.json", _json(record["space"]))
            _write(folder / "trials.json", _json(
                [{k: v for k, v in t.items() if k != "source"} for t in record["trials"]]))
            _write(folder / "verdict.json", _json([t["verdict"] for t in record["trials"]]))
        else:
            _write(folder / "verdict.json", _json({"accepted": False, "stage": kind,
                                                   "reasons": [record["reason"]]}))
        accepted = [t for t in record.get("trials", []) if t["verdict"].get("accepted")]
        summary = {
            "sample": record["sample"], "kind": kind, "name": record.get("name"),
            "accepted": bool(record.get("verdict", {}).get("accepted")) if kind == "module"
            else bool(accepted),
            "score": record.get("best_score"),
            "stage": (record.get("verdict") or {}).get("stage") if kind == "module" else None,
            "exploits": (record.get("verdict") or {}).get("exploits") if kind == "module" else None,
            "reason": record.get("reason"),
            "tokens": record.get("tokens"),
        }
        if kind == "template":
            summary.update(study=record["study"], trials=len(record["trials"]),
                           accepted_trials=len(accepted))
        self.data["rounds"][-1]["samples"].append(summary)
        self.save()

    def feedback(self, round_index: int, lines: list[str]) -> None:
        _write(self.round_dir(round_index) / "feedback.md", "\n".join(lines) + "\n")

    def finish(self, status: str, stop_reason: str | None, tokens: dict[str, Any],
               best: dict[str, Any] | None) -> None:
        self.data.update(status=status, stop_reason=stop_reason, tokens=tokens, best=best,
                         finished=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
        self.save()


def list_runs() -> list[dict[str, Any]]:
    """Every run's run.json, oldest first; an unreadable one is listed with its error."""
    root = runs_dir()
    if not root.is_dir():
        return []
    runs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            run = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as exc:
            runs.append({"id": folder.name, "status": f"unreadable: {exc}"})
            continue
        if not isinstance(run, dict) or not isinstance(run.get("id"), str):
            # valid JSON of another shape (a file cut and rewritten by hand, say)
            runs.append({"id": folder.name, "status": "unreadable: run.json is not a run's "
                         "record (no object with an id)"})
            continue
        runs.append(run)
    return runs


def find_run(run_id: str) -> dict[str, Any]:
    """The run whose id is `run_id` or starts with it (a unique prefix)."""
    if not run_id:
        raise RunNotFound("give a run's id, or the start of one: `kzoo runs list` shows them")
    runs = list_runs()
    exact = [r for r in runs if r["id"] == run_id]
    matches = exact or [r for r in runs if r["id"].startswith(run_id)]
    if len(matches) == 1:
        return matches[0]
    where = runs_dir()
    if not matches:
        known = ", ".join(r["id"] for r in runs[-5:]) or "none"
        raise RunNotFound(f"no run {run_id!r} under {where} (latest: {known}); "
                          "`kzoo runs list` shows them all")
    raise RunNotFound(f"{run_id!r} matches {len(matches)} runs under {where}; give more of the id")
