"""Schema 3: each kernel once per op, xz-compressed, as `<op>/blobs/<sha256>.py.xz` (named by the
source's sha256), entry folders holding only their manifest; schema-2 entries (plain blobs) and
schema-1 entries (files in the entry folder) still read; `store.migrate` from either; bundles
between zoos of any schema; a Triton kernel loaded from a compressed blob still has its source."""

from __future__ import annotations

import inspect
import json
import linecache
import lzma
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest
import torch
from test_zoo import kernel_path, kernel_source, make_record, run_cli, store_source, stored_source

import kernel_zoo
from kernel_zoo import bundle, store
from kernel_zoo.store import ZooConflictError, ZooError, ZooIntegrityError

BF16, F32 = "softmax_sm_90_bfloat16.py", "softmax_sm_90_float32.py"


@pytest.fixture(autouse=True)
def _isolated(isolated_zoo):
    """Every test here runs against zoos under tmp_path (conftest.isolated_zoo)."""


def tree(zoo: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `zoo` but its lock: relative path -> (bytes, mtime in ns)."""
    return {
        str(path.relative_to(zoo)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(zoo.rglob("*"))
        if path.is_file() and path.name != store.LOCK_FILE
    }


def as_schema_1(zoo: Path) -> None:
    """Rewrite every entry of `zoo` as a schema-1 writer left it: its files in its own folder
    beside a manifest saying "schema": 1, and no blobs."""
    for entry in list(store.iter_entries([zoo])):
        assert isinstance(entry, store.Entry)
        for name, data in store.read_entry_files(entry.path, entry.manifest).items():
            (entry.path / name).write_bytes(data)
        manifest = {**entry.manifest, "schema": 1}
        (entry.path / store.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    for blobs in zoo.glob(f"*/{store.BLOBS}"):
        shutil.rmtree(blobs)


def as_schema_2(zoo: Path) -> None:
    """Rewrite every entry of `zoo` as a schema-2 writer left it: a manifest saying "schema": 2
    over plain blobs `<op>/blobs/<sha256>.py`, and no compressed ones."""
    for entry in list(store.iter_entries([zoo])):
        assert isinstance(entry, store.Entry)
        blobs = entry.path.parent / store.BLOBS
        for name, data in store.read_entry_files(entry.path, entry.manifest).items():
            (blobs / f"{entry.manifest['files'][name]}.py").write_bytes(data)
        manifest = {**entry.manifest, "schema": 2}
        (entry.path / store.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    for blob in zoo.glob(f"*/{store.BLOBS}/*.py.xz"):
        blob.unlink()


def promote_three(zoo: Path) -> None:
    """softmax 1.0.0 (bf16 "a"), 1.1.0 (+ f32 "f"), 1.2.0 (bf16 replaced by "b"): three kernels,
    five files listed over the three manifests."""
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    store.promote("softmax", kernel_source("b"), make_record(), zoo_dir=zoo)


def load(zoo: Path, version: str, name: str):
    entry = store.find_entry("softmax", version, [zoo])
    config = next(c for c in entry.manifest["configs"] if c["file"] == name)
    return store.load_kernel(entry.path, config, entry.manifest)


# ---------------------------------------------------------------------------------------------
# writing schema 3


def test_promote_many_lands_several_buckets_in_one_version_or_none(tmp_path: Path):
    """promote_many: kernels for several (arch, dtype, bucket) keys become one new version, each
    replacing the previous version's config of its key; a duplicate key, or a source that does
    not compile, writes nothing."""
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    kernels = [(kernel_source("g"), make_record(dtype="float32")),
               (kernel_source("h"), make_record(dtype="float32", shape_bucket="cols_le_1024")),
               (kernel_source("a"), make_record(dtype="float16"))]
    assert store.promote_many("softmax", kernels, zoo_dir=zoo)["version"] == "1.2.0"
    manifest = store.read_manifest(zoo / "softmax" / "1.2.0")
    keys = sorted((c["dtype"], c["shape_bucket"]) for c in manifest["configs"])
    assert keys == [("bfloat16", "any"), ("float16", "any"), ("float32", "any"),
                    ("float32", "cols_le_1024")]
    entry = store.find_entry("softmax", "1.2.0", [zoo])
    files = store.read_entry_files(entry.path, entry.manifest)
    assert files[F32] == kernel_source("g").encode()
    assert files["softmax_sm_90_float16.py"] == files[BF16]  # one blob for "a"

    before = tree(zoo)
    with pytest.raises(ZooError, match="two kernels"):
        store.promote_many("softmax", [(kernel_source("x"), make_record()),
                                       (kernel_source("y"), make_record())], zoo_dir=zoo)
    with pytest.raises(ZooError, match="does not compile"):
        store.promote_many("softmax", [(kernel_source("x"), make_record()),
                                       ("def (", make_record(dtype="float32"))], zoo_dir=zoo)
    with pytest.raises(ZooError, match="no kernels"):
        store.promote_many("softmax", [], zoo_dir=zoo)
    assert tree(zoo) == before


def test_carried_and_equal_sources_are_one_blob_never_a_copy(tmp_path: Path):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    # the same source for another dtype: two file names in the manifest, one blob
    store.promote("softmax", kernel_source("a"), make_record(dtype="float32"), zoo_dir=zoo)
    for arch in ("sm_80", "sm_86", "sm_89"):
        store.promote("softmax", kernel_source(arch), make_record(arch=arch), zoo_dir=zoo)

    newest = store.read_manifest(zoo / "softmax" / "1.4.0")
    assert len(newest["files"]) == 5 and newest["files"][BF16] == newest["files"][F32]
    listed = sum(len(store.read_manifest(zoo / "softmax" / f"1.{i}.0")["files"]) for i in range(5))
    assert listed == 1 + 2 + 3 + 4 + 5
    on_disk = sorted(str(p.relative_to(zoo)) for p in zoo.rglob("*") if p.is_file())
    blobs = sorted(f"softmax/blobs/{digest}.py.xz" for digest in set(newest["files"].values()))
    manifests = [f"softmax/1.{i}.0/manifest.json" for i in range(5)]
    assert on_disk == sorted([".lock", *manifests, *blobs]) and len(blobs) == 4
    # every version carrying "a" serves it from the one blob, through one module
    assert load(zoo, "1.0.0", BF16) is load(zoo, "1.4.0", BF16) is load(zoo, "1.4.0", F32)


def test_a_tampered_blob_is_refused_in_every_version_that_shares_it(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    assert load(zoo, "1.1.0", BF16).TAG == "a"  # loaded, and cached, before the edit
    blob = kernel_path(zoo / "softmax" / "1.0.0", BF16)
    assert blob == kernel_path(zoo / "softmax" / "1.1.0", BF16)
    store_source(blob, kernel_source("A"))  # well-formed xz of other source

    for version in ("1.0.0", "1.1.0"):
        with pytest.raises(ZooIntegrityError) as excinfo:
            load(zoo, version, BF16)
        message = str(excinfo.value)
        assert f"{blob.resolve()} ({BF16}): sha256 " in message
        assert "will not be loaded" in message
        with pytest.raises(ZooIntegrityError, match=str(blob.resolve())):
            kernel_zoo.load("softmax", version, zoo=zoo)
    entry = store.find_entry("softmax", "1.1.0", [zoo])
    checks = {check["name"]: check for check in store.check_files(entry.path, entry.manifest)}
    assert checks[BF16]["path"] == str(blob.resolve()) and checks[BF16]["ok"] is False
    assert checks[BF16]["actual"] == store.sha256_bytes(kernel_source("A").encode())
    assert checks[BF16]["error"] is None
    assert checks[F32]["ok"] is True
    # 1.2.0 no longer names that blob: untouched by the edit
    assert load(zoo, "1.2.0", BF16).TAG == "b"
    # it is not exported, and an intact bundle of 1.0.0 is not "identical" to what is here
    with pytest.raises(ZooIntegrityError, match=str(blob.resolve())):
        bundle.export_entry(entry, tmp_path / "bundle.json")
    assert not (tmp_path / "bundle.json").exists()
    v1 = store.read_manifest(zoo / "softmax" / "1.0.0")
    before = tree(zoo)
    with pytest.raises(ZooIntegrityError, match=str(blob.resolve())):
        store.import_entry(v1, {BF16: kernel_source("a").encode()}, zoo_dir=zoo, source="test")
    assert tree(zoo) == before


def test_a_missing_blob_is_refused(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    blob = kernel_path(zoo / "softmax" / "1.2.0", F32)
    blob.unlink()
    with pytest.raises(ZooIntegrityError, match=f"{blob.resolve()} .{F32}.: the kernel file is "
                       "missing"):
        load(zoo, "1.2.0", F32)
    entry = store.find_entry("softmax", "1.2.0", [zoo])
    with pytest.raises(ZooIntegrityError, match="missing"):
        store.read_entry_files(entry.path, entry.manifest)
    checks = {check["name"]: check for check in store.check_files(entry.path, entry.manifest)}
    assert checks[F32]["actual"] is None and checks[F32]["ok"] is False
    assert checks[F32]["error"] == "is missing"
    assert checks[BF16]["ok"] is True
    with pytest.raises(ZooIntegrityError, match="missing"):
        store.promote("softmax", kernel_source("x"), make_record(arch="sm_80"), zoo_dir=zoo)
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0", "1.1.0", "1.2.0"]


def test_a_blob_that_cannot_be_read_is_refused_as_an_integrity_error(tmp_path: Path):
    """A folder where a blob should be (or any read error but a missing file) is refused with
    the path named, as a missing or modified blob is, not raised as a bare OSError."""
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    blob = kernel_path(zoo / "softmax" / "1.2.0", F32)
    blob.unlink()
    blob.mkdir()
    with pytest.raises(ZooIntegrityError, match=f"{blob.resolve()} .{F32}.: the kernel file "
                       "cannot be read"):
        load(zoo, "1.2.0", F32)
    entry = store.find_entry("softmax", "1.2.0", [zoo])
    with pytest.raises(ZooIntegrityError, match="cannot be read"):
        store.read_entry_files(entry.path, entry.manifest)


def test_a_blob_whose_bytes_do_not_match_its_name_is_neither_reused_nor_overwritten(
    tmp_path: Path,
):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    source = kernel_source("f")
    forged = zoo / "softmax" / "blobs" / f"{store.sha256_bytes(source.encode())}.py.xz"
    store_source(forged, "TAG = 'forged'\n")
    forged_bytes = forged.read_bytes()
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.promote("softmax", source, make_record(dtype="float32"), zoo_dir=zoo)
    assert str(forged.resolve()) in str(excinfo.value)
    assert "not to its name" in str(excinfo.value)
    assert forged.read_bytes() == forged_bytes
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0"]
    # nor is one that is no xz stream at all
    forged.write_bytes(source.encode())
    with pytest.raises(ZooIntegrityError, match=f"{forged.resolve()}: the blob is not a valid "
                       "xz stream"):
        store.promote("softmax", source, make_record(dtype="float32"), zoo_dir=zoo)
    assert forged.read_bytes() == source.encode()
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0"]

    # import: the bundle's bytes are right, the target's blob of that name is not
    entry = store.find_entry("softmax", "1.0.0", [zoo])
    files = store.read_entry_files(entry.path, entry.manifest)
    target = tmp_path / "target"
    bad = target / "softmax" / "blobs" / f"{entry.manifest['files'][BF16]}.py.xz"
    bad.parent.mkdir(parents=True)
    store_source(bad, "TAG = 'forged'\n")
    with pytest.raises(ZooIntegrityError, match=str(bad.resolve())):
        store.import_entry(entry.manifest, files, zoo_dir=target, source="test")
    assert stored_source(bad) == b"TAG = 'forged'\n"
    assert sorted(p.name for p in (target / "softmax").iterdir()) == ["blobs"]

    # a blob that is right (one an interrupted promotion left) is simply reused
    store_source(forged, source)
    store.promote("softmax", source, make_record(dtype="float32"), zoo_dir=zoo)
    assert load(zoo, "1.1.0", F32).TAG == "f"


def test_the_blobs_folder_is_never_taken_for_a_version(tmp_path: Path, capsys):
    zoo = tmp_path / "zoo"
    (zoo / "softmax" / "blobs").mkdir(parents=True)
    store_source(zoo / "softmax" / "blobs" / f"{'0' * 64}.py.xz", "x = 1\n")
    assert store.list_entries([zoo]) == []
    with pytest.raises(ZooError, match="ops there: none"):
        store.find_entry("softmax", zoo_dirs=[zoo])
    promote_three(zoo)
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0", "1.1.0", "1.2.0"]
    assert store.find_config("softmax", "sm_90", "bfloat16", [zoo])[2].name == "1.2.0"
    code, out, _ = run_cli(["zoo", "list", "--json", "--zoo", str(zoo)], capsys)
    assert code == 0 and [e["version"] for e in json.loads(out)] == ["1.0.0", "1.1.0", "1.2.0"]


_KILLED_WRITER = """
import os, sys
from pathlib import Path
from kernel_zoo import store
from test_zoo import kernel_source, make_record

calls = []
rename = os.rename


def dies_at_rename(src, dst):  # a SIGKILL at the Nth rename: no cleanup runs
    calls.append(src)
    if len(calls) == int(sys.argv[2]):
        os._exit(9)
    rename(src, dst)


store.os.rename = dies_at_rename
store.promote("softmax", kernel_source("f"), make_record(dtype="float32"),
              zoo_dir=Path(sys.argv[1]))
"""


@pytest.mark.parametrize("dies_at", [1, 2], ids=["blob-rename", "entry-rename"])
def test_what_a_killed_writer_left_is_removed_by_the_next_one(tmp_path: Path, dies_at: int,
                                                               capsys):
    """A promotion killed before a rename (a temp blob's to its name, or the temp entry folder's
    to its version) leaves its temp file or folder: readers never see it, and the next writer,
    holding the zoo lock as every writer does, deletes it; `kzoo zoo migrate` does too, and says
    so."""
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    before = tree(zoo)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).parent), str(Path(__file__).parents[1])])}
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(zoo), str(dies_at)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    op_dir = zoo / "softmax"
    debris = sorted(op_dir.glob(f"{store.BLOBS}/.tmp-*")) + sorted(op_dir.glob(".tmp-*"))
    assert len(debris) == 1, sorted(op_dir.rglob("*"))
    # a killed writer at the second rename has its blob in place; readers see one entry either way
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0"]
    assert load(zoo, "1.0.0", BF16).TAG == "a"

    code, out, _ = run_cli(["zoo", "migrate", "--zoo", str(zoo)], capsys)
    assert (code, out) == (0, f"nothing to migrate: all 1 entries in {zoo.resolve()} are schema "
                              "3 (removed 1 temp file(s) or folder(s) a killed writer left)\n")
    assert not debris[0].exists()
    # what stays: nothing at the first rename, the blob that took its name before the second
    new = sorted(set(tree(zoo)) - set(before))
    assert len(new) == dies_at - 1
    assert all(re.fullmatch(rf"softmax/{store.BLOBS}/[0-9a-f]{{64}}\.py\.xz", k) for k in new)

    # the next promotion clears a killed writer's leftovers before it writes its own
    (op_dir / store.BLOBS / ".tmp-0123456789abcdef-00ff00ff").write_bytes(b"half a blob")
    (op_dir / ".tmp-1.1.0-abcd").mkdir()
    (op_dir / ".tmp-1.1.0-abcd" / store.MANIFEST).write_text("{")
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    assert sorted(op_dir.glob(f"{store.BLOBS}/.tmp-*")) + sorted(op_dir.glob(".tmp-*")) == []
    assert load(zoo, "1.1.0", F32).TAG == "f"


# ---------------------------------------------------------------------------------------------
# compressed blobs: what they hold, and what a damaged one gets


def test_a_blob_is_its_source_xz_compressed_and_named_by_the_sources_sha256(tmp_path: Path):
    zoo = tmp_path / "zoo"
    # repetitive, as rendered kernels are
    source = kernel_source("a") + "".join(f"# unrolled step {i} of a kernel\n" for i in range(3000))
    store.promote("softmax", source, make_record(), zoo_dir=zoo)
    entry = store.find_entry("softmax", "1.0.0", [zoo])
    digest = entry.manifest["files"][BF16]
    assert entry.manifest["schema"] == 3 and digest == store.sha256_bytes(source.encode())
    blob = zoo / "softmax" / "blobs" / f"{digest}.py.xz"
    assert kernel_path(entry.path, BF16) == blob
    raw = blob.read_bytes()
    assert raw.startswith(b"\xfd7zXZ\x00") and lzma.decompress(raw) == source.encode()
    assert len(raw) * 20 < len(source)
    # its header asks a reader for little memory (preset 9 alone would name a 64 MiB dictionary)
    assert lzma.LZMADecompressor(memlimit=2 << 20).decompress(raw) == source.encode()

    assert store.read_entry_file(entry.path, entry.manifest, BF16) == source.encode()
    assert store.check_files(entry.path, entry.manifest) == [{
        "name": BF16, "path": str(blob.resolve()), "sha256": digest, "actual": digest,
        "error": None, "ok": True,
    }]
    module = load(zoo, "1.0.0", BF16)
    assert module.TAG == "a" and inspect.getsource(module) == source
    bundle.export_entry(entry, tmp_path / "bundle.json")
    assert json.loads((tmp_path / "bundle.json").read_text())["files"] == {BF16: source}


def _damaged(raw: bytes, how: str) -> bytes:
    if how == "truncated":
        return raw[: len(raw) // 2]
    if how == "empty":
        return b""
    if how == "a flipped byte":
        middle = len(raw) // 2
        return raw[:middle] + bytes([raw[middle] ^ 0x55]) + raw[middle + 1:]
    if how == "plain source":
        return lzma.decompress(raw)
    if how == "bytes after the stream":
        return raw + b"TAG = 'appended'\n"
    if how == "two streams":
        return raw + lzma.compress(b"TAG = 'second'\n")
    raise AssertionError(how)


@pytest.mark.parametrize("how,problem", [
    ("truncated", "is a truncated xz stream"),
    ("empty", "is a truncated xz stream"),
    ("a flipped byte", "is not a valid xz stream"),
    ("plain source", "is not a valid xz stream (Input format not supported by decoder)"),
    ("bytes after the stream", "has bytes after its xz stream"),
    ("two streams", "has bytes after its xz stream"),
])
def test_a_damaged_blob_is_an_integrity_error_naming_it_never_an_lzma_error(
    tmp_path: Path, how: str, problem: str
):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    blob = kernel_path(zoo / "softmax" / "1.2.0", F32)
    blob.write_bytes(_damaged(blob.read_bytes(), how))
    entry = store.find_entry("softmax", "1.2.0", [zoo])
    refusals = [
        lambda: load(zoo, "1.2.0", F32),
        lambda: store.read_entry_files(entry.path, entry.manifest),
        lambda: kernel_zoo.load("softmax", "1.2.0", zoo=zoo),
        lambda: bundle.export_entry(entry, tmp_path / "bundle.json"),
        lambda: store.promote("softmax", kernel_source("x"), make_record(arch="sm_80"),
                              zoo_dir=zoo),
    ]
    for refused in refusals:
        with pytest.raises(ZooIntegrityError) as excinfo:
            refused()
        assert str(excinfo.value).startswith(f"{blob.resolve()} ({F32}): the kernel blob {problem}")
        assert excinfo.value.__cause__ is None and excinfo.value.__suppress_context__
    checks = {check["name"]: check for check in store.check_files(entry.path, entry.manifest)}
    assert checks[F32]["ok"] is False and checks[F32]["actual"] is None
    assert checks[F32]["error"].startswith(problem)
    assert checks[BF16]["ok"] is True
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0", "1.1.0", "1.2.0"]
    assert not (tmp_path / "bundle.json").exists()


def _asking_for_dictionary(raw: bytes, code: int) -> bytes:
    """`raw`, one xz stream of one LZMA2 block, with the dictionary size its block header names
    set to `code` (40: 4 GiB - 1) and the header's CRC32 made right: a well-formed stream that
    asks its reader for that much memory."""
    size = (raw[12] + 1) * 4  # the block header follows the 12-byte stream header
    header = bytearray(raw[12:12 + size])
    at = header.index(b"\x21\x01", 2) + 2  # LZMA2's filter id, then its 1-byte property
    assert header[at] <= 16  # the dictionary the store chose: 256 KiB or less here
    header[at] = code
    header[-4:] = zlib.crc32(bytes(header[:-4])).to_bytes(4, "little")
    return raw[:12] + bytes(header) + raw[12 + size:]


def test_a_blob_over_the_size_bound_is_refused_before_it_fills_memory(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    blob = kernel_path(zoo / "softmax" / "1.2.0", F32)
    intact = blob.read_bytes()
    shown = re.escape(f"{blob.resolve()} ({F32}): the kernel blob")
    bound = store.MAX_SOURCE_BYTES

    # a few KiB that expand past the bound: decompression stops at it
    blob.write_bytes(lzma.compress(b"#" * (bound + 1), preset=1))
    assert blob.stat().st_size < 1 << 20
    with pytest.raises(ZooIntegrityError, match=f"{shown} decompresses to more than {bound} "
                       "bytes"):
        load(zoo, "1.2.0", F32)
    # a header asking for a 4 GiB dictionary: refused by the decoder's memory limit
    blob.write_bytes(_asking_for_dictionary(intact, 40))
    with pytest.raises(ZooIntegrityError, match=f"{shown} is not a valid xz stream "
                       r"\(Memory usage limit"):
        load(zoo, "1.2.0", F32)
    # a blob file larger than the bound is not read past it
    blob.write_bytes(intact + b"\0" * bound)
    with pytest.raises(ZooIntegrityError, match=f"{shown} is larger than {bound} bytes"):
        load(zoo, "1.2.0", F32)
    blob.write_bytes(intact)
    assert load(zoo, "1.2.0", F32).TAG == "f"

    # and no source over the bound is stored
    with pytest.raises(ZooError, match=f"over the zoo's bound of {bound}"):
        store.promote("softmax", "x = 1\n" + "#" * bound, make_record(arch="sm_80"),
                      zoo_dir=zoo)
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0", "1.1.0", "1.2.0"]


# ---------------------------------------------------------------------------------------------
# reading schema 1


def test_schema_1_entries_still_load_and_a_promotion_on_top_writes_schema_3(tmp_path: Path):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    as_schema_1(zoo)
    old = zoo / "softmax" / "1.1.0"
    assert store.read_manifest(old)["schema"] == 1
    assert kernel_path(old, F32) == old / F32
    module = load(zoo, "1.1.0", F32)
    assert module.TAG == "f" and Path(module.__file__) == (old / F32).resolve()
    entry = store.find_entry("softmax", "1.1.0", [zoo])
    assert [c["path"] for c in store.check_files(entry.path, entry.manifest)] == [
        str((old / BF16).resolve()), str((old / F32).resolve())
    ]
    saved = (old / BF16).read_bytes()
    (old / BF16).write_text(kernel_source("A"))
    with pytest.raises(ZooIntegrityError, match=str((old / BF16).resolve())):
        load(zoo, "1.1.0", BF16)
    (old / BF16).write_bytes(saved)

    before = tree(zoo)
    store.promote("softmax", kernel_source("x"), make_record(arch="sm_80"), zoo_dir=zoo)
    new = zoo / "softmax" / "1.2.0"
    assert store.read_manifest(new)["schema"] == 3
    assert [p.name for p in new.iterdir()] == ["manifest.json"]
    # the carried files became compressed blobs; the schema-1 entries are as they were
    assert kernel_path(new, F32).parent == zoo / "softmax" / "blobs"
    assert kernel_path(new, F32).name.endswith(".py.xz")
    assert {k: v for k, v in tree(zoo).items() if k in before} == before
    assert load(zoo, "1.2.0", F32).TAG == "f" and load(zoo, "1.2.0", BF16).TAG == "a"


# ---------------------------------------------------------------------------------------------
# reading schema 2


def test_schema_2_entries_still_load_and_a_promotion_on_top_writes_schema_3(tmp_path: Path):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    as_schema_2(zoo)
    old = zoo / "softmax" / "1.1.0"
    manifest = store.read_manifest(old)
    plain = zoo / "softmax" / "blobs" / f"{manifest['files'][F32]}.py"
    assert manifest["schema"] == 2 and kernel_path(old, F32) == plain
    assert plain.read_bytes() == kernel_source("f").encode()
    module = load(zoo, "1.1.0", F32)
    # a plain blob's module runs under the blob's own name, as before schema 3
    assert module.TAG == "f" and Path(module.__file__) == plain.resolve()
    entry = store.find_entry("softmax", "1.1.0", [zoo])
    checks = store.check_files(entry.path, entry.manifest)
    assert [(c["path"], c["ok"], c["error"]) for c in checks] == [
        (str(kernel_path(old, BF16).resolve()), True, None), (str(plain.resolve()), True, None)
    ]
    saved = plain.read_bytes()
    plain.write_text(kernel_source("F"))
    with pytest.raises(ZooIntegrityError, match=f"{plain.resolve()} .{F32}.: sha256 "):
        load(zoo, "1.1.0", F32)
    plain.write_bytes(saved)

    before = tree(zoo)
    store.promote("softmax", kernel_source("x"), make_record(arch="sm_80"), zoo_dir=zoo)
    new = zoo / "softmax" / "1.2.0"
    assert store.read_manifest(new)["schema"] == 3
    # the carried files got compressed twins; the schema-2 entries and their blobs are as they were
    assert kernel_path(new, F32) == plain.with_name(plain.name + ".xz")
    assert {k: v for k, v in tree(zoo).items() if k in before} == before
    assert load(zoo, "1.2.0", F32).TAG == "f" and load(zoo, "1.1.0", F32).TAG == "f"
    assert load(zoo, "1.2.0", F32) is not load(zoo, "1.1.0", F32)  # one module per blob file


# ---------------------------------------------------------------------------------------------
# migrate


def promote_four(zoo: Path) -> tuple[dict, dict]:
    """promote_three's softmax entries and a layernorm 1.0.0: four entries, four distinct
    kernels. Returns each entry's manifest and its sources, by (op, version)."""
    promote_three(zoo)
    store.promote("layernorm", "x = 1\n", make_record(template="layernorm"), zoo_dir=zoo)
    entries = list(store.iter_entries([zoo]))
    manifests = {(e.op, e.version): e.manifest for e in entries}
    sources = {(e.op, e.version): store.read_entry_files(e.path, e.manifest) for e in entries}
    return manifests, sources


def all_four_migrated(zoo: Path, *, files_removed: int, blobs_removed: int) -> dict:
    """migrate's summary once it has converted promote_four's entries."""
    return {
        "zoo": str(zoo.resolve()),
        "entries": 4,
        "migrated": ["layernorm 1.0.0", "softmax 1.0.0", "softmax 1.1.0", "softmax 1.2.0"],
        "blobs_written": 4,
        "files_removed": files_removed,
        "blobs_removed": blobs_removed,
        "debris_removed": 0,
    }


def assert_migrated(zoo: Path, manifests: dict, sources: dict) -> None:
    """Each entry as promote wrote it (its manifest, key order and all: only its storage changed
    and back), its folder holding nothing but the manifest and its sources read from the op's
    four compressed blobs, no plain source left anywhere."""
    for (op, version), manifest in manifests.items():
        entry_dir = zoo / op / version
        assert store.read_manifest(entry_dir) == manifest
        assert list(store.read_manifest(entry_dir)) == list(manifest)
        assert [p.name for p in entry_dir.iterdir()] == ["manifest.json"]
        assert store.read_entry_files(entry_dir, manifest) == sources[(op, version)]
    assert list(zoo.rglob("*.py")) == [] and len(list(zoo.rglob("*.py.xz"))) == 4


def test_migrate_converts_every_schema_1_entry_and_a_second_run_changes_nothing(tmp_path: Path):
    zoo = tmp_path / "zoo"
    manifests, sources = promote_four(zoo)
    as_schema_1(zoo)
    assert len([p for p in zoo.rglob("*.py")]) == 6  # 1 + 2 + 2 + 1 files, 4 distinct

    summary = store.migrate(zoo)
    assert summary == all_four_migrated(zoo, files_removed=6, blobs_removed=0)
    assert_migrated(zoo, manifests, sources)
    assert load(zoo, "1.2.0", F32).TAG == "f"

    after = tree(zoo)
    again = store.migrate(zoo)
    assert again == {**summary, "migrated": [], "blobs_written": 0, "files_removed": 0}
    assert tree(zoo) == after


def test_migrate_refuses_a_modified_or_missing_file_leaving_that_entry_as_it_was(
    tmp_path: Path,
):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    as_schema_1(zoo)
    kernel = zoo / "softmax" / "1.1.0" / F32
    kernel.write_text(kernel_source("F"))
    before = tree(zoo)
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.migrate(zoo)
    assert f"{kernel.resolve()}: sha256 " in str(excinfo.value)
    assert "will not be migrated" in str(excinfo.value)
    # 1.0.0 came first and was converted; 1.1.0 and what follows it are untouched
    assert store.read_manifest(zoo / "softmax" / "1.0.0")["schema"] == 3
    for version in ("1.1.0", "1.2.0"):
        folder = f"softmax/{version}/"
        assert {k: v for k, v in tree(zoo).items() if k.startswith(folder)} == {
            k: v for k, v in before.items() if k.startswith(folder)
        }
    assert load(zoo, "1.2.0", F32).TAG == "f"  # schema 1, loads as it did (its own copy)

    kernel.unlink()
    with pytest.raises(ZooIntegrityError, match=f"{kernel.resolve()}: the kernel file is missing"):
        store.migrate(zoo)
    assert store.read_manifest(zoo / "softmax" / "1.1.0")["schema"] == 1

    kernel.write_text(kernel_source("f"))  # put right: the run finishes the rest
    summary = store.migrate(zoo)
    assert summary["migrated"] == ["softmax 1.1.0", "softmax 1.2.0"]
    assert summary["files_removed"] == 4
    assert load(zoo, "1.1.0", F32).TAG == "f" and list(zoo.rglob("*.py")) == []
    assert len(list(zoo.rglob("*.py.xz"))) == 3


def test_migrate_finishes_what_an_interrupted_run_left_and_every_state_loads(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    blobs = {p.name: p.read_bytes() for p in (zoo / "softmax" / "blobs").iterdir()}
    as_schema_1(zoo)

    # stopped after writing the blobs, before switching the manifests: schema 1, loads as such
    (zoo / "softmax" / "blobs").mkdir()
    for name, data in blobs.items():
        (zoo / "softmax" / "blobs" / name).write_bytes(data)
    entry_dir = zoo / "softmax" / "1.2.0"
    assert Path(load(zoo, "1.2.0", F32).__file__) == (entry_dir / F32).resolve()
    summary = store.migrate(zoo)
    assert summary["blobs_written"] == 0 and len(summary["migrated"]) == 3

    # stopped after switching a manifest, before deleting the copies (and a temp manifest
    # of a run stopped before its rename): schema 3, loads from the blob
    manifest = store.read_manifest(entry_dir)
    for name in manifest["files"]:
        (entry_dir / name).write_bytes(stored_source(kernel_path(entry_dir, name)))
    (entry_dir / ".manifest.json.0a1b2c3d.tmp").write_text("{")
    store.clear_loaded()
    module = load(zoo, "1.2.0", F32)
    assert Path(module.__file__).parent == kernel_path(entry_dir, F32).parent.resolve()
    summary = store.migrate(zoo)
    assert (summary["migrated"], summary["files_removed"]) == ([], 2)
    assert [p.name for p in entry_dir.iterdir()] == ["manifest.json"]

    # a copy left there that is not the verified file is refused, not deleted
    (entry_dir / BF16).write_text("TAG = 'other'\n")
    with pytest.raises(ZooIntegrityError, match=str((entry_dir / BF16).resolve())):
        store.migrate(zoo)
    assert (entry_dir / BF16).read_text() == "TAG = 'other'\n"
    assert load(zoo, "1.2.0", BF16).TAG == "b"  # the entry reads its blob, never that copy


def everything_loads(zoo: Path) -> dict[tuple[str, str], str]:
    """(version, file) -> the TAG of its module, for every file of every softmax entry."""
    store.clear_loaded()
    tags = {}
    for entry in store.iter_entries([zoo], op="softmax"):
        assert isinstance(entry, store.Entry)
        store.read_entry_files(entry.path, entry.manifest)
        for config in entry.manifest["configs"]:
            module = store.load_kernel(entry.path, config, entry.manifest)
            tags[(entry.version, config["file"])] = module.TAG
    return tags


def contents(zoo: Path) -> dict[str, bytes]:
    return {name: data for name, (data, _) in tree(zoo).items()}


def test_migrate_converts_every_schema_2_entry_and_then_removes_the_plain_blobs(tmp_path: Path):
    zoo = tmp_path / "zoo"
    manifests, sources = promote_four(zoo)
    promoted = contents(zoo)
    as_schema_2(zoo)
    assert len(list(zoo.rglob("*.py"))) == 4 and list(zoo.rglob("*.py.xz")) == []

    summary = store.migrate(zoo)
    assert summary == all_four_migrated(zoo, files_removed=0, blobs_removed=4)
    assert_migrated(zoo, manifests, sources)
    # byte for byte what promote wrote in the first place
    assert contents(zoo) == promoted
    assert load(zoo, "1.2.0", F32).TAG == "f"

    after = tree(zoo)
    again = store.migrate(zoo)
    assert again == {**summary, "migrated": [], "blobs_written": 0, "blobs_removed": 0}
    assert tree(zoo) == after


def _write_manifest(entry_dir: Path, schema: int) -> None:
    manifest = {**store.read_manifest(entry_dir), "schema": schema}
    (entry_dir / store.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


@pytest.mark.parametrize("stopped", [
    "after writing the compressed blobs",
    "after switching one manifest",
    "after switching every manifest",
    "after removing one plain blob",
])
def test_migrate_of_schema_2_finishes_what_an_interrupted_run_left(tmp_path: Path, stopped: str):
    """Each state a run stopped at (by a crash, between two of its steps) loads, and running it
    again finishes the migration: the zoo a whole run leaves, byte for byte."""
    done = tmp_path / "done"
    promote_three(done)
    compressed = {p.name: p.read_bytes() for p in (done / "softmax" / "blobs").iterdir()}
    as_schema_2(done)
    zoo = tmp_path / "zoo"
    shutil.copytree(done, zoo)
    expected_tags = everything_loads(done)
    store.migrate(done)
    blobs = zoo / "softmax" / "blobs"
    plain = sorted(blobs.iterdir())

    for name, data in compressed.items():
        (blobs / name).write_bytes(data)
    if stopped != "after writing the compressed blobs":
        _write_manifest(zoo / "softmax" / "1.0.0", 3)
        # and a temp manifest of a run stopped before its rename
        (zoo / "softmax" / "1.1.0" / ".manifest.json.0a1b2c3d.tmp").write_text("{")
    if stopped in ("after switching every manifest", "after removing one plain blob"):
        for version in ("1.1.0", "1.2.0"):
            _write_manifest(zoo / "softmax" / version, 3)
    if stopped == "after removing one plain blob":
        plain[0].unlink()
    assert everything_loads(zoo) == expected_tags

    summary = store.migrate(zoo)
    assert summary["blobs_written"] == 0 and summary["files_removed"] == 0
    assert summary["blobs_removed"] == 3 - (stopped == "after removing one plain blob")
    assert len(summary["migrated"]) == {"after writing the compressed blobs": 3,
                                        "after switching one manifest": 2}.get(stopped, 0)
    assert contents(zoo) == contents(done)
    assert everything_loads(zoo) == expected_tags


def test_migrate_removes_a_plain_blob_only_once_its_compressed_twin_checks_out(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    as_schema_2(zoo)
    blobs = zoo / "softmax" / "blobs"
    plain = kernel_path(zoo / "softmax" / "1.0.0", BF16)  # "a", named by 1.0.0 and 1.1.0
    twin = plain.with_name(plain.name + ".xz")
    for bad_twin in (b"not xz at all", lzma.compress(kernel_source("A").encode())):
        twin.write_bytes(bad_twin)
        with pytest.raises(ZooIntegrityError, match=f"{twin.resolve()}: the blob "):
            store.migrate(zoo)
        # the first entry that names it is where the run stopped, untouched and loadable
        assert store.read_manifest(zoo / "softmax" / "1.0.0")["schema"] == 2
        assert plain.exists() and twin.read_bytes() == bad_twin
        assert load(zoo, "1.0.0", BF16).TAG == "a"
    twin.unlink()

    # plain blobs no entry names: one holding what its name says is compressed like the rest;
    # one that does not is left as it is, and neither stops the run
    leftover = kernel_source("left over").encode()
    (blobs / f"{store.sha256_bytes(leftover)}.py").write_bytes(leftover)
    misnamed = blobs / f"{'0' * 64}.py"
    misnamed.write_text("TAG = 'misnamed'\n")
    summary = store.migrate(zoo)
    assert summary["migrated"] == ["softmax 1.0.0", "softmax 1.1.0", "softmax 1.2.0"]
    assert (summary["blobs_written"], summary["blobs_removed"]) == (4, 4)
    assert sorted(p.name for p in blobs.iterdir()) == sorted(
        [misnamed.name] + [f"{digest}.py.xz" for digest in (
            *store.read_manifest(zoo / "softmax" / "1.2.0")["files"].values(),
            store.read_manifest(zoo / "softmax" / "1.0.0")["files"][BF16],
            store.sha256_bytes(leftover),
        )]
    )
    assert stored_source(blobs / f"{store.sha256_bytes(leftover)}.py.xz") == leftover
    assert misnamed.read_text() == "TAG = 'misnamed'\n"
    assert everything_loads(zoo) == {("1.0.0", BF16): "a", ("1.1.0", BF16): "a",
                                     ("1.1.0", F32): "f", ("1.2.0", BF16): "b",
                                     ("1.2.0", F32): "f"}


def test_migrate_needs_a_zoo_folder(tmp_path: Path):
    with pytest.raises(ZooError, match=f"no such zoo folder: {tmp_path / 'nowhere'}"):
        store.migrate(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    assert store.migrate(tmp_path / "empty")["entries"] == 0


# ---------------------------------------------------------------------------------------------
# bundles


def test_bundles_move_entries_between_zoos_of_either_schema(tmp_path: Path):
    source = tmp_path / "source"
    promote_three(source)
    entry = store.find_entry("softmax", "1.1.0", [source])
    out = tmp_path / "softmax-1.1.0.json"
    assert bundle.export_entry(entry, out)["files"] == [BF16, F32]
    data = json.loads(out.read_text())
    assert data["manifest"] == entry.manifest and data["manifest"]["schema"] == 3
    assert data["files"][F32] == kernel_source("f")

    target = tmp_path / "target"
    result = bundle.import_bundle(out, target)
    assert result["status"] == "imported"
    imported = target / "softmax" / "1.1.0"
    assert store.read_manifest(imported) == entry.manifest
    assert [p.name for p in imported.iterdir()] == ["manifest.json"]
    assert load(target, "1.1.0", F32).TAG == "f"
    assert bundle.import_bundle(out, target)["status"] == "identical"

    # into a zoo that holds other versions: the blob both share is reused, not written again
    first = tmp_path / "softmax-1.0.0.json"
    bundle.export_entry(store.find_entry("softmax", "1.0.0", [source]), first)
    before = {p.name: p.stat().st_mtime_ns for p in (target / "softmax" / "blobs").iterdir()}
    assert bundle.import_bundle(first, target)["status"] == "imported"
    assert {p.name: p.stat().st_mtime_ns for p in (target / "softmax" / "blobs").iterdir()} == (
        before
    )

    for schema, rewrite in ((1, as_schema_1), (2, as_schema_2)):
        # a zoo holding the same entry as schema 1 or 2 already has it: identical, left as it is
        old_zoo = tmp_path / f"old{schema}"
        shutil.copytree(source, old_zoo)
        rewrite(old_zoo)
        old_tree = tree(old_zoo)
        assert bundle.import_bundle(out, old_zoo)["status"] == "identical"
        assert tree(old_zoo) == old_tree

        # a bundle such a zoo exports (not yet migrated) imports as schema 3
        old_bundle = tmp_path / f"old{schema}.json"
        old_entry = store.find_entry("softmax", "1.1.0", [old_zoo])
        bundle.export_entry(old_entry, old_bundle)
        assert json.loads(old_bundle.read_text())["manifest"] == {**entry.manifest,
                                                                  "schema": schema}
        fresh = tmp_path / f"fresh{schema}"
        assert bundle.import_bundle(old_bundle, fresh)["status"] == "imported"
        assert store.read_manifest(fresh / "softmax" / "1.1.0") == entry.manifest
        assert bundle.import_bundle(out, fresh)["status"] == "identical"
        assert bundle.import_bundle(old_bundle, target)["status"] == "identical"

    # the same version with other content is still a conflict, whatever the schema
    other = {**entry.manifest, "schema": 1, "created": "2020-01-01T00:00:00+00:00"}
    files = store.read_entry_files(entry.path, entry.manifest)
    with pytest.raises(ZooConflictError, match="already holds softmax 1.1.0 with other content"):
        store.import_entry(other, files, zoo_dir=target, source="test")
    assert os.listdir(target / "softmax" / "1.1.0") == ["manifest.json"]


# ---------------------------------------------------------------------------------------------
# Triton: a kernel's source, for @triton.jit, from a blob that holds it compressed

JIT_KERNEL = textwrap.dedent(
    """\
    import torch
    import triton
    import triton.language as tl

    TAG = "jit"


    @triton.jit
    def _twice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0, mask=mask)


    def launch_softmax(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        _twice_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
        return out
    """
)
JIT_FUNCTION = JIT_KERNEL[JIT_KERNEL.index("@triton.jit"):JIT_KERNEL.index("\n\n\ndef ") + 1]


def launches(module) -> None:
    """The module's Triton kernel runs (compiled for a GPU where there is one, else in Triton's
    interpreter, as conftest sets it) and doubles its input."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.arange(100, dtype=torch.float32, device=device)
    torch.testing.assert_close(module.launch_softmax(x), x * 2.0)


@pytest.mark.parametrize("schema", [2, 3])
def test_a_triton_kernel_runs_and_inspect_gets_its_source(tmp_path: Path, schema: int):
    zoo = tmp_path / "zoo"
    store.promote("softmax", JIT_KERNEL, make_record(), zoo_dir=zoo)
    if schema == 2:
        as_schema_2(zoo)
    blob = kernel_path(zoo / "softmax" / "1.0.0", BF16).resolve()
    module = load(zoo, "1.0.0", BF16)
    if schema == 3:
        # no file holds the source as it is: the module's name for it is none on disk
        assert Path(module.__file__) == blob.with_name(blob.name.removesuffix(".py.xz") + ".xz.py")
        assert not Path(module.__file__).exists()
    else:
        assert Path(module.__file__) == blob
    launches(module)
    assert inspect.getsource(module._twice_kernel.fn) == JIT_FUNCTION
    assert inspect.getsource(module) == JIT_KERNEL
    # what linecache held is gone: the loader (schema 3) or the file (schema 2) serves it again
    linecache.clearcache()
    assert inspect.getsource(module._twice_kernel.fn) == JIT_FUNCTION
    assert inspect.getsourcelines(module._twice_kernel.fn)[1] == JIT_KERNEL[
        :JIT_KERNEL.index("@triton.jit")].count("\n") + 1


def test_a_compressed_blobs_module_never_takes_its_source_from_a_plain_blob_beside_it(
    tmp_path: Path,
):
    """A schema-2 zoo promoted on top of holds both blobs of a carried kernel, the plain one its
    schema-2 entries read and the compressed twin of the schema-3 entry. The schema-3 module's
    source is its own verified text, even where the plain blob was changed since."""
    zoo = tmp_path / "zoo"
    store.promote("softmax", JIT_KERNEL, make_record(), zoo_dir=zoo)
    as_schema_2(zoo)
    store.promote("softmax", kernel_source("f"), make_record(dtype="float32"), zoo_dir=zoo)
    plain = kernel_path(zoo / "softmax" / "1.0.0", BF16)
    assert kernel_path(zoo / "softmax" / "1.1.0", BF16) == plain.with_name(plain.name + ".xz")
    plain.write_text(JIT_KERNEL.replace("* 2.0", "* 3.0"))

    module = load(zoo, "1.1.0", BF16)
    launches(module)
    linecache.clearcache()
    assert inspect.getsource(module._twice_kernel.fn) == JIT_FUNCTION
    with pytest.raises(ZooIntegrityError, match=f"{plain.resolve()} .{BF16}.: sha256 "):
        load(zoo, "1.0.0", BF16)
