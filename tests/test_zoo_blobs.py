"""Schema 2: each kernel once per op as `<op>/blobs/<sha256>.py`, entry folders holding only their
manifest; schema-1 entries still read; `store.migrate`; bundles between zoos of either schema."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_zoo import kernel_path, kernel_source, make_record

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
# writing schema 2


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
    blobs = sorted(f"softmax/blobs/{digest}.py" for digest in set(newest["files"].values()))
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
    blob.write_text(kernel_source("A"))

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
    assert checks[BF16]["actual"] == store.sha256_bytes(blob.read_bytes())
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
    forged = zoo / "softmax" / "blobs" / f"{store.sha256_bytes(source.encode())}.py"
    forged.write_text("TAG = 'forged'\n")
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.promote("softmax", source, make_record(dtype="float32"), zoo_dir=zoo)
    assert str(forged.resolve()) in str(excinfo.value)
    assert "not to its name" in str(excinfo.value)
    assert forged.read_text() == "TAG = 'forged'\n"
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0"]

    # import: the bundle's bytes are right, the target's blob of that name is not
    entry = store.find_entry("softmax", "1.0.0", [zoo])
    files = store.read_entry_files(entry.path, entry.manifest)
    target = tmp_path / "target"
    bad = target / "softmax" / "blobs" / f"{entry.manifest['files'][BF16]}.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("TAG = 'forged'\n")
    with pytest.raises(ZooIntegrityError, match=str(bad.resolve())):
        store.import_entry(entry.manifest, files, zoo_dir=target, source="test")
    assert bad.read_text() == "TAG = 'forged'\n"
    assert sorted(p.name for p in (target / "softmax").iterdir()) == ["blobs"]

    # a blob that is right (one an interrupted promotion left) is simply reused
    forged.write_text(source)
    store.promote("softmax", source, make_record(dtype="float32"), zoo_dir=zoo)
    assert load(zoo, "1.1.0", F32).TAG == "f"


def test_the_blobs_folder_is_never_taken_for_a_version(tmp_path: Path, capsys):
    from test_zoo import run_cli

    zoo = tmp_path / "zoo"
    (zoo / "softmax" / "blobs").mkdir(parents=True)
    (zoo / "softmax" / "blobs" / f"{'0' * 64}.py").write_text("x = 1\n")
    assert store.list_entries([zoo]) == []
    with pytest.raises(ZooError, match="ops there: none"):
        store.find_entry("softmax", zoo_dirs=[zoo])
    promote_three(zoo)
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0", "1.1.0", "1.2.0"]
    assert store.find_config("softmax", "sm_90", "bfloat16", [zoo])[2].name == "1.2.0"
    code, out, _ = run_cli(["zoo", "list", "--json", "--zoo", str(zoo)], capsys)
    assert code == 0 and [e["version"] for e in json.loads(out)] == ["1.0.0", "1.1.0", "1.2.0"]


# ---------------------------------------------------------------------------------------------
# reading schema 1


def test_schema_1_entries_still_load_and_a_promotion_on_top_writes_schema_2(tmp_path: Path):
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
    assert store.read_manifest(new)["schema"] == 2
    assert [p.name for p in new.iterdir()] == ["manifest.json"]
    # the carried files became blobs; the schema-1 entries are as they were
    assert kernel_path(new, F32).parent == zoo / "softmax" / "blobs"
    assert {k: v for k, v in tree(zoo).items() if k in before} == before
    assert load(zoo, "1.2.0", F32).TAG == "f" and load(zoo, "1.2.0", BF16).TAG == "a"


# ---------------------------------------------------------------------------------------------
# migrate


def test_migrate_converts_every_schema_1_entry_and_a_second_run_changes_nothing(tmp_path: Path):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    store.promote("layernorm", "x = 1\n", make_record(template="layernorm"), zoo_dir=zoo)
    entries = list(store.iter_entries([zoo]))
    manifests = {(e.op, e.version): e.manifest for e in entries}
    sources = {(e.op, e.version): store.read_entry_files(e.path, e.manifest) for e in entries}
    as_schema_1(zoo)
    assert len([p for p in zoo.rglob("*.py")]) == 6  # 1 + 2 + 2 + 1 files, 4 distinct

    summary = store.migrate(zoo)
    assert summary == {
        "zoo": str(zoo.resolve()),
        "entries": 4,
        "migrated": ["layernorm 1.0.0", "softmax 1.0.0", "softmax 1.1.0", "softmax 1.2.0"],
        "blobs_written": 4,
        "files_removed": 6,
    }
    for (op, version), manifest in manifests.items():
        entry_dir = zoo / op / version
        # the manifest promote wrote, key order and all: only its storage changed and back
        assert store.read_manifest(entry_dir) == manifest
        assert list(store.read_manifest(entry_dir)) == list(manifest)
        assert [p.name for p in entry_dir.iterdir()] == ["manifest.json"]
        assert store.read_entry_files(entry_dir, manifest) == sources[(op, version)]
    assert len(list(zoo.rglob("*.py"))) == 4
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
    assert store.read_manifest(zoo / "softmax" / "1.0.0")["schema"] == 2
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
    assert load(zoo, "1.1.0", F32).TAG == "f" and len(list(zoo.rglob("*.py"))) == 3


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
    # of a run stopped before its rename): schema 2, loads from the blob
    manifest = store.read_manifest(entry_dir)
    for name in manifest["files"]:
        shutil.copyfile(kernel_path(entry_dir, name), entry_dir / name)
    (entry_dir / ".manifest.json.0a1b2c3d.tmp").write_text("{")
    store.clear_loaded()
    module = load(zoo, "1.2.0", F32)
    assert Path(module.__file__) == kernel_path(entry_dir, F32).resolve()
    summary = store.migrate(zoo)
    assert (summary["migrated"], summary["files_removed"]) == ([], 2)
    assert [p.name for p in entry_dir.iterdir()] == ["manifest.json"]

    # a copy left there that is not the verified file is refused, not deleted
    (entry_dir / BF16).write_text("TAG = 'other'\n")
    with pytest.raises(ZooIntegrityError, match=str((entry_dir / BF16).resolve())):
        store.migrate(zoo)
    assert (entry_dir / BF16).read_text() == "TAG = 'other'\n"
    assert load(zoo, "1.2.0", BF16).TAG == "b"  # the entry reads its blob, never that copy


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
    assert data["manifest"] == entry.manifest and data["manifest"]["schema"] == 2
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

    # a zoo holding the same entry as schema 1 already has it: identical, left as it is
    old_zoo = tmp_path / "old"
    shutil.copytree(source, old_zoo)
    as_schema_1(old_zoo)
    old_tree = tree(old_zoo)
    assert bundle.import_bundle(out, old_zoo)["status"] == "identical"
    assert tree(old_zoo) == old_tree

    # a schema-1 bundle (exported by a zoo not yet migrated) imports as schema 2
    old_bundle = tmp_path / "old.json"
    old_entry = store.find_entry("softmax", "1.1.0", [old_zoo])
    bundle.export_entry(old_entry, old_bundle)
    assert json.loads(old_bundle.read_text())["manifest"] == {**entry.manifest, "schema": 1}
    fresh = tmp_path / "fresh"
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
