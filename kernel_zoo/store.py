"""Zoo entries on disk: `<zoo>/<op>/<version>/manifest.json`, and each kernel source once per op,
xz-compressed, as `<zoo>/<op>/blobs/<sha256>.py.xz` (schema 3). Schema-2 entries, whose blobs are
the plain `<sha256>.py`, and schema-1 entries, which hold their sources in their own folder, are
still read, and `migrate` converts both.

An entry is immutable once it is renamed into place; a better kernel is a new version. A blob is
named by the sha256 of the source it holds (uncompressed, as the manifest records it) and shared
by every entry that lists it; nothing rewrites one. Only `migrate` deletes blobs: a plain schema-2
blob, once every entry of its op is schema 3 and its compressed twin verifies. Several zoos are
layered (the user zoo over the shipped one) and looked up in order. Loading a kernel checks the
source's sha256 against its manifest first, so a file edited after verification is never run.

This module imports only the standard library: the kernel modules it loads bring their own torch and
triton imports, at load time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import linecache
import lzma
import math
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel_zoo import _home, buckets

SCHEMA = 3  # what promote, import_entry and migrate write
# what readers accept: 1 holds files in the entry folder, 2 in blobs/ as they are, 3 in blobs/ xz'd
READ_SCHEMAS = (1, 2, 3)
MANIFEST = "manifest.json"
BLOBS = "blobs"  # <zoo>/<op>/blobs/<sha256>.py.xz; not a version name, so never taken for an entry
PLAIN_BLOB_SUFFIX = ".py"  # schema 2's blobs
BLOB_SUFFIX = ".py.xz"  # schema 3's
# The most bytes one blob may hold or decompress to: a kernel source is under 1 MB, and a blob
# that claims more (an xz stream can expand a thousandfold) is refused before it fills memory.
MAX_SOURCE_BYTES = 64 << 20
# liblzma allocates the dictionary an xz header names; a reader allows one as large as any
# source, no more (a written blob's dictionary is cut to its source's size, `_compress_source`)
_XZ_MEMLIMIT = MAX_SOURCE_BYTES + (16 << 20)
LOCK_FILE = ".lock"
ANY_SHAPE = buckets.ANY

_VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
# Names that become folder and file names: no separators, no dots at the start, nothing a shell
# or a module name would trip over.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_PLAIN_BLOB_RE = re.compile(r"^([0-9a-f]{64})\.py$")
# a CUDA compute capability as torch reports it, with the suffix Triton and nvcc use for sm_90a
_ARCH_RE = re.compile(r"^sm_[0-9]{2,3}[a-z]?$")

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
# the dtypes a kernel is verified and dispatched for (tasks.loader takes them from here)
DTYPES = ("float32", "bfloat16", "float16")
_LISTED_CONFIG_FIELDS = ("arch", "dtype", "shape_bucket", "template", "params", "device")
# what a result was obtained on; a value may be null where it could not be read (no nvidia-smi)
_ENVIRONMENT_FIELDS = ("gpu", "driver", "cuda", "torch", "triton")
# names an entry folder holds besides its kernel files
_RESERVED_FILES = (MANIFEST, LOCK_FILE)


class ZooError(Exception):
    """A zoo entry is missing, malformed, or cannot be written."""


class ZooIntegrityError(ZooError):
    """A kernel file does not match the sha256 its manifest recorded when it was verified."""


class ZooConflictError(ZooError):
    """A zoo already holds this op and version with other content; entries are never replaced."""


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


def _config_key(config: dict[str, Any]) -> tuple[str, str, str, str]:
    """A config's place in a manifest: one per GPU arch, dtype, shape bucket and the GPU model it
    was tuned on (an H100's and an H200's configs of one sm_90 bucket live side by side)."""
    return config["arch"], config["dtype"], config["shape_bucket"], config["device"]


def device_slug(device: str) -> str:
    """The GPU's name as a file-name part: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") or "gpu"


# ---------------------------------------------------------------------------------------------
# manifest validation


def _check_config(config: object, where: str, *, op: str, needs_file: bool) -> None:
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
    if config["dtype"] not in DTYPES:
        raise ZooError(f"{where}: dtype must be one of {', '.join(DTYPES)}, "
                       f"got {config['dtype']!r}")
    if _ARCH_RE.match(config["arch"]) is None:
        raise ZooError(f"{where}: arch must look like 'sm_90', got {config['arch']!r}")
    for field in ("name", "sha256"):
        if not isinstance(config["task"].get(field), str):
            raise ZooError(f"{where}: field 'task' needs a string {field!r}")
    if _SHA_RE.match(config["task"]["sha256"]) is None:
        raise ZooError(f"{where}: 'task'['sha256'] is not a sha256 hex digest")
    allowed = buckets.bucket_names(op)
    if config["shape_bucket"] not in allowed:
        raise ZooError(
            f"{where}: shape_bucket {config['shape_bucket']!r} is not one of {op}'s buckets: "
            + ", ".join(allowed)
        )
    # the zoo holds verified kernels only; a rejected verdict means the entry was never checked
    if config["verdict"].get("accepted") is not True:
        raise ZooError(f"{where}: 'verdict'['accepted'] must be true")
    environment = config["environment"]
    for field in _ENVIRONMENT_FIELDS:
        if field not in environment:
            raise ZooError(f"{where}: 'environment' needs {field!r} (null when unknown)")
        if not isinstance(environment[field], (str, type(None))):
            raise ZooError(f"{where}: 'environment'[{field!r}] must be a string or null")


def _non_finite(value: Any, where: str = "") -> str | None:
    """Where in `value` (JSON data) a NaN or infinity is, as 'configs[0].verdict.ms'; None if
    nowhere."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "the value"
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        found = _non_finite(item, f"{where}[{key}]" if isinstance(key, int) else
                            f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def validate_manifest(manifest: object, source: str = MANIFEST) -> dict[str, Any]:
    """Check a manifest of any schema in READ_SCHEMAS (their fields are the same; only where and
    how the files are stored differs); `source` names the file in the error. Returns it."""
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
    where = _non_finite(manifest)
    if where:  # json.loads takes NaN and Infinity; a verdict holding one compares as nothing
        raise ZooError(f"{source}: {where} is not a finite number")
    if manifest["schema"] not in READ_SCHEMAS:
        *earlier, last = READ_SCHEMAS
        wanted = ", ".join(str(schema) for schema in earlier) + f" or {last}"
        raise ZooError(f"{source}: schema {manifest['schema']} is not supported (want {wanted})")
    try:
        _check_name("op", manifest["op"])
        parse_version(manifest["version"])
    except ZooError as err:
        raise ZooError(f"{source}: {err}") from None
    try:
        created = datetime.datetime.fromisoformat(manifest["created"])
    except ValueError:
        created = None
    if created is None or created.tzinfo is None:
        raise ZooError(
            f"{source}: 'created' must be an ISO 8601 time with a UTC offset, "
            f"got {manifest['created']!r}"
        )
    files = manifest["files"]
    for name, digest in files.items():
        if _NAME_RE.match(name) is None or name in _RESERVED_FILES:
            raise ZooError(f"{source}: 'files' holds {name!r}, which is not a plain file name")
        if not isinstance(digest, str) or _SHA_RE.match(digest) is None:
            raise ZooError(f"{source}: 'files'[{name!r}] is not a sha256 hex digest")
    if not manifest["configs"]:
        raise ZooError(f"{source}: 'configs' is empty")
    seen: set[tuple[str, str, str, str]] = set()
    for index, config in enumerate(manifest["configs"]):
        where = f"{source}: configs[{index}]"
        _check_config(config, where, op=manifest["op"], needs_file=True)
        if config["file"] not in files:
            raise ZooError(f"{where}: file {config['file']!r} has no sha256 in 'files'")
        key = _config_key(config)
        if key in seen:
            raise ZooError(f"{where}: a second config for arch/dtype/shape_bucket/device {key}")
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


@dataclasses.dataclass(frozen=True)
class Entry:
    """One version of one op in one zoo folder, with its validated manifest."""

    op: str
    version: str
    zoo: Path
    layer: str  # "user", "shipped", or "custom" for a folder given explicitly
    path: Path
    manifest: dict[str, Any] = dataclasses.field(compare=False, repr=False)


def _entry_dirs(zoo_dirs: list[Path] | None) -> list[tuple[Path, str, str, str]]:
    """(zoo, layer, op, version) of every entry folder, by op, then version, then layer order.

    Manifests are not read, so one broken entry does not hide the others from a caller that
    reports entries one by one (`kzoo zoo verify`).
    """
    found: list[tuple[tuple[Any, ...], tuple[Path, str, str, str]]] = []
    for layer_index, (zoo, layer) in enumerate(_layers(zoo_dirs)):
        if not zoo.is_dir():
            continue
        for op_dir in zoo.iterdir():
            if not op_dir.is_dir() or op_dir.name.startswith((".", "_")):
                continue
            for version in _versions(op_dir):
                key = (op_dir.name, parse_version(version), layer_index)
                found.append((key, (zoo, layer, op_dir.name, version)))
    found.sort(key=lambda pair: pair[0])
    return [item for _, item in found]


def iter_entries(
    zoo_dirs: list[Path] | None = None, *, op: str | None = None, version: str | None = None
) -> Iterator[Entry | ZooError]:
    """Every entry of the given zoos (default: user zoo, then shipped), as `list_entries` orders
    them, optionally only those of one op (and version, in every layer that holds it). An entry
    whose manifest is broken comes as the ZooError naming it, not raised."""
    for zoo, layer, entry_op, entry_version in _entry_dirs(zoo_dirs):
        if op not in (None, entry_op) or version not in (None, entry_version):
            continue
        entry_dir = zoo / entry_op / entry_version
        try:
            manifest = read_manifest(entry_dir)
        except ZooError as err:
            yield err
            continue
        yield Entry(entry_op, entry_version, zoo, layer, entry_dir, manifest)


def list_entries(zoo_dirs: list[Path] | None = None) -> list[dict[str, Any]]:
    """Every version of every op in the given zoos (default: user zoo, then shipped zoo).

    Sorted by op, then semantic version, then layer order. A zoo folder that does not exist holds
    nothing; a malformed manifest raises ZooError.
    """
    entries = []
    for entry in iter_entries(zoo_dirs):
        if isinstance(entry, ZooError):
            raise entry
        configs = [
            {field: config[field] for field in _LISTED_CONFIG_FIELDS}
            for config in entry.manifest["configs"]
        ]
        entries.append(
            {
                "op": entry.op,
                "version": entry.version,
                "zoo": str(entry.zoo),
                "layer": entry.layer,
                "created": entry.manifest["created"],
                "configs": configs,
                "path": str(entry.path),
            }
        )
    return entries


def _where(layers: list[tuple[Path, str]]) -> str:
    return " or ".join(str(zoo) for zoo, _ in layers)


def find_entry(op: str, version: str | None = None, zoo_dirs: list[Path] | None = None) -> Entry:
    """The entry of `op` at `version` in the first layer that holds that version; with no
    version, the newest version of the first layer that holds the op at all.

    Versions are numbered per zoo folder, so the user zoo's 1.0.0 and the shipped 1.0.0 are
    different entries; the user layer's wins, as everywhere. Raises ZooError naming the versions
    there are when none fits.
    """
    _check_name("op", op)
    if version is not None:
        parse_version(version)
    layers = _layers(zoo_dirs)
    held: list[str] = []
    for zoo, layer in layers:
        versions = _versions(zoo / op)
        chosen = versions[-1] if version is None and versions else version
        if chosen in versions:
            entry_dir = zoo / op / chosen
            return Entry(op, chosen, zoo, layer, entry_dir, read_manifest(entry_dir))
        held += [f"{held_version} ({layer})" for held_version in versions]
    if held:
        raise ZooError(
            f"{op} has no version {version} in {_where(layers)}; versions there: "
            + ", ".join(held)
        )
    listing = ", ".join(op_names(zoo_dirs)) or "none"
    raise ZooError(f"no zoo entry for op {op!r} in {_where(layers)}; ops there: {listing}")


def op_names(zoo_dirs: list[Path] | None = None) -> list[str]:
    """The ops with at least one version in the given zoos (default: user zoo, then shipped
    zoo), sorted."""
    return sorted(
        {
            op_dir.name
            for zoo, _ in _layers(zoo_dirs)
            if zoo.is_dir()
            for op_dir in zoo.iterdir()
            if op_dir.is_dir() and _versions(op_dir)
        }
    )


def newest_entries(op: str, zoo_dirs: list[Path] | None = None) -> list[Entry]:
    """The newest version of `op` in each layer that holds it, in layer order (user first): what
    dispatch consults. A broken manifest raises ZooError naming it."""
    _check_name("op", op)
    found = []
    for zoo, layer in _layers(zoo_dirs):
        version = _newest_version(zoo / op)
        if version is not None:
            entry_dir = zoo / op / version
            found.append(Entry(op, version, zoo, layer, entry_dir, read_manifest(entry_dir)))
    return found


def device_configs(
    manifest: dict[str, Any], arch: str, dtype: str, device: str | None = None
) -> dict[str, dict[str, Any]]:
    """Per shape bucket, the config of one manifest for (arch, dtype) that a GPU named `device`
    gets: the one tuned on that GPU model where the bucket has one, else the one promoted last
    (the manifest lists configs in promotion order)."""
    by_bucket: dict[str, dict[str, Any]] = {}
    for config in manifest["configs"]:
        if config["arch"] != arch or config["dtype"] != dtype:
            continue
        held = by_bucket.get(config["shape_bucket"])
        if held is None or held["device"] != device or config["device"] == device:
            by_bucket[config["shape_bucket"]] = config
    return by_bucket


def select_config(
    manifest: dict[str, Any], arch: str, dtype: str, bucket: str = ANY_SHAPE,
    device: str | None = None,
) -> dict[str, Any] | None:
    """The config of one manifest for (arch, dtype) that serves shape bucket `bucket` on a GPU
    named `device` (`device_configs`): the exact bucket, else "any", else (for an op whose buckets
    borrow) the nearest one the manifest has; see `kernel_zoo.buckets.pick`. None when none
    serves it."""
    by_bucket = device_configs(manifest, arch, dtype, device)
    chosen = buckets.pick(manifest["op"], bucket, by_bucket)
    return None if chosen is None else by_bucket[chosen]


def find_config(
    op: str,
    arch: str,
    dtype: str,
    zoo_dirs: list[Path] | None = None,
    *,
    bucket: str = ANY_SHAPE,
    device: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    """The config for (arch, dtype, shape bucket) in the first layer whose newest version of `op`
    has any config for (arch, dtype); within it, `select_config` picks the bucket, and among a
    bucket's configs the one tuned on the GPU model `device` (torch.cuda.get_device_name()) where
    there is one, else the one promoted last.

    A layer that has the (arch, dtype) at all wins over the layers below it, whatever its buckets,
    so a user's promotion is never shadowed by the shipped zoo; for an op whose buckets do not
    borrow (`kernel_zoo.buckets`), a layer without the call's own bucket (or "any") is passed
    over. Only each layer's newest version is consulted: promote carries every other config
    forward, so an older version never knows something the newest does not (unless a config was
    replaced).
    Returns (manifest, config, entry_dir), or None when no layer fits.
    """
    for zoo, _layer in _layers(zoo_dirs):
        op_dir = zoo / op
        version = _newest_version(op_dir)
        if version is None:
            continue
        entry_dir = op_dir / version
        manifest = read_manifest(entry_dir)
        config = select_config(manifest, arch, dtype, bucket, device)
        if config is not None:
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
    except the one with the same (arch, dtype, shape_bucket, device), whose place the new kernel
    takes: a kernel tuned on one GPU model leaves another model's config of the same arch, dtype
    and bucket in place (`select_config` serves each GPU its own).
    Carried files are re-checked against their sha256 and keep their blob (a schema-1 previous
    version's files, and a schema-2 one's plain blobs, become compressed blobs); nothing else is
    copied.

    The source's blob is written first, then the manifest-only version is built in a temp folder
    under `zoo_dir/op` and renamed into place, so readers never see half an entry. The whole
    read-previous/build/rename runs under an exclusive flock on `zoo_dir/.lock`: the new version's
    contents depend on the previous newest one, so two concurrent promotions must be serialized
    end to end, or one would drop the other's config.
    """
    return promote_many(op, [(source, record)], zoo_dir=zoo_dir)


def promote_many(op: str, kernels: list[tuple[str, dict[str, Any]]], *,
                 zoo_dir: Path) -> dict[str, str]:
    """Add several verified kernels, each a (source, record) as `promote` takes them, to `zoo_dir`
    as one new version of `op`: all of them land, or none. Their records must name distinct
    (arch, dtype, shape_bucket, device) keys; each takes the place of the previous version's
    config with its key. A kernel's file is named by `kernel_file_name`, with its GPU model's name
    appended where another config of the version has that name already. Returns {op, version,
    path}."""
    _check_name("op", op)
    if not kernels:
        raise ZooError(f"promote_many for {op}: no kernels given")
    records: list[tuple[bytes, dict[str, Any], str]] = []
    new_keys: set[tuple[str, str, str, str]] = set()
    for source, record in kernels:
        if "file" in record:
            raise ZooError("promote names the kernel file itself; the record must not carry "
                           "'file'")
        _check_config(record, f"record for {op}", op=op, needs_file=False)
        if not isinstance(source, str):
            raise ZooError(f"source must be str, got {type(source).__name__}")
        if _config_key(record) in new_keys:
            raise ZooError(f"promote_many for {op}: two kernels for {_config_key(record)}")
        new_keys.add(_config_key(record))
        data = source.encode("utf-8")
        if len(data) > MAX_SOURCE_BYTES:
            raise ZooError(f"kernel source for {op} is {len(data)} bytes, over the zoo's bound "
                           f"of {MAX_SOURCE_BYTES}")
        file_name = kernel_file_name(op, record["arch"], record["dtype"], record["shape_bucket"])
        try:
            compile(source, file_name, "exec", dont_inherit=True)
        except SyntaxError as err:
            raise ZooError(f"kernel source for {op} does not compile: {err}") from None
        records.append((data, record, file_name))

    zoo_dir = Path(zoo_dir).expanduser().resolve()
    op_dir = zoo_dir / op
    op_dir.mkdir(parents=True, exist_ok=True)
    with _zoo_lock(zoo_dir):
        previous = _newest_version(op_dir)
        version = "1.0.0"
        kept: list[dict[str, Any]] = []
        previous_manifest: dict[str, Any] = {}
        previous_dir = op_dir
        if previous is not None:
            major, minor, _ = parse_version(previous)
            version = f"{major}.{minor + 1}.0"
            previous_dir = op_dir / previous
            previous_manifest = read_manifest(previous_dir)
            kept = [
                config
                for config in previous_manifest["configs"]
                if _config_key(config) not in new_keys
            ]
        taken = {config["file"] for config in kept}
        new_configs: list[dict[str, Any]] = []
        sources: dict[str, bytes] = {}
        for data, record, file_name in records:
            if file_name in taken or file_name in sources:
                file_name = f"{file_name.removesuffix('.py')}_{device_slug(record['device'])}.py"
            if file_name in taken or file_name in sources:
                raise ZooError(f"{previous_dir}: another config already uses file "
                               f"{file_name!r}")
            sources[file_name] = data
            new_configs.append({**record, "file": file_name})
        final_dir = op_dir / version
        if final_dir.exists():
            raise ZooError(f"{final_dir} exists but is not a valid newest version")

        contents: dict[str, bytes] = {}
        for config in kept:
            name = config["file"]
            if name not in contents:  # several configs may share one source file
                contents[name] = read_entry_file(previous_dir, previous_manifest, name)
        contents.update(sources)
        manifest = {
            "schema": SCHEMA,
            "op": op,
            "version": version,
            "created": _now(),
            "configs": kept + new_configs,
            "files": {name: sha256_bytes(data) for name, data in contents.items()},
        }
        validate_manifest(manifest, f"new manifest for {op} {version}")
        _write_entry(op_dir, final_dir, contents, manifest)
    return {"op": op, "version": version, "path": str(final_dir)}


def _check_blob(path: Path, digest: str) -> None:
    """Raise ZooIntegrityError unless the compressed blob `path` decompresses to bytes hashing to
    `digest`, its name: every entry naming it shares it, so a modified one is refused, neither
    trusted nor overwritten."""
    actual, problem = _stored_sha(path, compressed=True)
    if actual != digest:
        found = problem or f"holds a source hashing to {actual}, not to its name"
        raise ZooIntegrityError(
            f"{path.resolve()}: the blob {found}; the zoo's blob store was modified, so it is "
            "neither reused nor overwritten"
        )


def _store_blob(blobs_dir: Path, data: bytes) -> bool:
    """Make `blobs_dir/<sha256 of data>.py.xz` hold `data`, compressed; True when it was written,
    False when it was there already (and checks out: `_check_blob`). The caller holds the zoo lock
    and fsyncs `blobs_dir` afterwards.

    A new blob is written to a temp file, fsynced, read back and checked (decompressed, hashed)
    and only then renamed to its name.
    """
    if len(data) > MAX_SOURCE_BYTES:
        raise ZooError(f"a kernel source of {len(data)} bytes is over the zoo's bound of "
                       f"{MAX_SOURCE_BYTES}")
    digest = sha256_bytes(data)
    path = blobs_dir / f"{digest}{BLOB_SUFFIX}"
    if os.path.lexists(path):
        _check_blob(path, digest)
        return False
    tmp = blobs_dir / f".tmp-{digest[:16]}-{secrets.token_hex(4)}"
    try:
        _write_durably(tmp, _compress_source(data))
        actual, problem = _stored_sha(tmp, compressed=True)
        if actual != digest:
            raise ZooError(f"{tmp}: the blob just written does not read back as its source "
                           f"({problem or f'sha256 {actual}'}); nothing was stored")
        os.rename(tmp, path)  # under the zoo lock nothing else creates `path` meanwhile
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


def _write_blobs(op_dir: Path, files: dict[str, bytes]) -> int:
    """Store each file's bytes as a blob of `op_dir`, durably; how many blobs were new."""
    blobs_dir = op_dir / BLOBS
    blobs_dir.mkdir(exist_ok=True)
    written = sum(_store_blob(blobs_dir, data) for data in files.values())
    _fsync_dir(blobs_dir)
    _fsync_dir(op_dir)  # the blobs folder itself, when it is new
    return written


def _remove_debris(op_dir: Path) -> int:
    """Delete what a writer killed mid-write left in an op's folder: temp blobs
    `blobs/.tmp-<sha>-<hex>` and temp entry folders `.tmp-<version>-*` (both only ever renamed to
    their names, never read under these). Every writer holds the zoo lock while such a file
    exists, so under it (the caller holds it) any one found is a dead writer's. How many went."""
    removed = 0
    blobs_dir = op_dir / BLOBS
    for tmp in sorted(blobs_dir.glob(".tmp-*")) if blobs_dir.is_dir() else []:
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink()
            removed += 1
    for tmp in sorted(op_dir.glob(".tmp-*")) if op_dir.is_dir() else []:
        if tmp.is_dir() and not tmp.is_symlink():
            shutil.rmtree(tmp)
            removed += 1
    return removed


def _write_entry(op_dir: Path, final_dir: Path, files: dict[str, bytes],
                 manifest: dict[str, Any]) -> None:
    """Write the files as blobs, then build the manifest-only entry in a temp folder beside its
    final place and rename it there: readers see a whole entry, its blobs on disk, or none. The
    caller holds the zoo lock; `manifest` is schema 3 and lists exactly `files`. What a killed
    writer left in the op's folder goes first (_remove_debris)."""
    _remove_debris(op_dir)
    _write_blobs(op_dir, files)
    tmp_dir = Path(tempfile.mkdtemp(prefix=f".tmp-{final_dir.name}-", dir=op_dir))
    try:
        text = json.dumps(manifest, indent=2) + "\n"
        _write_durably(tmp_dir / MANIFEST, text.encode("utf-8"))
        # mkdtemp makes the folder private; an entry is meant to be read by anyone
        tmp_dir.chmod(0o755)
        os.rename(tmp_dir, final_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise
    _fsync_dir(op_dir)


def import_entry(
    manifest: dict[str, Any], files: dict[str, bytes], *, zoo_dir: Path, source: str
) -> dict[str, str]:
    """Add an entry built elsewhere (an exported bundle) to `zoo_dir` under its own version.

    Every file must be listed in the manifest and hash to its sha256; `source` names where they
    came from in errors. The manifest may be of any schema it reads; the entry is written as
    schema 3 (the same manifest with "schema": 3, its files as compressed blobs). Returns {op,
    version, path, status}: status "imported", or "identical" when the zoo already holds this
    entry (the same manifest but for "schema", which says only how the files are stored; its
    files intact). The same version with other content raises ZooConflictError: entries are
    immutable, never replaced.
    """
    validate_manifest(manifest, source)
    op, version = manifest["op"], manifest["version"]
    expected = manifest["files"]
    missing = sorted(set(expected) - set(files))
    extra = sorted(set(files) - set(expected))
    if missing or extra:
        raise ZooError(
            f"{source}: files do not match the manifest (missing {missing}, not listed {extra})"
        )
    for name, data in files.items():
        actual = sha256_bytes(data)
        if actual != expected[name]:
            raise ZooIntegrityError(
                f"{source}: {name}: sha256 {actual} does not match the manifest's "
                f"{expected[name]}; the file was modified after it was verified and will not "
                "be imported"
            )

    zoo_dir = Path(zoo_dir).expanduser().resolve()
    op_dir = zoo_dir / op
    op_dir.mkdir(parents=True, exist_ok=True)
    final_dir = op_dir / version
    result = {"op": op, "version": version, "path": str(final_dir)}
    with _zoo_lock(zoo_dir):
        if final_dir.exists():
            existing = read_manifest(final_dir)
            if _content(existing) != _content(manifest):
                raise ZooConflictError(
                    f"{final_dir} already holds {op} {version} with other content; entries are "
                    "immutable, so it was not replaced"
                )
            # the same manifest over modified files is not the same entry
            read_entry_files(final_dir, existing)
            return {**result, "status": "identical"}
        _write_entry(op_dir, final_dir, files, {**manifest, "schema": SCHEMA})
    return {**result, "status": "imported"}


def _content(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest without "schema": what the entry is, apart from where its files are stored."""
    return {field: value for field, value in manifest.items() if field != "schema"}


# ---------------------------------------------------------------------------------------------
# migration


def migrate(zoo_dir: Path) -> dict[str, Any]:
    """Convert every schema-1 and schema-2 entry of the zoo folder `zoo_dir` to schema 3, in
    place.

    Per entry, under the zoo lock: every file is checked against its sha256 first (a missing or
    modified one raises ZooIntegrityError naming it and stops the migration, that entry and the
    ones after it untouched); then the files are written as compressed blobs, each fsynced and
    checked (decompressed and hashed) before it takes its name; manifest.json is replaced
    atomically by the same manifest with "schema": 3; and only then are a schema-1 entry's own
    copies deleted. Once every entry of an op is schema 3, the op's plain schema-2 blobs
    `<sha256>.py` are deleted, each only once its compressed twin checks out (one that no entry
    names is compressed first if its bytes hash to its name, and left alone if not). A reader
    opening an entry at any moment finds a loadable entry. Only storage changes: configs, hashes,
    versions and dates stay as they were.

    Idempotent: a second run changes nothing, and a run after an interrupted one finishes it
    (writes what blobs are missing, switches the manifests left, deletes the copies and plain
    blobs left). Returns {zoo, entries, migrated (["op version", ...]), blobs_written (compressed
    blobs written), files_removed (schema-1 copies deleted), blobs_removed (plain blobs
    deleted), debris_removed (temp blobs and entry folders a killed writer left:
    _remove_debris)}.
    """
    zoo_dir = Path(zoo_dir).expanduser().resolve()
    if not zoo_dir.is_dir():
        raise ZooError(f"no such zoo folder: {zoo_dir}")
    summary: dict[str, Any] = {
        "zoo": str(zoo_dir), "entries": 0, "migrated": [], "blobs_written": 0,
        "files_removed": 0, "blobs_removed": 0, "debris_removed": 0,
    }
    with _zoo_lock(zoo_dir):
        by_op: dict[str, list[str]] = {}
        for _zoo, _layer, op, version in _entry_dirs([zoo_dir]):
            by_op.setdefault(op, []).append(version)
        for op, versions in by_op.items():
            for version in versions:
                _migrate_entry(zoo_dir / op / version, summary)
            written, removed = _remove_plain_blobs(zoo_dir / op)
            summary["blobs_written"] += written
            summary["blobs_removed"] += removed
            summary["debris_removed"] += _remove_debris(zoo_dir / op)
    return summary


def _migrate_entry(entry_dir: Path, summary: dict[str, Any]) -> None:
    """Bring one entry to schema 3 and delete what an earlier schema left in its folder, counting
    in `summary`. The caller holds the zoo lock."""
    manifest = read_manifest(entry_dir)
    summary["entries"] += 1
    if manifest["schema"] != SCHEMA:
        # all of them, before anything is written
        files = {name: _read_migrated(entry_dir, manifest, name) for name in manifest["files"]}
        summary["blobs_written"] += _write_blobs(entry_dir.parent, files)
        manifest = {**manifest, "schema": SCHEMA}
        validate_manifest(manifest, f"schema-{SCHEMA} manifest for {entry_dir}")
        _replace_manifest(entry_dir, manifest)
        summary["migrated"].append(f"{manifest['op']} {manifest['version']}")
    summary["files_removed"] += _remove_migrated_files(entry_dir, manifest)


def _read_migrated(entry_dir: Path, manifest: dict[str, Any], name: str) -> bytes:
    path, compressed = _locate(entry_dir, manifest, name)
    return _read_verified(path, manifest["files"][name], doing="migrated", name=name,
                          compressed=compressed)


def _replace_manifest(entry_dir: Path, manifest: dict[str, Any]) -> None:
    """Swap `entry_dir/manifest.json` for `manifest` in one rename (fsynced before and after)."""
    path = entry_dir / MANIFEST
    tmp = entry_dir / f".{MANIFEST}.{secrets.token_hex(4)}.tmp"
    try:
        _write_durably(tmp, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
        tmp.chmod(stat.S_IMODE(path.stat().st_mode))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(entry_dir)


def _remove_migrated_files(entry_dir: Path, manifest: dict[str, Any]) -> int:
    """Delete the copies a migrated entry's folder still holds of its files (and a temp manifest
    an interrupted migration left), each only once both it and its blob hash to the manifest's
    sha256; how many files went. The caller holds the zoo lock."""
    removed = 0
    for name, digest in manifest["files"].items():
        copy = entry_dir / name  # where schema 1 kept it
        if not os.path.lexists(copy):
            continue
        read_entry_file(entry_dir, manifest, name)  # the blob, which stays
        try:
            actual: str | None = sha256_bytes(copy.read_bytes())
        except OSError:
            actual = None
        if actual != digest:
            raise ZooIntegrityError(
                f"{copy.resolve()}: left beside the schema-{manifest['schema']} manifest by an "
                f"interrupted migration, but it is not the verified file (sha256 {actual}, the "
                f"manifest's {digest}); it was left in place, and the entry reads its blob"
            )
        copy.unlink()
        removed += 1
    for stale in entry_dir.glob(f".{MANIFEST}.*.tmp"):
        stale.unlink()
    if removed:
        _fsync_dir(entry_dir)
    return removed


def _remove_plain_blobs(op_dir: Path) -> tuple[int, int]:
    """Delete the plain schema-2 blobs `<sha256>.py` of an op whose entries are all schema 3 (the
    caller has just migrated every one, under the zoo lock), each once its compressed twin
    `<sha256>.py.xz` decompresses to bytes hashing to that name (a twin that does not raises
    ZooIntegrityError: entries read it). A plain blob without a twin, which no entry names (a
    failed promotion's), gets one first if its bytes hash to its name, and is left alone if they
    do not. Returns (twins written, plain blobs deleted)."""
    blobs_dir = op_dir / BLOBS
    if not blobs_dir.is_dir():
        return 0, 0
    written = removed = 0
    for plain in sorted(blobs_dir.iterdir()):
        match = _PLAIN_BLOB_RE.match(plain.name)
        if match is None:
            continue
        digest = match.group(1)
        twin = blobs_dir / f"{digest}{BLOB_SUFFIX}"
        if os.path.lexists(twin):
            _check_blob(twin, digest)
        else:
            try:
                data = plain.read_bytes()
            except OSError:
                continue
            if sha256_bytes(data) != digest:
                continue
            written += _store_blob(blobs_dir, data)
            _fsync_dir(blobs_dir)  # the twin is on disk before the plain blob goes
        plain.unlink()
        removed += 1
    if removed:
        _fsync_dir(blobs_dir)
    return written, removed


# ---------------------------------------------------------------------------------------------
# loading


class _BlobFormatError(Exception):
    """A compressed blob is not one whole xz stream of at most MAX_SOURCE_BYTES; says why."""


def _compress_source(data: bytes) -> bytes:
    """`data` as a schema-3 blob holds it: one xz stream, LZMA2 at preset 9 with the extreme
    search, its dictionary cut to the smallest power of two holding `data` (64 KiB at least): a
    larger one compresses no better, and every reader would allocate it."""
    dict_size = min(max(1 << 16, 1 << (max(len(data), 1) - 1).bit_length()), 64 << 20)
    lzma2 = {"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": dict_size}
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, filters=[lzma2])


def _decompress_source(data: bytes) -> bytes:
    """The source a schema-3 blob's bytes hold. Raises _BlobFormatError, saying why, for anything
    but one whole xz stream of at most MAX_SOURCE_BYTES (read no further than that, and decoded
    within _XZ_MEMLIMIT), with nothing after it."""
    decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=_XZ_MEMLIMIT)
    try:
        source = decompressor.decompress(data, max_length=MAX_SOURCE_BYTES + 1)
    except lzma.LZMAError as err:
        raise _BlobFormatError(f"is not a valid xz stream ({err})") from None
    if len(source) > MAX_SOURCE_BYTES:
        raise _BlobFormatError(f"decompresses to more than {MAX_SOURCE_BYTES} bytes, the zoo's "
                               "bound for a kernel source")
    if not decompressor.eof:
        raise _BlobFormatError("is a truncated xz stream")
    if decompressor.unused_data:
        raise _BlobFormatError("has bytes after its xz stream")
    return source


def _load_stored(path: Path, compressed: bool) -> bytes:
    """The bytes of one stored kernel file, decompressed where it is a schema-3 blob; OSError
    where it cannot be read, _BlobFormatError where a blob is not one (or is over the bound)."""
    if not compressed:
        return path.read_bytes()
    with open(path, "rb") as handle:
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise _BlobFormatError(f"is larger than {MAX_SOURCE_BYTES} bytes, the zoo's bound")
    return _decompress_source(data)


def _stored_sha(path: Path, compressed: bool) -> tuple[str | None, str | None]:
    """(sha256 of the file's source, None), or (None, what is wrong with it): "is missing",
    "cannot be read (...)", or why a blob is not one."""
    try:
        return sha256_bytes(_load_stored(path, compressed)), None
    except FileNotFoundError:
        return None, "is missing"
    except OSError as err:  # a dangling link, a folder, no permission to read it
        return None, f"cannot be read ({err.strerror or err})"
    except _BlobFormatError as err:
        return None, str(err)


def _read_verified(
    path: Path, expected_sha: str, *, doing: str = "loaded", name: str | None = None,
    compressed: bool = False,
) -> bytes:
    """The file's bytes (decompressed, where `compressed`: a schema-3 blob), if and only if they
    hash to `expected_sha`; the error names the path (and the entry's file `name`, where the path
    is a blob) and says the entry will not be `doing`."""
    shown = str(path.resolve()) + (f" ({name})" if name not in (None, path.name) else "")
    try:
        data = _load_stored(path, compressed)
    except FileNotFoundError:
        raise ZooIntegrityError(
            f"{shown}: the kernel file is missing; the entry was modified after it was "
            f"verified and will not be {doing}"
        ) from None
    except OSError as err:  # a folder in its place, no permission to read it
        raise ZooIntegrityError(
            f"{shown}: the kernel file cannot be read ({err.strerror or err}); the entry will "
            f"not be {doing}"
        ) from None
    except _BlobFormatError as err:
        raise ZooIntegrityError(
            f"{shown}: the kernel blob {err}; the entry was modified after it was verified and "
            f"will not be {doing}"
        ) from None
    actual = sha256_bytes(data)
    if actual != expected_sha:
        raise ZooIntegrityError(
            f"{shown}: sha256 {actual} does not match the manifest's {expected_sha}; the entry "
            f"was modified after it was verified and will not be {doing}"
        )
    return data


def _locate(entry_dir: Path, manifest: dict[str, Any], name: str) -> tuple[Path, bool]:
    """`entry_file_path`, and whether the bytes there are compressed (a schema-3 blob)."""
    files = manifest.get("files")
    digest = files.get(name) if isinstance(files, dict) and isinstance(name, str) else None
    if not isinstance(digest, str) or _SHA_RE.match(digest) is None:
        raise ZooIntegrityError(
            f"{Path(os.path.abspath(entry_dir)) / str(name)}: the manifest records no sha256 "
            "for this file, so it is never read"
        )
    if _NAME_RE.match(name) is None or name in _RESERVED_FILES:
        raise ZooError(f"{entry_dir}: {name!r} is not a plain file name")
    schema = manifest.get("schema")
    if schema == 1:
        return Path(entry_dir) / name, False
    # abspath, not resolve: the op folder is the entry folder's parent as named, as in
    # read_manifest, even where the entry folder is a link
    blobs_dir = Path(os.path.abspath(entry_dir)).parent / BLOBS
    if schema == 2:
        return blobs_dir / f"{digest}{PLAIN_BLOB_SUFFIX}", False
    if schema == 3:
        return blobs_dir / f"{digest}{BLOB_SUFFIX}", True
    raise ZooError(f"{entry_dir}: schema {schema!r} is not supported")


def entry_file_path(entry_dir: Path, manifest: dict[str, Any], name: str) -> Path:
    """Where the bytes of the entry's file `name` are: `entry_dir/name` in a schema-1 entry, the
    blob named by the manifest's sha256 for `name` in the others: `<zoo>/<op>/blobs/<sha256>.py`
    in schema 2, `<sha256>.py.xz` (compressed: not the source as it is) in schema 3.

    Only the path: `read_entry_file` and `load_kernel` decompress and check the bytes. Raises
    ZooIntegrityError when the manifest records no sha256 for `name`, ZooError for a schema it
    does not know.
    """
    return _locate(entry_dir, manifest, name)[0]


def read_entry_file(entry_dir: Path, manifest: dict[str, Any], name: str) -> bytes:
    """One file of an entry (decompressed from its blob in schema 3), if and only if it hashes to
    the manifest's sha256."""
    path, compressed = _locate(entry_dir, manifest, name)
    return _read_verified(path, manifest["files"][name], name=name, compressed=compressed)


def read_entry_files(entry_dir: Path, manifest: dict[str, Any]) -> dict[str, bytes]:
    """Every file the manifest lists, each checked against its sha256 (ZooIntegrityError names
    the first that fails)."""
    return {name: read_entry_file(entry_dir, manifest, name) for name in manifest["files"]}


def check_files(entry_dir: Path, manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Each listed file's hash check, as data: {name, path (where its bytes are: the entry folder
    or the op's blobs), sha256 (the manifest's), actual (of the source, decompressed where the
    blob is compressed; None when it cannot be had), error (why not: "is missing", "cannot be
    read (...)", or why a blob is not one; else None), ok}. Reports every file rather than
    stopping at one."""
    checks = []
    for name, digest in manifest["files"].items():
        path, compressed = _locate(entry_dir, manifest, name)
        path = path.resolve()
        actual, error = _stored_sha(path, compressed)
        check = {"name": name, "path": str(path), "sha256": digest, "actual": actual}
        checks.append({**check, "error": error, "ok": actual == digest})
    return checks


class _VerifiedSourceLoader(importlib.machinery.SourceFileLoader):
    """Executes exactly the bytes whose hash was checked, and gives them as the module's source.

    A plain SourceFileLoader would re-read the file (a window for a swap after the check) and
    would trust a matching `__pycache__/*.pyc` without hashing it. A module of a plain file
    (schemas 1 and 2) has that file as `__file__`, so `inspect.getsource` (which Triton's @jit
    needs) reads it from disk. A schema-3 module's `__file__` is a name no zoo writes (see
    `_module_file`): linecache finds no file there and asks this loader's `get_source`, which
    answers with the verified text.
    """

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data = data

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self._data, self.path, "exec", dont_inherit=True)

    def get_data(self, path: str) -> bytes:
        if path == self.path:
            return self._data
        return super().get_data(path)

    def get_source(self, fullname: str) -> str:
        return importlib.util.decode_source(self._data)


_modules: dict[tuple[str, str], types.ModuleType] = {}
_modules_lock = threading.Lock()


def _module_name(name: str, path: Path, sha: str) -> str:
    # named after the logical file (a blob's own name is its sha256), unique per (path, sha)
    stem = re.sub(r"\W", "_", Path(name).stem)
    tag = sha256_bytes(f"{path}\0{sha}".encode())[:12]
    return f"_kzoo_entry_{stem}_{tag}"


def _module_file(path: Path, compressed: bool) -> Path:
    """The file name a kernel module runs under: the file itself where it is plain source; beside
    a compressed blob `<sha256>.py.xz`, `<sha256>.xz.py`, which no zoo writes. Not the blob
    (linecache would read compressed bytes as the source), nor `<sha256>.py`, which a schema-2
    entry of the same zoo may hold as a plain blob of its own, checked by nobody here."""
    if not compressed:
        return path
    return path.with_name(path.name.removesuffix(BLOB_SUFFIX) + ".xz.py")


def load_kernel(entry_dir: Path, config: dict[str, Any], manifest: dict[str, Any]) -> Any:
    """Import the source of one config after checking its sha256 against the manifest.

    Raises ZooIntegrityError when the file is missing or its bytes changed (for a schema-3 blob:
    when it does not decompress to the verified source), and ZooError when a verified file fails
    to import. Modules are cached per (path, sha256): the versions sharing a blob share one
    module. The file is re-hashed on every call, so a file edited after an earlier load is still
    refused.

    A schema-3 module's source, which no file holds as it is, is put in linecache under its
    `__file__` (`_module_file`) before it runs, as text that never goes stale, and its loader
    serves it again should linecache be cleared: `inspect.getsource` (Triton's @jit, in the
    interpreter and compiling for a GPU) gets exactly the verified text.
    """
    from kernel_zoo.toolchain import use_torch_ptxas

    use_torch_ptxas()  # before any of its kernels compiles: assembled as the sweep timed them
    name = config.get("file")
    path, compressed = _locate(entry_dir, manifest, name)  # type: ignore[arg-type]
    path = path.resolve()
    expected = manifest["files"][name]
    data = _read_verified(path, expected, name=name, compressed=compressed)
    key = (str(path), expected)
    with _modules_lock:
        module = _modules.get(key)
        if module is not None:
            return module
        module_name = _module_name(name, path, expected)
        module_file = _module_file(path, compressed)
        loader = _VerifiedSourceLoader(module_name, str(module_file), data)
        spec = importlib.util.spec_from_file_location(module_name, module_file, loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        if compressed:
            # mtime None: linecache.checkcache keeps it (it has no file to compare against)
            text = loader.get_source(module_name)
            lines = io.StringIO(text).readlines()  # at "\n" only, as the compiler counts lines
            linecache.cache[str(module_file)] = (len(text), None, lines, str(module_file))
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
