"""Where a command's `--json` result goes: a file written whole or not at all, a stream written in
place, or '-' (stdout, kept for the JSON alone while the command runs)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from kernel_zoo._home import probe_writable

# the stream '-' writes to while `stdout_for_json` holds stdout; None: sys.stdout
_json_stream = None


class OutputError(Exception):
    """A --json target that cannot be written: a usage error, said before any work."""


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
            raise OutputError(f"--json {target}: cannot write there (permission denied)")
        return
    check_output_file("--json", target, "out.json", "; name a file in a writable folder, or '-' "
                      "for stdout")


def check_output_folder(flag: str, target: str) -> None:
    """A folder `flag` will write into: not a file, made when missing, and writable."""
    path = Path(target)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{flag} {target}: is a file; name a folder (it is made when missing)")
    try:
        probe_writable(path)
    except OSError as exc:
        raise OutputError(f"{flag} {target}: cannot write there ({exc.strerror or exc})") from None


def check_output_file(flag: str, target: str, example: str, hint: str = "") -> None:
    """A file `flag` will write: not a folder, its folder made, and a scratch file created and
    removed there (the file itself is left as it is)."""
    path = Path(target)
    if path.is_dir():
        raise OutputError(f"{flag} {target}: is a folder; name a file in it "
                          f"(e.g. {path / example})")
    try:
        probe_writable(path.parent)
    except OSError as exc:
        raise OutputError(f"{flag} {target}: cannot write there ({exc.strerror or exc}){hint}") \
            from None


def write_json(target: str, payload) -> None:
    text = json.dumps(payload, indent=2, default=str) + "\n"
    if target == "-":
        stream = _json_stream or sys.stdout
        stream.write(text)
        stream.flush()
        return
    try:
        if _is_stream(target):
            with open(target, "w") as stream:
                stream.write(text)
            return
        # whole or not at all: a reader never sees half an object. Through a link, the file it
        # points to is replaced, so the link stays one.
        path = Path(os.path.realpath(target))
        scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            scratch.write_text(text)
            os.replace(scratch, path)
        finally:
            scratch.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"--json {target}: cannot write there ({exc.strerror or exc})") from None


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
