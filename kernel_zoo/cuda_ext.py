"""Build CUDA C++ kernels with nvcc and call them from Python: the one module a CUDA candidate may
import (the verifier's static guards allow exactly `load` from it).

    lib = cuda_ext.load(CUDA_SOURCE, {"softmax_rows_f32": ("tensor:float32", "tensor:float32",
                                                            "int64", "int64")})
    err = lib.softmax_rows_f32(x, y, n_rows, n_cols)   # raises CudaLaunchError on a CUDA error

The source defines each entry point as `extern "C" int NAME(<args>..., cudaStream_t stream)`, which
launches its kernels on `stream` and returns `(int)cudaGetLastError()`. The argument kinds are
`tensor` (a CUDA tensor, passed as its data pointer; `tensor:<dtype>` also checks the dtype and
`tensor:<dtype>:contiguous` the layout), `int64`, `int32`, `float32` and `float64`. The stream is
PyTorch's current stream on the tensors' device, taken here, never by the caller.

A source may `#include "kzoo_sm90.cuh"`, kernel-zoo's header of Hopper operations (wgmma,
mbarriers, TMA and its tensor maps, clusters: kernel_zoo/cuda_sm90.py), written beside it for
every build. Built with nvcc alone (no PyTorch headers, so the CPU build of torch can compile too):
`nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_XY,code=sm_XY`, XY the
capability of the current GPU, or `KZOO_CUDA_ARCH` (default 90) when there is none. Shared objects
are cached by sha256(source, the header's text, flags, nvcc version) under `$KZOO_HOME/cuda`,
written atomically. With no GPU, `load` still compiles (so compile errors show) and then raises
`CudaUnavailableError`.

Each call of an entry point is reported to the launch observer (the verifier counts it as a launch
of the module that called `load`), so "every call launches one of the candidate's own kernels"
holds for CUDA candidates as it does for Triton ones.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from kernel_zoo import _home, cuda_sm90

DEFAULT_ARCH = "90"  # compile target when no GPU is present: the H100/H200 the zoo is tuned on
NVCC_TIMEOUT_S = 300
NVCC_FLAGS = ("-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-lineinfo")
SOURCE_NAME = "kernel.cu"  # how nvcc's messages name the candidate's source

_ARG_KINDS = {"tensor", "int64", "int32", "float32", "float64"}
_CTYPES = {"int64": ctypes.c_int64, "int32": ctypes.c_int32, "float32": ctypes.c_float,
           "float64": ctypes.c_double}
_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
           "int64": torch.int64, "int32": torch.int32, "uint8": torch.uint8, "bool": torch.bool}
# Appended to every source (after the candidate's lines, so nvcc's line numbers stay the
# candidate's): lets Python name a CUDA error.
_ERROR_HELPER = """
extern "C" const char* kzoo_cuda_error_string(int code) {
    return cudaGetErrorString(static_cast<cudaError_t>(code));
}
"""
_NVCC_LINE = re.compile(r"^(?P<file>[^\s(]+)\((?P<line>\d+)\): (?P<what>.*)$")

_build_lock = threading.Lock()
_loaded: dict[Path, ctypes.CDLL] = {}
_launch_observer: Callable[[str], None] | None = None


class CudaBuildError(RuntimeError):
    """nvcc is missing or rejected the source; `errors` holds 'kernel.cu:LINE: message' lines."""

    def __init__(self, message: str, errors: list[str] | None = None):
        super().__init__(message)
        self.errors = errors or []


class CudaUnavailableError(RuntimeError):
    """The source compiled, but there is no CUDA device to run it on."""


class CudaLaunchError(RuntimeError):
    """An entry point returned a CUDA error."""


def set_launch_observer(observer: Callable[[str], None] | None) -> None:
    """Called with the owning module's name on every entry-point call (the verifier counts them)."""
    global _launch_observer
    _launch_observer = observer


# ---- nvcc ---------------------------------------------------------------------------------------
def find_nvcc() -> str | None:
    """nvcc from $CUDA_HOME/bin, then PATH, then /usr/local/cuda*/bin (newest first)."""
    candidates = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "bin" / "nvcc")
    on_path = shutil.which("nvcc")
    if on_path:
        candidates.append(Path(on_path))
    candidates += sorted(Path("/usr/local").glob("cuda*/bin/nvcc"), reverse=True)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    return out.strip().splitlines()[-1] if out.strip() else "unknown"


def target_arch() -> str:
    """'90' for sm_90: the current GPU's capability, else $KZOO_CUDA_ARCH, else DEFAULT_ARCH."""
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        return f"{major}{minor}"
    return os.environ.get("KZOO_CUDA_ARCH", DEFAULT_ARCH)


def cache_dir() -> Path:
    return _home.kzoo_home() / "cuda"


def _nvcc_errors(stderr: str, source_path: Path) -> list[str]:
    """nvcc's 'path(LINE): error: ...' lines as 'kernel.cu:LINE: error: ...' (one per error)."""
    errors = []
    for raw in stderr.splitlines():
        match = _NVCC_LINE.match(raw.strip())
        if match and "error" in match["what"]:
            name = SOURCE_NAME if Path(match["file"]).name == source_path.name else match["file"]
            errors.append(f"{name}:{match['line']}: {match['what']}")
    if not errors:
        errors = [line for line in stderr.splitlines() if "error" in line.lower()][:10]
    return errors


def compile_source(source: str, arch: str | None = None) -> Path:
    """The cached shared object for `source` built for sm_`arch`; builds it when missing."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise CudaBuildError("nvcc not found: set CUDA_HOME to a CUDA toolkit (or put nvcc on PATH)")
    arch = arch or target_arch()
    flags = NVCC_FLAGS + ("-gencode", f"arch=compute_{arch},code=sm_{arch}")
    full_source = source + _ERROR_HELPER
    header = cuda_sm90.header()
    key = hashlib.sha256("\0".join((full_source, header, " ".join(flags),
                                     nvcc_version(nvcc))).encode())
    folder = cache_dir()
    target = folder / f"kzoo_{key.hexdigest()[:24]}_sm{arch}.so"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix="build-") as tmp:
        cu = Path(tmp) / SOURCE_NAME
        cu.write_text(full_source)
        # kernel-zoo's own header of Hopper operations, the one a candidate may include: written
        # here for every build, so a source cannot bring its own under that name
        (Path(tmp) / cuda_sm90.HEADER_NAME).write_text(header)
        out = Path(tmp) / "out.so"
        try:
            proc = subprocess.run([nvcc, *flags, "-o", str(out), str(cu)], capture_output=True,
                                  text=True, timeout=NVCC_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            raise CudaBuildError(f"nvcc took over {NVCC_TIMEOUT_S} s on the source") from exc
        if proc.returncode != 0:
            errors = _nvcc_errors(proc.stderr, cu)
            raise CudaBuildError(f"nvcc failed for sm_{arch}:\n" + "\n".join(errors[:20]), errors)
        os.replace(out, target)  # atomic: a concurrent build of the same key writes the same bytes
    return target


# ---- calling ------------------------------------------------------------------------------------
def _parse_kind(kind: str) -> tuple[str, torch.dtype | None, bool]:
    parts = kind.split(":")
    if parts[0] not in _ARG_KINDS or (parts[0] != "tensor" and len(parts) > 1) or len(parts) > 3:
        raise ValueError(f"cuda_ext: unknown argument kind {kind!r}; known: {sorted(_ARG_KINDS)} "
                         "(tensor:<dtype>[:contiguous])")
    dtype = None
    if len(parts) > 1:
        if parts[1] not in _DTYPES:
            raise ValueError(f"cuda_ext: unknown dtype in {kind!r}; known: {sorted(_DTYPES)}")
        dtype = _DTYPES[parts[1]]
    if len(parts) == 3 and parts[2] != "contiguous":
        raise ValueError(f"cuda_ext: {kind!r}: the third field can only be 'contiguous'")
    return parts[0], dtype, len(parts) == 3


def _current_raw_stream(index: int) -> int:
    # The raw handle: torch.cuda.current_stream() builds a Stream object, ~10 us a call on an
    # H100 host, as long as a small kernel runs.
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw(index) if raw is not None else torch.cuda.current_stream(index).cuda_stream


class _EntryPoint:
    """One `extern "C"` function of a built library, called with tensors and numbers."""

    __slots__ = ("_name", "_owner", "_fn", "_kinds", "_error_string")

    def __init__(self, lib: ctypes.CDLL, name: str, kinds: tuple[str, ...], owner: str):
        fn = getattr(lib, name)
        parsed = tuple(_parse_kind(k) for k in kinds)
        fn.argtypes = [ctypes.c_void_p if k == "tensor" else _CTYPES[k]
                       for k, _, _ in parsed] + [ctypes.c_void_p]
        fn.restype = ctypes.c_int
        error_string = lib.kzoo_cuda_error_string
        error_string.argtypes = [ctypes.c_int]
        error_string.restype = ctypes.c_char_p
        for slot, value in (("_name", name), ("_owner", owner), ("_fn", fn), ("_kinds", parsed),
                            ("_error_string", error_string)):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an entry point is read-only")

    def __call__(self, *args: Any) -> None:
        if len(args) != len(self._kinds):
            raise TypeError(f"{self._name} takes {len(self._kinds)} arguments, got {len(args)}")
        device = None
        values = []
        for i, (arg, (kind, dtype, contiguous)) in enumerate(zip(args, self._kinds)):
            if kind != "tensor":
                values.append(arg)
                continue
            if not isinstance(arg, torch.Tensor) or arg.device.type != "cuda":
                raise TypeError(f"{self._name}: argument {i} must be a CUDA tensor, got "
                                f"{type(arg).__name__}"
                                + (f" on {arg.device}" if isinstance(arg, torch.Tensor) else ""))
            if device is None:
                device = arg.device
            elif arg.device != device:
                raise ValueError(f"{self._name}: argument {i} is on {arg.device}, argument 0 on "
                                 f"{device}")
            if dtype is not None and arg.dtype != dtype:
                raise TypeError(f"{self._name}: argument {i} must be {dtype}, got {arg.dtype}")
            if contiguous and not arg.is_contiguous():
                raise ValueError(f"{self._name}: argument {i} must be contiguous")
            values.append(arg.data_ptr())
        if device is None:
            raise TypeError(f"{self._name}: no tensor argument names the device to run on")
        index = device.index if device.index is not None else torch.cuda.current_device()
        stream = _current_raw_stream(index)
        if index != torch.cuda.current_device():
            with torch.cuda.device(device):
                code = self._fn(*values, stream)
        else:
            code = self._fn(*values, stream)
        if _launch_observer is not None:
            _launch_observer(self._owner)
        if code != 0:
            message = self._error_string(code).decode(errors="replace")
            raise CudaLaunchError(f"{self._name}: CUDA error {code}: {message}")


class Library:
    """The entry points of one built source, as attributes; read-only."""

    __slots__ = ("_entries",)

    def __init__(self, entries: dict[str, _EntryPoint]):
        object.__setattr__(self, "_entries", entries)

    def __getattr__(self, name: str) -> _EntryPoint:
        entries = object.__getattribute__(self, "_entries")
        if name not in entries:
            raise AttributeError(f"the library exports no entry point {name!r}; it has "
                                 f"{sorted(entries)}")
        return entries[name]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a built CUDA library is read-only")


def load(source: str, signatures: dict[str, tuple[str, ...]],
         arch_specific: bool = False) -> Library:
    """Build `source` (cached) and bind its entry points by `signatures` (name -> argument kinds,
    the trailing stream left out). Without a GPU: compiles, then raises CudaUnavailableError.
    `arch_specific` builds for the architecture-specific target (sm_90a on a Hopper GPU), which
    instructions such as `wgmma` and `setmaxnreg` need; such code runs on that capability only."""
    if not isinstance(source, str) or not isinstance(signatures, dict):
        raise TypeError("cuda_ext.load(source: str, signatures: dict[str, tuple[str, ...]])")
    for kinds in signatures.values():
        for kind in kinds:
            _parse_kind(kind)
    owner = sys._getframe(1).f_globals.get("__name__", "?")
    arch = target_arch() + ("a" if arch_specific else "")
    with _build_lock:
        path = compile_source(source, arch)
    if not torch.cuda.is_available():
        raise CudaUnavailableError(
            f"compiled OK for sm_{arch}; CUDA C++ candidates need a GPU to run (Triton's "
            "interpreter runs only Triton kernels)"
        )
    lib = _loaded.get(path)
    if lib is None:
        lib = _loaded[path] = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    entries = {}
    for name, kinds in signatures.items():
        if not hasattr(lib, name):
            raise CudaBuildError(f"the source exports no extern \"C\" function {name!r}")
        entries[name] = _EntryPoint(lib, name, tuple(kinds), owner)
    return Library(entries)
