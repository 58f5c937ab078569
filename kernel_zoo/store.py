"""Zoo entries on disk: `<zoo>/<op>/<version>/` holds kernel sources and `manifest.json`.

An entry is immutable once it is renamed into place; a better kernel is a new version. Several zoos
are layered (the user zoo over the shipped one) and looked up in order. Loading a kernel checks the
source's sha256 against its manifest first, so a file edited after verification is never run.

This module imports only the standard library: the kernel modules it loads bring their own torch and
triton imports, at load time.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel_zoo import _home

SCHEMA = 1
MANIFEST = "manifest.json"
LOCK_FILE = ".lock"
ANY_SHAPE = "any"

_VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
# Names that become folder and file names: no separators, no dots at the start, nothing a shell
# or a module name would trip over.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")

# field -> the type it must have, for one config of a manifest
_CONFIG_FIELDS: dict[str, type] = {
    "arch": str,
    "dtype": str,
    "shape_bucket": str,
    "file": str,
    "template": str,
    "params": dict,
    "task": dict,
    "device": str,
    "verdict": dict,
    "environment": dict,
}
_TOP_FIELDS: dict[str, type] = {
    "schema": int,
    "op": str,
    "version": str,
    "created": str,
    "configs": list,
    "files": dict,
}
_LISTED_CONFIG_FIELDS = ("arch", "dtype", "shape_bucket", "template", "params", "device")


class ZooError(Exception):
    """A zoo entry is missing, malformed, or cannot be written."""


class ZooIntegrityError(ZooError):
    """A kernel file does not match the sha256 its manifest recorded when it was verified."""


# ---------------------------------------------------------------------------------------------
# versions, names, hashes


def parse_version(version: str) -> tuple[int, int, int]:
    """`"1.10.0"` -> `(1, 10, 0)`, so versions order semantically rather than as strings."""
    match = _VERSION_RE.match(version)
    if match is None:
        raise ZooError(f"not a MAJOR.MINOR.PATCH version: {version!r}")
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_version(name: str) -> bool:
    return _VERSION_RE.match(name) is not None


def _check_name(kind: str, value: object) -> str:
    if not isinstance(value, str) or _NAME_RE.match(value) is None:
        raise ZooError(f"{kind} must be a plain name of letters, digits, '_', '.', '-': {value!r}")
    return value


def kernel_file_name(op: str, arch: str, dtype: str, shape_bucket: str = ANY_SHAPE) -> str:
    """The file name promote gives a config's source."""
    parts = [op, arch, dtype] + ([] if shape_bucket == ANY_SHAPE else [shape_bucket])
    return "_".join(parts) + ".py"


def _config_key(config: dict[str, Any]) -> tuple[str, str, str]:
    return config["arch"], config["dtype"], config["shape_bucket"]


# ---------------------------------------------------------------------------------------------
# manifest validation


def _check_config(config: object, where: str, *, needs_file: bool) -> None:
    if not isinstance(config, dict):
        raise ZooError(f"{where}: must be an object, got {type(config).__name__}")
    for field, kind in _CONFIG_FIELDS.items():
        if field == "file" and not needs_file:
            continue
        if field not in config:
            raise ZooError(f"{where}: missing field {field!r}")
        if not isinstance(config[field], kind):
            raise ZooError(
                f"{where}: field {field!r} must be {kind.__name__}, "
                f"got {type(config[field]).__name__}"
            )
    for field in ("arch", "dtype", "shape_bucket"):
        try:
            _check_name(field, config[field])
        except ZooError as err:
            raise ZooError(f"{where}: {err}") from None
    for field in ("name", "sha256"):
        if not isinstance(config["task"].get(field), str):
            raise ZooError(f"{where}: field 'task' needs a string {field!r}")


def validate_manifest(manifest: object, source: str = MANIFEST) -> dict[str, Any]:
    """Check a schema-1 manifest; `source` names the file in the error. Returns the manifest."""
    if not isinstance(manifest, dict):
        raise ZooError(f"{source}: the manifest must be a JSON object")
    for field, kind in _TOP_FIELDS.items():
        if field not in manifest:
            raise ZooError(f"{source}: missing field {field!r}")
        value = manifest[field]
        # bool is an int subclass; `"schema": true` is still wrong
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ZooError(
                f"{source}: field {field!r} must be {kind.__name__}, got {type(value).__name__}"
            )
    if manifest["schema"] != SCHEMA:
        raise ZooError(f"{source}: schema {manifest['schema']} is not supported (want {SCHEMA})")
    try:
        _check_name("op", manifest["op"])
        parse_version(manifest["version"])
    except ZooError as err:
        raise ZooError(f"{source}: {err}") from None
    files = manifest["files"]
    for name, digest in files.items():
        if _NAME_RE.match(name) is None:
            raise ZooError(f"{source}: 'files' holds {name!r}, which is not a plain file name")
        if not isinstance(digest, str) or _SHA_RE.match(digest) is None:
            raise ZooError(f"{source}: 'files'[{name!r}] is not a sha256 hex digest")
    if not manifest["configs"]:
        raise ZooError(f"{source}: 'configs' is empty")
    seen: set[tuple[str, str, str]] = set()
    for index, config in enumerate(manifest["configs"]):
        where = f"{source}: configs[{index}]"
        _check_config(config, where, needs_file=True)
        if config["file"] not in files:
            raise ZooError(f"{where}: file {config['file']!r} has no sha256 in 'files'")
        key = _config_key(config)
        if key in seen:
            raise ZooError(f"{where}: a second config for arch/dtype/shape_bucket {key}")
        seen.add(key)
    return manifest


def read_manifest(entry_dir: Path) -> dict[str, Any]:
    """Load and validate `entry_dir/manifest.json`; it must agree with the folder it lives in."""
    path = Path(entry_dir) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ZooError(f"{path}: no manifest") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ZooError(f"{path}: cannot read the manifest: {err}") from None
    validate_manifest(manifest, str(path))
    if manifest["op"] != path.parent.parent.name or manifest["version"] != path.parent.name:
        raise ZooError(
            f"{path}: says {manifest['op']} {manifest['version']} but lives in "
            f"{path.parent.parent.name}/{path.parent.name}"
        )
    return manifest


# ---------------------------------------------------------------------------------------------
# walking a zoo


def _versions(op_dir: Path) -> list[str]:
    """Version folder names of one op, oldest first. Temp folders of promotions are skipped."""
    if not op_dir.is_dir():
        return []
    names = [p.name for p in op_dir.iterdir() if p.is_dir() and _is_version(p.name)]
    return sorted(names, key=parse_version)


def _newest_version(op_dir: Path) -> str | None:
    versions = _versions(op_dir)
    return versions[-1] if versions else None


def _default_layers() -> list[tuple[Path, str]]:
    return [(_home.user_zoo(), "user"), (_home.SHIPPED_ZOO, "shipped")]


def _layers(zoo_dirs: list[Path] | None) -> list[tuple[Path, str]]:
    if zoo_dirs is None:
        return _default_layers()
    known = {path.resolve(): layer for path, layer in _default_layers()}
    layers = []
    for zoo in zoo_dirs:
        zoo = Path(zoo).expanduser().resolve()
        layers.append((zoo, known.get(zoo, "custom")))
    return layers


def list_entries(zoo_dirs: list[Path] | None = None) -> list[dict[str, Any]]:
    """Every version of every op in the given zoos (default: user zoo, then shipped zoo).

    Sorted by op, then semantic version, then layer order. A zoo folder that does not exist holds
    nothing; a malformed manifest raises ZooError.
    """
    entries: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for layer_index, (zoo, layer) in enumerate(_layers(zoo_dirs)):
        if not zoo.is_dir():
            continue
        for op_dir in sorted(zoo.iterdir()):
            if not op_dir.is_dir() or op_dir.name.startswith((".", "_")):
                continue
            for version in _versions(op_dir):
                entry_dir = op_dir / version
                manifest = read_manifest(entry_dir)
                configs = [
                    {field: config[field] for field in _LISTED_CONFIG_FIELDS}
                    for config in manifest["configs"]
                ]
                entry = {
                    "op": manifest["op"],
                    "version": manifest["version"],
                    "zoo": str(zoo),
                    "layer": layer,
                    "created": manifest["created"],
                    "configs": configs,
                    "path": str(entry_dir),
                }
                entries.append(((op_dir.name, parse_version(version), layer_index), entry))
    entries.sort(key=lambda pair: pair[0])
    return [entry for _, entry in entries]


def find_config(
    op: str, arch: str, dtype: str, zoo_dirs: list[Path] | None = None
) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    """The config for (arch, dtype) in the first layer whose newest version of `op` has one.

    Only each layer's newest version is consulted: promote carries every other config forward, so
    an older version never knows something the newest does not (unless a config was replaced).
    Returns (manifest, config, entry_dir), or None when no layer fits.
    """
    for zoo, _layer in _layers(zoo_dirs):
        op_dir = zoo / op
        version = _newest_version(op_dir)
        if version is None:
            continue
        entry_dir = op_dir / version
        manifest = read_manifest(entry_dir)
        for config in manifest["configs"]:
            if _config_key(config) == (arch, dtype, ANY_SHAPE):
                return manifest, config, entry_dir
    return None


# ---------------------------------------------------------------------------------------------
# promotion


@contextlib.contextmanager
def _zoo_lock(zoo_dir: Path) -> Iterator[None]:
    """Exclusive lock over one zoo, across processes; released when the file is closed."""
    with open(zoo_dir / LOCK_FILE, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_durably(path: Path, data: bytes) -> None:
    # "xb": a name clash inside the fresh temp folder is a bug, never an overwrite
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def promote(op: str, source: str, record: dict[str, Any], *, zoo_dir: Path) -> dict[str, str]:
    """Add one verified kernel to `zoo_dir` as a new version of `op`; returns {op, version, path}.

    `record` is one manifest config without "file". The new version is the next minor of the
    newest one in this zoo ("1.0.0" for the first) and keeps every config of that newest version
    except the one with the same (arch, dtype, shape_bucket), whose place the new kernel takes.
    Carried files are re-checked against their sha256 and copied byte for byte.

    The version is built in a temp folder under `zoo_dir/op` and renamed into place, so readers
    never see half an entry. The whole read-previous/build/rename runs under an exclusive flock on
    `zoo_dir/.lock`: the new version's contents depend on the previous newest one, so two
    concurrent promotions must be serialized end to end, or one would drop the other's config.
    """
    _check_name("op", op)
    if "file" in record:
        raise ZooError("promote names the kernel file itself; the record must not carry 'file'")
    _check_config(record, f"record for {op}", needs_file=False)
    if not isinstance(source, str):
        raise ZooError(f"source must be str, got {type(source).__name__}")
    file_name = kernel_file_name(op, record["arch"], record["dtype"], record["shape_bucket"])
    try:
        compile(source, file_name, "exec", dont_inherit=True)
    except SyntaxError as err:
        raise ZooError(f"kernel source for {op} does not compile: {err}") from None
    source_bytes = source.encode("utf-8")
    new_config = {**record, "file": file_name}

    zoo_dir = Path(zoo_dir).expanduser().resolve()
    op_dir = zoo_dir / op
    op_dir.mkdir(parents=True, exist_ok=True)
    with _zoo_lock(zoo_dir):
        previous = _newest_version(op_dir)
        version = "1.0.0"
        kept: list[dict[str, Any]] = []
        previous_files: dict[str, str] = {}
        previous_dir = op_dir
        if previous is not None:
            major, minor, _ = parse_version(previous)
            version = f"{major}.{minor + 1}.0"
            previous_dir = op_dir / previous
            previous_manifest = read_manifest(previous_dir)
            previous_files = previous_manifest["files"]
            kept = [
                config
                for config in previous_manifest["configs"]
                if _config_key(config) != _config_key(new_config)
            ]
        if any(config["file"] == file_name for config in kept):
            raise ZooError(f"{previous_dir}: another config already uses file {file_name!r}")
        final_dir = op_dir / version
        if final_dir.exists():
            raise ZooError(f"{final_dir} exists but is not a valid newest version")

        tmp_dir = Path(tempfile.mkdtemp(prefix=f".tmp-{version}-", dir=op_dir))
        try:
            files: dict[str, str] = {}
            for config in kept:
                name = config["file"]
                if name in files:  # several configs may share one source file
                    continue
                data = _read_verified(previous_dir / name, previous_files[name])
                _write_durably(tmp_dir / name, data)
                files[name] = previous_files[name]
            _write_durably(tmp_dir / file_name, source_bytes)
            files[file_name] = sha256_bytes(source_bytes)
            manifest = {
                "schema": SCHEMA,
                "op": op,
                "version": version,
                "created": _now(),
                "configs": kept + [new_config],
                "files": files,
            }
            validate_manifest(manifest, f"new manifest for {op} {version}")
            text = json.dumps(manifest, indent=2) + "\n"
            _write_durably(tmp_dir / MANIFEST, text.encode("utf-8"))
            # mkdtemp makes the folder private; an entry is meant to be read by anyone
            tmp_dir.chmod(0o755)
            os.rename(tmp_dir, final_dir)
        except BaseException:
            shutil.rmtree(tmp_dir, ignore_errors=True)
            raise
        _fsync_dir(op_dir)
    return {"op": op, "version": version, "path": str(final_dir)}


# ---------------------------------------------------------------------------------------------
# loading


def _read_verified(path: Path, expected_sha: str) -> bytes:
    """The file's bytes, if and only if they hash to `expected_sha`."""
    shown = path.resolve()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ZooIntegrityError(
            f"{shown}: the kernel file is missing; the entry was modified after it was "
            "verified and will not be loaded"
        ) from None
    actual = sha256_bytes(data)
    if actual != expected_sha:
        raise ZooIntegrityError(
            f"{shown}: sha256 {actual} does not match the manifest's {expected_sha}; the entry "
            "was modified after it was verified and will not be loaded"
        )
    return data


class _VerifiedSourceLoader(importlib.machinery.SourceFileLoader):
    """Executes exactly the bytes whose hash was checked.

    A plain SourceFileLoader would re-read the file (a window for a swap after the check) and
    would trust a matching `__pycache__/*.pyc` without hashing it. The module still has a real
    `__file__`, so `inspect.getsource` (which Triton's @jit needs) reads the source from disk.
    """

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data = data

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self._data, self.path, "exec", dont_inherit=True)


_modules: dict[tuple[str, str], types.ModuleType] = {}
_modules_lock = threading.Lock()


def _module_name(path: Path, sha: str) -> str:
    stem = re.sub(r"\W", "_", path.stem)
    tag = sha256_bytes(f"{path}\0{sha}".encode())[:12]
    return f"_kzoo_entry_{stem}_{tag}"


def load_kernel(entry_dir: Path, config: dict[str, Any], manifest: dict[str, Any]) -> Any:
    """Import the source of one config after checking its sha256 against the manifest.

    Raises ZooIntegrityError when the file is missing or its bytes changed, and ZooError when
    a verified file fails to import. Modules are cached per (path, sha256); the file is re-hashed
    on every call, so a file edited after an earlier load is still refused.
    """
    name = config.get("file")
    expected = manifest.get("files", {}).get(name) if isinstance(name, str) else None
    if expected is None:
        raise ZooIntegrityError(
            f"{Path(entry_dir).resolve() / str(name)}: the manifest records no sha256 for this "
            "file; it will not be loaded"
        )
    path = (Path(entry_dir) / name).resolve()
    data = _read_verified(path, expected)
    key = (str(path), expected)
    with _modules_lock:
        module = _modules.get(key)
        if module is not None:
            return module
        module_name = _module_name(path, expected)
        loader = _VerifiedSourceLoader(module_name, str(path), data)
        spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        # registered before running: dataclasses and Triton look their module up by name
        sys.modules[module_name] = module
        try:
            loader.exec_module(module)
        except Exception as err:
            del sys.modules[module_name]
            raise ZooError(f"{path}: the kernel failed to import: {err!r}") from err
        _modules[key] = module
        return module


def clear_loaded() -> None:
    """Forget loaded kernel modules (tests; a long-lived process that wants a reload)."""
    with _modules_lock:
        for module in _modules.values():
            sys.modules.pop(module.__name__, None)
        _modules.clear()
