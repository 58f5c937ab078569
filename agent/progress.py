"""Progress on stderr while the loop runs, and the result table at the end."""

from __future__ import annotations

import sys
import time
from typing import Any

_BAR = 24


class Progress:
    """A one-line bar on a terminal; one line per finished trial when stderr is not a terminal."""

    def __init__(self, total: int, quiet: bool = False, stream=None):
        self.total = max(total, 1)
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.best: float | None = None
        self.last = ""

    def note(self, message: str) -> None:
        if not self.quiet:
            self._clear()
            print(f"kzoo: {message}", file=self.stream, flush=True)

    def update(self, done: int, value: float | None, verdict: dict | None) -> None:
        if value is not None and verdict and verdict.get("accepted"):
            self.best = value if self.best is None else max(self.best, value)
        if self.quiet:
            return
        filled = int(_BAR * min(done, self.total) / self.total)
        elapsed = time.monotonic() - self.started
        best = f"best {self.best:.3g}" if self.best is not None else "best -"
        status = ""
        if verdict is not None:
            status = "ok" if verdict.get("accepted") else f"rejected ({verdict.get('stage')})"
        line = (f"[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{self.total} trials  {best}  "
                f"{elapsed:5.0f}s  {status}")
        if self.tty:
            self._clear()
            self.stream.write(line)
            self.stream.flush()
            self.last = line
        elif verdict is not None:
            print(line, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.tty and self.last:
            self.stream.write("\r" + " " * len(self.last) + "\r")
            self.last = ""

    def close(self) -> None:
        if self.tty and self.last:
            self.stream.write("\n")
            self.last = ""


def _fmt(value: Any, spec: str) -> str:
    """Format a number, or a right-aligned '-' of the same width when there is none."""
    width = int(spec.split(".")[0] or 0)
    return f"{'-':>{width}}" if value is None else format(value, spec)


def render_table(rows: list[dict[str, Any]], limit: int = 10) -> str:
    """The best trials first: score, status, time, speedups, roofline fraction, params."""
    # the status column fits "x correctness", the longest stage's
    head = f"{'trial':>5}  {'score':>6}  {'status':<14} {'ms':>9} {'vs eager':>8} " \
           f"{'vs compile':>10} {'roofline':>8}  params / reason"
    lines = [head, "-" * len(head)]
    for row in rows[:limit]:
        status = "ok" if row["accepted"] else f"x {row['stage'] or ''}"[:14]
        params = " ".join(f"{k}={v}" for k, v in row["params"].items())
        detail = params if row["accepted"] else f"{params}  <- {row['reason'][:80]}"
        lines.append(
            f"{row['trial']:>5}  {_fmt(row['score'], '6.3f')}  {status:<14} "
            f"{_fmt(row['ms'], '9.4f')} {_fmt(row['speedup_vs_eager'], '8.2f')} "
            f"{_fmt(row['speedup_vs_compile'], '10.2f')} {_fmt(row['roofline_fraction'], '8.2f')}  "
            f"{detail}"
        )
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more trial(s) in the study")
    return "\n".join(lines)
