"""Where a command's `--json` result goes: a file written whole or not at all, a stream written in
place, or '-' (stdout, kept for the JSON alone while the command runs). A command that ends in an
error instead says it with `say_error`, and kzoo's main() writes `error_payload` there: a script
reading the target gets {"error", "exit_code", "command"} rather than nothing."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from kernel_zoo._home import probe_writable

# the stream '-' writes to while `stdout_for_json` holds stdout; None: sys.stdout
_json_stream = None
# the message of the `kzoo: error:` line the command said (None: none, or one the target must not
# get), and whether a result went to the target already; main() starts each command with
# `forget_errors()`
_said_error: str | None = None
_json_written = False


class OutputError(Exception):
    """A --json (or other output flag's) target that cannot be written: a usage error, said
    before any work. `flag` names the flag whose target it is."""

    def __init__(self, message: str, flag: str | None = None):
        super().__init__(message)
        self.flag = flag


def forget_errors() -> None:
    global _said_error, _json_written
    _said_error, _json_written = None, False


def say_error(message: str, *, to_json: bool = True) -> None:
    """Say a failed command's one line, `kzoo: error: MESSAGE`, on stderr, and keep MESSAGE for
    `error_payload`. to_json=False: the error is the --json target itself, which gets nothing."""
    global _said_error
    print(f"kzoo: error: {message}", file=sys.stderr)
    _said_error = message if to_json else None


def error_payload(command: str, exit_code: int) -> dict | None:
    """What the --json target gets when the command ended (exit_code, not 0) in an error it said
    with `say_error` and wrote no result; None otherwise (a verdict such as verify's rejection
    is a result: it is written as it is)."""
    if not exit_code or _said_error is None or _json_written:
        return None
    return {"error": _said_error, "exit_code": exit_code, "command": command}


def _is_stream(target: str) -> bool:
    """A FIFO, a terminal, /dev/stdout or /dev/fd/N (a shell's >(...)): written in place. Renaming
    a scratch file over one would replace the device node or link with a regular file, and the
    reader would get nothing."""
    try:
        mode = os.stat(target).st_mode  # through links: /dev/fd/63 is a pipe
    except OSError:
        return False
    return target.startswith(("/dev/", "/proc/")) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_json_target(target: str | None) -> None:
    """Fail now, not after a search, when the --json target cannot be written: a file's folder
    is made and a scratch file created and removed there; a stream must be writable."""
    if not target or target == "-":
        return
    if _is_stream(target):
        if not os.access(target, os.W_OK):
            raise OutputError(f"--json {target}: cannot write there (permission denied)",
                              "--json")
        return
    check_output_file("--json", target, "out.json", "; name a file in a writable folder, or '-' "
                      "for stdout")


def check_output_folder(flag: str, target: str) -> None:
    """A folder `flag` will write into: not a file, made when missing, and writable."""
    path = Path(target)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{flag} {target}: is a file; name a folder (it is made when missing)",
                          flag)
    try:
        probe_writable(path)
    except OSError as exc:
        raise OutputError(f"{flag} {target}: cannot write there ({exc.strerror or exc})",
                          flag) from None


def check_output_file(flag: str, target: str, example: str, hint: str = "") -> None:
    """A file `flag` will write: not a folder, its folder made, and a scratch file created and
    removed there (the file itself is left as it is)."""
    path = Path(target)
    if path.is_dir():
        raise OutputError(f"{flag} {target}: is a folder; name a file in it "
                          f"(e.g. {path / example})", flag)
    try:
        probe_writable(path.parent)
    except OSError as exc:
        raise OutputError(f"{flag} {target}: cannot write there ({exc.strerror or exc}){hint}",
                          flag) from None


def strict(value):
    """`value` with every non-finite float as the string "inf", "-inf" or "nan": strict JSON has
    no literal for them, and Python's Infinity and NaN stop jq and most parsers (an error of inf,
    a mismatch's value)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(item) for item in value]
    return value


def write_json(target: str, payload) -> None:
    """`payload` as strict JSON (non-finite numbers as strings: `strict`) to `target`."""
    global _json_written
    text = json.dumps(strict(payload), indent=2, default=str, allow_nan=False) + "\n"
    if target == "-":
        stream = _json_stream or sys.stdout
        stream.write(text)
        stream.flush()
        _json_written = True
        return
    try:
        if _is_stream(target):
            with open(target, "w") as stream:
                stream.write(text)
            _json_written = True
            return
        # whole or not at all: a reader never sees half an object. Through a link, the file it
        # points to is replaced, so the link stays one.
        path = Path(os.path.realpath(target))
        scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            scratch.write_text(text)
            os.replace(scratch, path)
            _json_written = True
        finally:
            scratch.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"--json {target}: cannot write there ({exc.strerror or exc})",
                          "--json") from None


@contextlib.contextmanager
def stdout_for_json(active: bool) -> Iterator[None]:
    """With `active` ('--json -'), stdout carries the JSON alone: whatever else the command, the
    task's own code or a child process prints goes to stderr meanwhile, and `write_json('-')`
    writes to the real stdout. A stdout without a file descriptor (a test's capture) is held at
    the Python level only."""
    global _json_stream
    if not active:
        yield
        return
    real = sys.stdout
    real.flush()
    try:
        fd = real.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None
    saved = None
    if fd is not None:
        saved = os.dup(fd)
        os.dup2(sys.stderr.fileno(), fd)  # spawned children inherit the descriptor
        _json_stream = open(saved, "w", closefd=False)
    else:
        _json_stream = real
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = real
        _json_stream.flush()
        if saved is not None:
            sys.stderr.flush()
            os.dup2(saved, fd)
            _json_stream.close()
            os.close(saved)
        _json_stream = None
