"""`kzoo zoo show|diff|verify|export|import`: on copies of the shipped entries and on small zoos.

`verify` really runs the kernels: in Triton's interpreter here, on the GPU on the device machine.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import copy_entry, of_this_run, run_kzoo
from test_zoo import (
    REAL_SHIPPED_ZOO,
    kernel_path,
    kernel_source,
    make_record,
    run_cli,
    store_source,
    stored_source,
)
from test_zoo_blobs import as_schema_1, as_schema_2, promote_three

from agent import zoo_task
from kernel_zoo import _home, bundle, store

SHIPPED_FILES = {
    "softmax_sm_90_bfloat16.py": "ea737c41ad88c8dd0df222bc095a69e4e357c5cc329ee1482af82466ec524b3c",
    "softmax_sm_90_float32.py": "549f271c2b5a2916bcefc53936832da9e946e74869ffb09de48733a00fe16760",
}


@pytest.fixture(autouse=True)
def _isolated(isolated_zoo):
    """Every test here runs against zoos under tmp_path (conftest.isolated_zoo)."""


@pytest.fixture
def shipped_copy(tmp_path: Path) -> Path:
    """A zoo folder holding a byte-for-byte copy of the shipped softmax entries 1.0.0 and 1.1.0
    and their blobs (the versions these tests describe; later shipped versions do not change
    them)."""
    zoo = tmp_path / "shipped_copy"
    for version in ("1.0.0", "1.1.0"):
        copy_entry(REAL_SHIPPED_ZOO, "softmax", version, zoo)
    return zoo


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code, out, err = run_cli(argv, capsys)
    return code, json.loads(out) if out else None, err


def flip_byte(path: Path, old: bytes, new: bytes) -> None:
    """Edit the source a stored kernel file holds, storing it back as it was stored (a
    compressed blob stays a well-formed one): only the hash check can tell."""
    data = stored_source(path)
    assert data.count(old) >= 1
    store_source(path, data.replace(old, new, 1))


# ---------------------------------------------------------------------------------------------
# show, diff


def test_show_json_is_the_newest_manifest_and_pins_with_version(shipped_copy: Path, capsys):
    code, shown, err = run_json(["zoo", "show", "softmax", "--json", "--zoo", str(shipped_copy)],
                                capsys)
    assert code == 0 and err == ""
    entry_dir = shipped_copy.resolve() / "softmax" / "1.1.0"
    assert shown == {
        "op": "softmax",
        "version": "1.1.0",
        "layer": "custom",
        "zoo": str(shipped_copy.resolve()),
        "path": str(entry_dir),
        "manifest": json.loads((entry_dir / "manifest.json").read_text()),
    }
    assert shown["manifest"]["files"] == SHIPPED_FILES

    code, shown, _ = run_json(
        ["zoo", "show", "softmax", "--version", "1.0.0", "--json", "--zoo", str(shipped_copy)],
        capsys,
    )
    assert code == 0 and shown["version"] == "1.0.0"
    assert [c["dtype"] for c in shown["manifest"]["configs"]] == ["bfloat16"]


def test_show_text_has_configs_params_timings_and_environment(shipped_copy: Path, capsys):
    code, out, _ = run_cli(["zoo", "show", "softmax", "--zoo", str(shipped_copy)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"softmax 1.1.0 (custom) {shipped_copy.resolve() / 'softmax' / '1.1.0'}"
    assert "config sm_90/float32/any -> softmax_sm_90_float32.py" in lines
    assert any(
        line.startswith("  params       single_pass_max=32768 tile_elems=8192")
        and "keep_in_l2=false" in line
        for line in lines
    )
    assert (
        "  verdict      accepted (gpu, float32): 0.3125 ms over 5 shape(s), 1.35x eager, "
        "1.52x torch.compile, 70% of copy bandwidth (4250 GB/s)"
    ) in lines
    assert (
        "    batch_size=256 dim=128256: correct, 0.1189 ms (eager 0.1388, compile 0.1573), "
        "2208 GB/s"
    ) in lines
    assert any(
        line.startswith("  environment  gpu=NVIDIA H200 arch=sm_90")
        and "driver=580.159.04 cuda=13.0" in line
        for line in lines
    )
    for name, digest in SHIPPED_FILES.items():
        assert any(line.split() == [name, "sha256", digest] for line in lines)


def test_diff_of_the_shipped_versions(shipped_copy: Path, capsys):
    argv = ["zoo", "diff", "softmax", "1.0.0", "1.1.0", "--zoo", str(shipped_copy)]
    code, diff, _ = run_json([*argv, "--json"], capsys)
    assert code == 0
    assert (diff["old"]["version"], diff["new"]["version"]) == ("1.0.0", "1.1.0")
    assert diff["configs"] == {
        "added": ["sm_90/float32/any"],
        "removed": [],
        "changed": {},
        "unchanged": ["sm_90/bfloat16/any"],
    }
    assert diff["files"] == {
        "added": {"softmax_sm_90_float32.py": SHIPPED_FILES["softmax_sm_90_float32.py"]},
        "removed": {},
        "changed": {},
    }
    code, out, _ = run_cli(argv, capsys)
    assert code == 0 and out.splitlines() == [
        "softmax 1.0.0 (custom) -> 1.1.0 (custom)",
        "files",
        f"  + softmax_sm_90_float32.py  {SHIPPED_FILES['softmax_sm_90_float32.py']}",
        "config sm_90/float32/any: added",
        "config sm_90/bfloat16/any: unchanged",
    ]


def test_diff_reports_params_verdict_environment_and_file_hash_changes(tmp_path: Path, capsys):
    zoo = tmp_path / "zoo"
    old = make_record(
        verdict={"accepted": True, "ms": 0.5, "shapes": [{"shape": {"dim": 8}, "ms": 0.5}]}
    )
    new = make_record(
        params={"BLOCK": 2048, "num_warps": 4},
        verdict={"accepted": True, "ms": 0.4, "shapes": [{"shape": {"dim": 8}, "ms": 0.4}]},
        environment={**old["environment"], "torch": "2.14.0"},
    )
    store.promote("softmax", kernel_source("a"), old, zoo_dir=zoo)
    store.promote("softmax", kernel_source("b"), new, zoo_dir=zoo)
    store.promote("softmax", kernel_source("c"), make_record(dtype="float32"), zoo_dir=zoo)
    manifests = [store.read_manifest(zoo / "softmax" / v) for v in ("1.0.0", "1.2.0")]
    name = "softmax_sm_90_bfloat16.py"
    old_sha, new_sha = (m["files"][name] for m in manifests)
    assert old_sha != new_sha

    argv = ["zoo", "diff", "softmax", "1.0.0", "1.2.0", "--zoo", str(zoo)]
    code, diff, _ = run_json([*argv, "--json"], capsys)
    assert code == 0
    assert diff["configs"]["added"] == ["sm_90/float32/any"]
    assert diff["configs"]["changed"] == {
        "sm_90/bfloat16/any": {
            "params": {"BLOCK": {"old": 1024, "new": 2048}},
            "verdict": {
                "ms": {"old": 0.5, "new": 0.4},
                "shapes[dim=8].ms": {"old": 0.5, "new": 0.4},
            },
            "environment": {"torch": {"old": "2.13.0", "new": "2.14.0"}},
            "file": {"old": {"name": name, "sha256": old_sha},
                     "new": {"name": name, "sha256": new_sha}},
        }
    }
    assert diff["files"]["changed"] == {name: {"old": old_sha, "new": new_sha}}
    code, out, _ = run_cli(argv, capsys)
    assert code == 0
    for line in (
        "config sm_90/bfloat16/any: changed",
        "  params.BLOCK: 1024 -> 2048",
        "  verdict.shapes[dim=8].ms: 0.5 -> 0.4",
        "  environment.torch: 2.13.0 -> 2.14.0",
        f"  file: {name} {old_sha[:12]} -> {name} {new_sha[:12]}",
        f"  ~ {name}  {old_sha} -> {new_sha}",
    ):
        assert line in out.splitlines()


@pytest.mark.parametrize(
    "argv,message",
    [
        (["show", "layernorm"], "no zoo entry for op 'layernorm' in "),
        (["show", "softmax", "--version", "3.0.0"], "softmax has no version 3.0.0 in "),
        (["diff", "softmax", "1.0.0", "1.7.0"], "softmax has no version 1.7.0 in "),
        (["export", "softmax", "--version", "x", "--out", "b.json"], "not a MAJOR.MINOR.PATCH"),
        (["verify", "layernorm"], "no zoo entry for op 'layernorm' in "),
        (["verify", "softmax", "--version", "9.0.0"], "softmax has no version 9.0.0 in "),
        (["verify", "--version", "1.0.0"], "--version needs OP"),
    ],
)
def test_usage_errors_exit_2_with_one_line(shipped_copy: Path, capsys, argv, message):
    code, out, err = run_cli(["zoo", *argv, "--zoo", str(shipped_copy)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"kzoo: error: {message}") and err.count("\n") == 1
    if "has no version" in message:
        assert err.rstrip().endswith("versions there: 1.0.0 (custom), 1.1.0 (custom)")


# ---------------------------------------------------------------------------------------------
# export, import


def test_export_import_round_trip(shipped_copy: Path, tmp_path: Path, capsys):
    out = tmp_path / "softmax-1.0.0.json"
    argv = ["zoo", "export", "softmax", "--version", "1.0.0", "--out", str(out)]
    code, summary, _ = run_json([*argv, "--json", "--zoo", str(shipped_copy)], capsys)
    assert code == 0
    assert summary["out"] == str(out.resolve()) and summary["files"] == [
        "softmax_sm_90_bfloat16.py"
    ]
    exported = out.read_bytes()
    data = json.loads(exported)
    assert (data["format"], data["bundle_version"]) == (bundle.FORMAT, bundle.BUNDLE_VERSION)
    source_dir = shipped_copy / "softmax" / "1.0.0"
    assert data["manifest"] == json.loads((source_dir / "manifest.json").read_text())
    # exporting again gives the same bytes: a bundle carries no date or host
    assert run_cli([*argv, "--zoo", str(shipped_copy)], capsys)[0] == 0
    assert out.read_bytes() == exported

    code, result, _ = run_json(["zoo", "import", str(out), "--json"], capsys)
    imported = _home.user_zoo() / "softmax" / "1.0.0"
    assert code == 0 and result["status"] == "imported"
    assert result["path"] == str(imported) and result["zoo"] == str(_home.user_zoo())
    assert [p.name for p in imported.iterdir()] == ["manifest.json"]  # schema 3: blobs apart
    assert stored_source(kernel_path(imported, "softmax_sm_90_bfloat16.py")) == stored_source(
        kernel_path(source_dir, "softmax_sm_90_bfloat16.py")
    )
    # the same manifest, stored as schema 3 whichever schema the bundle's was
    assert store.read_manifest(imported) == {**data["manifest"], "schema": 3}
    # the imported entry is what the layered zoo now serves, and it loads
    found = store.find_config("softmax", "sm_90", "bfloat16")
    assert found is not None and found[2] == imported
    assert callable(store.load_kernel(found[2], found[1], found[0]).launch_softmax)

    code, out_text, _ = run_cli(["zoo", "import", str(out)], capsys)
    assert code == 0
    assert out_text == f"softmax 1.0.0 is already at {imported}, identical\n"


def test_export_writes_into_a_fifo_in_place_and_refuses_a_folder(
    shipped_copy: Path, tmp_path: Path, capsys
):
    """A FIFO (or /dev/stdout, a terminal) is written in place: renaming a file over it would
    replace the node, and over /dev/null, for every user of the machine."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    argv = ["zoo", "export", "softmax", "--version", "1.0.0", "--zoo", str(shipped_copy)]
    code, out, _ = run_cli([*argv, "--out", str(fifo)], capsys)
    reader.join(timeout=30)
    assert code == 0 and f"-> {fifo} " in out
    assert json.loads(received[0])["manifest"]["version"] == "1.0.0"
    assert fifo.is_fifo()  # still the pipe, not a file named pipe

    code, _, err = run_cli([*argv, "--out", str(tmp_path)], capsys)
    assert code == 2  # a zoo or file error other than a hash mismatch or a refused import
    assert err.startswith(f"kzoo: error: {tmp_path.resolve()}: is a folder; name the bundle file")


def test_import_of_an_older_version_says_which_newer_one_it_hides(
    shipped_copy: Path, tmp_path: Path, capsys, monkeypatch
):
    """User zoo over shipped: an imported 1.0.0 is served before the shipped 1.1.0 for the
    arch/dtype pairs both have, which the import says rather than doing silently."""
    out = tmp_path / "softmax-1.0.0.json"
    assert run_cli(["zoo", "export", "softmax", "--version", "1.0.0", "--out", str(out),
                    "--zoo", str(shipped_copy)], capsys)[0] == 0
    monkeypatch.setattr(_home, "SHIPPED_ZOO", shipped_copy)
    code, result, err = run_json(["zoo", "import", str(out), "--json"], capsys)
    assert code == 0 and result["status"] == "imported"
    assert result["shadows"] == [{"layer": "shipped", "version": "1.1.0",
                                  "pairs": ["sm_90/bfloat16"]}]
    code, text, err = run_cli(["zoo", "import", str(out)], capsys)
    assert code == 0 and text.endswith(", identical\n")
    assert err == ("note: for sm_90/bfloat16, dispatch now serves this 1.0.0 instead of the "
                   f"shipped zoo's newer softmax 1.1.0 ({_home.user_zoo()} comes first)\n")
    # into a folder of its own (not a default layer): nothing to hide
    code, result, _ = run_json(["zoo", "import", str(out), "--json", "--zoo",
                                str(tmp_path / "own")], capsys)
    assert code == 0 and result["shadows"] == []


def test_import_refuses_non_finite_numbers_and_unknown_dtypes(
    shipped_copy: Path, tmp_path: Path, capsys
):
    out = tmp_path / "bundle.json"
    assert run_cli(["zoo", "export", "softmax", "--version", "1.0.0", "--out", str(out),
                    "--zoo", str(shipped_copy)], capsys)[0] == 0
    data = json.loads(out.read_text())
    for edit, said in [
        (lambda c: c["verdict"].update(speedup_vs_compile=float("nan")),
         "configs[0].verdict.speedup_vs_compile is not a finite number"),
        (lambda c: c["verdict"]["shapes"][1].update(ms=float("inf")),
         "configs[0].verdict.shapes[1].ms is not a finite number"),
        (lambda c: c.update(dtype="float8"),
         "configs[0]: dtype must be one of float32, bfloat16, float16, got 'float8'"),
    ]:
        bad = json.loads(json.dumps(data))
        edit(bad["manifest"]["configs"][0])
        out.write_text(json.dumps(bad))  # Python writes NaN and Infinity, as json.loads reads
        code, _, err = run_cli(["zoo", "import", str(out), "--zoo", str(tmp_path / "t")], capsys)
        assert code == 2 and f"{out}: manifest: {said}" in err, err
        assert not (tmp_path / "t").exists()


def test_import_refuses_a_tampered_bundle_naming_the_file(
    shipped_copy: Path, tmp_path: Path, capsys
):
    out = tmp_path / "bundle.json"
    assert run_cli(["zoo", "export", "softmax", "--out", str(out), "--zoo", str(shipped_copy)],
                   capsys)[0] == 0
    data = json.loads(out.read_text())
    name = "softmax_sm_90_float32.py"
    source = data["files"][name]
    assert "LOOP_WARPS = 8\n" in source
    data["files"][name] = source.replace("LOOP_WARPS = 8\n", "LOOP_WARPS = 4\n")
    out.write_text(json.dumps(data))

    target = tmp_path / "target"
    code, stdout, err = run_cli(["zoo", "import", str(out), "--zoo", str(target)], capsys)
    assert code == 1 and stdout == ""
    assert err.startswith(f"kzoo: error: {out}: {name}: sha256 ")
    assert f"does not match the manifest's {SHIPPED_FILES[name]}" in err
    assert "will not be imported" in err
    assert not target.exists()  # nothing written, not even the folder


def test_import_refuses_the_same_version_with_other_content(
    shipped_copy: Path, tmp_path: Path, capsys
):
    other = tmp_path / "other"
    store.promote("softmax", kernel_source("mine"), make_record(), zoo_dir=other)
    out = tmp_path / "mine.json"
    assert run_cli(["zoo", "export", "softmax", "--out", str(out), "--zoo", str(other)],
                   capsys)[0] == 0
    before = sorted((p.name, p.read_bytes()) for p in (shipped_copy / "softmax/1.0.0").iterdir())
    code, _, err = run_cli(["zoo", "import", str(out), "--zoo", str(shipped_copy)], capsys)
    assert code == 1
    assert err == (
        f"kzoo: error: {shipped_copy.resolve() / 'softmax' / '1.0.0'} already holds softmax "
        "1.0.0 with other content; entries are immutable, so it was not replaced\n"
    )
    after = sorted((p.name, p.read_bytes()) for p in (shipped_copy / "softmax/1.0.0").iterdir())
    assert after == before


@pytest.mark.parametrize(
    "content,message",
    [
        ("{not json", "not a zoo bundle (cannot read it as JSON"),
        ('{"format": "tar"}', 'not a zoo bundle (no "format": "kzoo-entry-bundle")'),
        ('{"format": "kzoo-entry-bundle", "bundle_version": 7}', "bundle_version 7 is not"),
    ],
)
def test_import_of_a_file_that_is_not_a_bundle_exits_2(tmp_path: Path, capsys, content, message):
    path = tmp_path / "thing.json"
    path.write_text(content)
    code, _, err = run_cli(["zoo", "import", str(path)], capsys)
    assert code == 2 and err.startswith(f"kzoo: error: {path}: {message}")
    code, _, err = run_cli(["zoo", "import", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "no such bundle file" in err


def test_import_of_a_bundle_missing_a_file_exits_2(shipped_copy: Path, tmp_path: Path, capsys):
    out = tmp_path / "bundle.json"
    run_cli(["zoo", "export", "softmax", "--out", str(out), "--zoo", str(shipped_copy)], capsys)
    data = json.loads(out.read_text())
    del data["files"]["softmax_sm_90_float32.py"]
    out.write_text(json.dumps(data))
    code, _, err = run_cli(["zoo", "import", str(out)], capsys)
    assert code == 2
    assert "files do not match the manifest (missing ['softmax_sm_90_float32.py']" in err


def test_export_refuses_a_tampered_entry(shipped_copy: Path, tmp_path: Path, capsys):
    name = "softmax_sm_90_float32.py"
    kernel = kernel_path(shipped_copy / "softmax" / "1.1.0", name)
    flip_byte(kernel, b"NUM_STAGES = 2", b"NUM_STAGES = 3")
    out = tmp_path / "bundle.json"
    code, _, err = run_cli(
        ["zoo", "export", "softmax", "--out", str(out), "--zoo", str(shipped_copy)], capsys
    )
    # a blob is named with the file it holds; a schema-1 file is that name already
    shown = str(kernel.resolve()) if kernel.name == name else f"{kernel.resolve()} ({name})"
    assert code == 1 and err.startswith(f"kzoo: error: {shown}: sha256 ")
    assert not out.exists()


def test_export_to_an_unwritable_place_names_the_file_given(shipped_copy: Path, tmp_path: Path,
                                                            capsys):
    out = Path("/proc/kzoo-bundle.json")  # a folder that exists but takes no new files (Linux)
    code, _, err = run_cli(
        ["zoo", "export", "softmax", "--out", str(out), "--zoo", str(shipped_copy)], capsys
    )
    assert code == 2, err
    assert err.startswith(f"kzoo: error: cannot write {out}: ") and ".tmp" not in err, err


# ---------------------------------------------------------------------------------------------
# verify


def test_verify_passes_on_the_shipped_entries_in_this_device(shipped_copy: Path, capsys):
    code, report, err = run_json(["zoo", "verify", "--json", "--zoo", str(shipped_copy)], capsys)
    assert code == 0, err
    assert report["ok"] is True and report["mode"] in ("interpreter", "gpu")
    assert [(e["version"], e["ok"]) for e in report["entries"]] == [
        ("1.0.0", True), ("1.1.0", True)
    ]
    files = {f["name"]: f for e in report["entries"] for f in e["files"]}
    assert {name: (f["sha256"], f["actual"], f["ok"]) for name, f in files.items()} == {
        name: (digest, digest, True) for name, digest in SHIPPED_FILES.items()
    }
    configs = [c for e in report["entries"] for c in e["configs"]]
    assert [(c["dtype"], c["status"]) for c in configs] == [
        ("bfloat16", "correct"), ("bfloat16", "correct"), ("float32", "correct")
    ]
    for config in configs:
        verdict = config["verdict"]
        assert verdict["accepted"] is True and verdict["mode"] == report["mode"]
        assert len(verdict["shapes"]) >= 4 and all(s["correct"] for s in verdict["shapes"])
        assert config["task_warning"] is None
        assert config["task_path"].endswith("tasks/softmax.py")
    # the byte-identical bf16 file carried into 1.1.0 is checked once, and says so
    assert configs[1]["same_as"] == "softmax 1.0.0 (custom) sm_90/bfloat16/any"
    assert "all good: 2 entries, 3 config(s)" in err


def test_verify_runs_only_the_configs_a_dtype_and_bucket_name(shipped_copy: Path, capsys):
    argv = ["zoo", "verify", "--json", "--zoo", str(shipped_copy), "--dtype", "float32",
            "--bucket", "any"]
    code, report, err = run_json(argv, capsys)
    assert code == 0, err
    configs = [(e["version"], c["dtype"], c["status"]) for e in report["entries"]
               for c in e["configs"]]
    assert configs == [("1.1.0", "float32", "correct")]
    # every file is still hashed
    assert sum(len(e["files"]) for e in report["entries"]) == len(SHIPPED_FILES) + 1
    assert "all good: 2 entries, 1 config(s)" in err
    code, out, err = run_cli(["zoo", "verify", "--zoo", str(shipped_copy), "--dtype", "float16"],
                             capsys)
    assert code == 2
    assert err.strip() == ("kzoo: error: no config matches --dtype float16; these "
                           "entries hold dtype/bucket bfloat16/any, float32/any")


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the CUDA C++ kernel runs")
def test_verify_skips_a_cuda_kernel_where_no_gpu_can_run_it(tmp_path: Path, capsys):
    """The shipped linear_bias_gelu 1.19.0 serves the H200 a CUDA C++ kernel. With no GPU it
    cannot run: not run (skipped), not WRONG (which made `zoo verify` exit 1, and a sweep exit 3,
    on every GPU-less machine)."""
    copy_entry(REAL_SHIPPED_ZOO, "linear_bias_gelu", "1.19.0", tmp_path / "zoo")
    argv = ["zoo", "verify", "linear_bias_gelu", "--dtype", "bfloat16", "--json", "--zoo",
            str(tmp_path / "zoo")]
    code, report, err = run_json(argv, capsys)
    assert code == 0 and report["ok"] is True, err
    configs = {c["file"]: c for e in report["entries"] for c in e["configs"]}
    cuda = configs["linear_bias_gelu_sm_90_bfloat16_nvidia-h200.py"]
    assert cuda["status"] == "skipped" and "runs only on a GPU" in cuda["reason"]
    assert "needs-gpu" in cuda["verdict"]["exploits"]
    assert [c["status"] for c in configs.values() if c is not cuda] == ["correct"]
    assert "not run (CUDA C++: it runs only on a GPU, and this machine has none)" in err
    assert "every kernel run correct; 1 not run (CUDA C++, which needs a GPU)" in err


def test_verify_newest_runs_each_ops_newest_version_only(shipped_copy: Path, capsys):
    argv = ["zoo", "verify", "--json", "--zoo", str(shipped_copy), "--newest", "--dtype",
            "float32"]
    code, report, err = run_json(argv, capsys)
    assert code == 0, err
    assert [(e["op"], e["version"]) for e in report["entries"]] == [("softmax", "1.1.0")]
    assert [c["status"] for e in report["entries"] for c in e["configs"]] == ["correct"]
    code, out, err = run_cli(["zoo", "verify", "softmax", "--newest", "--version", "1.0.0",
                              "--zoo", str(shipped_copy)], capsys)
    assert code == 2
    assert err.strip() == "kzoo: error: --version and --newest name different entries: give one"


def test_verify_fails_naming_the_file_when_a_kernel_byte_changes(shipped_copy: Path, capsys):
    kernel = kernel_path(shipped_copy / "softmax" / "1.0.0", "softmax_sm_90_bfloat16.py")
    flip_byte(kernel, b"LOOP_WARPS = 16", b"LOOP_WARPS = 32")
    argv = ["zoo", "verify", "softmax", "--version", "1.0.0", "--zoo", str(shipped_copy)]
    code, out, err = run_cli(argv, capsys)
    assert code == 1
    problem = (
        f"{kernel.resolve()}: sha256 {store.sha256_bytes(stored_source(kernel))} does not match "
        f"the manifest's {SHIPPED_FILES['softmax_sm_90_bfloat16.py']}"
    )
    assert f"  file softmax_sm_90_bfloat16.py: FAILED: {problem}" in out.splitlines()
    assert (
        "  sm_90/bfloat16/any: not run (its file softmax_sm_90_bfloat16.py failed the hash check)"
    ) in out.splitlines()
    assert err == f"kzoo: 1 failure(s):\n  softmax 1.0.0 (custom): {problem}\n"

    code, report, _ = run_json([*argv, "--json"], capsys)
    assert code == 1 and report["ok"] is False
    (entry,) = report["entries"]
    assert entry["files"][0]["ok"] is False and entry["configs"][0]["status"] == "skipped"


def test_verify_fails_naming_a_blob_that_is_no_xz_stream(tmp_path: Path, capsys):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=zoo)
    name = "softmax_sm_90_bfloat16.py"
    blob = kernel_path(zoo / "softmax" / "1.0.0", name)
    blob.write_bytes(stored_source(blob))  # the source itself, not compressed
    digest = store.read_manifest(zoo / "softmax" / "1.0.0")["files"][name]
    code, out, err = run_cli(["zoo", "verify", "--zoo", str(zoo)], capsys)
    assert code == 1
    problem = (f"{blob.resolve()}: not a valid xz stream (Input format not supported by "
               f"decoder) (manifest sha256 {digest})")
    assert f"  file {name}: FAILED: {problem}" in out.splitlines()
    assert f"  sm_90/bfloat16/any: not run (its file {name} failed the hash check)" in (
        out.splitlines()
    )
    assert err == f"kzoo: 1 failure(s):\n  softmax 1.0.0 (custom): {problem}\n"
    code, report, _ = run_json(["zoo", "verify", "--json", "--zoo", str(zoo)], capsys)
    (check,) = report["entries"][0]["files"]
    assert code == 1 and (check["actual"], check["ok"]) == (None, False)
    assert check["error"] == "is not a valid xz stream (Input format not supported by decoder)"


def test_verify_fails_a_wrong_kernel_and_a_missing_task_and_a_broken_manifest(
    tmp_path: Path, capsys
):
    zoo = tmp_path / "zoo"
    shipped_f32 = stored_source(kernel_path(REAL_SHIPPED_ZOO / "softmax/1.1.0",
                                            "softmax_sm_90_float32.py")).decode()
    wrong = shipped_f32.replace("    y = e * inv[:, None]\n", "    y = e * inv[:, None] * 1.01\n")
    assert wrong != shipped_f32
    # intact (its sha256 matches) and wrong: only running it can tell
    store.promote("softmax", wrong, make_record(dtype="float32"), zoo_dir=zoo)
    store.promote(
        "softmax", "x = 1\n",
        make_record(task={"name": "no_such_task", "sha256": "1" * 64}), zoo_dir=zoo,
    )
    broken = zoo / "layernorm" / "1.0.0"
    broken.mkdir(parents=True)
    (broken / "manifest.json").write_text("{}")

    code, report, err = run_json(["zoo", "verify", "--json", "--zoo", str(zoo)], capsys)
    assert code == 1 and report["ok"] is False
    broken_entry, v1, v11 = report["entries"]
    assert broken_entry == {
        "ok": False,
        "error": f"{broken.resolve() / 'manifest.json'}: missing field 'schema'",
    }
    (wrong_config,) = v1["configs"]
    assert wrong_config["status"] == "wrong" and wrong_config["verdict"]["accepted"] is False
    assert wrong_config["verdict"]["stage"] == "correctness"
    assert wrong_config["task_warning"].endswith(
        f"the entry was verified against {'0' * 64}; checking against the task as it is now"
    )
    statuses = {c["dtype"]: c for c in v11["configs"]}
    assert statuses["float32"]["status"] == "wrong"
    assert statuses["float32"]["same_as"] == "softmax 1.0.0 (custom) sm_90/float32/any"
    missing_task = statuses["bfloat16"]
    assert missing_task["status"] == "error"
    assert missing_task["reason"].startswith("cannot read the task ")
    assert "no_such_task.py" in missing_task["reason"]

    failures = err.split("kzoo: 4 failure(s):\n")[1].splitlines()
    assert failures[0] == f"  {broken.resolve() / 'manifest.json'}: missing field 'schema'"
    kernel_file = kernel_path(zoo / "softmax" / "1.0.0", "softmax_sm_90_float32.py").resolve()
    assert failures[1].startswith(
        f"  softmax 1.0.0 (custom) sm_90/float32/any ({kernel_file}): WRONG at correctness: "
    )
    assert failures[3].startswith("  softmax 1.1.0 (custom) sm_90/bfloat16/any (")


def test_verify_with_workers_runs_kernels_at_once_and_reports_what_one_at_a_time_does(
    shipped_copy: Path, capsys, monkeypatch
):
    """--workers N runs an entry's distinct kernels N at a time, each in its own process; the
    report (entry order, statuses, what was checked once) is what --workers 1 gives, and a wrong
    kernel among them is still caught."""
    shipped_f32 = kernel_path(shipped_copy / "softmax/1.1.0", "softmax_sm_90_float32.py")
    shipped_text = stored_source(shipped_f32).decode()
    wrong = shipped_text.replace("    y = e * inv[:, None]\n", "    y = e * inv[:, None] * 1.01\n")
    assert wrong != shipped_text
    store.promote("softmax", wrong, make_record(dtype="float32", shape_bucket="cols_le_1024"),
                  zoo_dir=shipped_copy)
    reports, reads = {}, []
    real_config_task = zoo_task.config_task
    monkeypatch.setattr(zoo_task, "config_task",
                        lambda *a, **k: (reads.append(a[0]["dtype"]), real_config_task(*a, **k))[1])
    for workers in ("1", "3"):
        argv = ["zoo", "verify", "softmax", "--newest", "--zoo", str(shipped_copy),
                "--workers", workers]
        reads.clear()
        code, report, err = run_json([*argv, "--json"], capsys)
        assert len(reads) == 3, reads  # each config's task read once, ahead or not
        assert code == 1 and report["ok"] is False, err
        reports[workers] = [(e["version"], c["dtype"], c["shape_bucket"], c["status"],
                             c.get("same_as"), c["verdict"]["stage"])
                            for e in report["entries"] for c in e["configs"]]
        progress = [line for line in err.splitlines() if line.startswith("  [")]
        if workers == "1":
            assert progress == []
        else:
            assert "  running 3 distinct kernel(s), 3 at a time" in err.splitlines()
            # one line as each ends, in the order they end
            assert [line.split("] ")[0] for line in progress] == ["  [1/3", "  [2/3", "  [3/3"]
            assert {line.split("] ", 1)[1] for line in progress} == {
                "softmax 1.2.0 (custom) sm_90/bfloat16/any: correct",
                "softmax 1.2.0 (custom) sm_90/float32/any: correct",
                "softmax 1.2.0 (custom) sm_90/float32/cols_le_1024: WRONG",
            }
    assert [row[:4] for row in reports["1"]] == [
        ("1.2.0", "bfloat16", "any", "correct"), ("1.2.0", "float32", "any", "correct"),
        ("1.2.0", "float32", "cols_le_1024", "wrong"),
    ]
    assert reports["3"] == reports["1"]
    with pytest.raises(SystemExit) as usage:
        run_cli(["zoo", "verify", "--workers", "0"], capsys)
    assert usage.value.code == 2
    assert "argument --workers: must be at least 1, got 0" in capsys.readouterr().err


def test_verify_with_workers_fails_a_hanging_kernel_at_its_timeout(shipped_copy: Path, capsys):
    """A kernel that never returns, checked beside others with --workers: its process is killed
    at --timeout and it fails as a timeout; the others are unaffected."""
    shipped_f32 = kernel_path(shipped_copy / "softmax/1.1.0", "softmax_sm_90_float32.py")
    doc = '    """Softmax over the last dimension of `x` (any rank)'
    source = stored_source(shipped_f32).decode()
    head, tail = source.split(doc)
    line_end = tail.index("\n") + 1
    hanging = head + doc + tail[:line_end] + "    while True:\n        pass\n" + tail[line_end:]
    store.promote("softmax", hanging, make_record(dtype="float32", shape_bucket="cols_le_1024"),
                  zoo_dir=shipped_copy)
    argv = ["zoo", "verify", "softmax", "--newest", "--zoo", str(shipped_copy), "--workers", "3",
            "--timeout", "20", "--json"]
    code, report, err = run_json(argv, capsys)
    assert code == 1 and report["ok"] is False, err
    assert [(c["dtype"], c["shape_bucket"], c["status"], c["verdict"]["stage"])
            for e in report["entries"] for c in e["configs"]][2] == (
        "float32", "cols_le_1024", "wrong", "timeout")
    assert [c["status"] for e in report["entries"] for c in e["configs"]][:2] == [
        "correct", "correct"]
    assert "did not finish within 20 s" in err


def _processes_with_home(home: Path) -> list[int]:
    """The pids of live processes of the run under KZOO_HOME=`home` (`conftest.of_this_run`)."""
    return [int(proc.name) for proc in Path("/proc").iterdir()
            if proc.name.isdigit() and of_this_run(proc, home)]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("to_group", [False, True], ids=["to-the-command", "to-its-group"])
def test_ctrl_c_during_verify_with_workers_ends_every_check_process(shipped_copy: Path,
                                                                    tmp_path: Path,
                                                                    to_group: bool):
    """Ctrl-C while kernels are checked N at a time, sent to the command or (as a terminal
    does) to its whole process group: the command ends at once with 130 and says it was
    interrupted (no study is involved), no check process outlives it, and none prints a
    traceback of its own."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    # a third kernel in a new version, so that the newest holds more than two to check
    shipped_f32 = kernel_path(shipped_copy / "softmax/1.1.0", "softmax_sm_90_float32.py")
    store.promote("softmax", stored_source(shipped_f32).decode() + "\n# another file\n",
                  make_record(dtype="float32", shape_bucket="cols_le_1024"), zoo_dir=shipped_copy)
    home = tmp_path / "home"
    env = dict(os.environ, KZOO_HOME=str(home), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "agent", "zoo", "verify", "softmax",
                             "--newest", "--zoo", str(shipped_copy), "--workers", "2"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a background job's shell hands SIGINT down ignored (CI's runs)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            start_new_session=True)
    try:
        said = []
        for line in proc.stdout:
            said.append(line)
            if line.startswith("  running 3 distinct kernel(s), 2 at a time"):
                break
        assert said[-1].startswith("  running 3 distinct"), "".join(said)
        deadline = time.monotonic() + 10
        while len(_processes_with_home(home)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        # the command and its checks (multiprocessing's resource tracker counts too: a check
        # may still be starting, which is one of the moments a Ctrl-C must be safe at)
        assert len(_processes_with_home(home)) >= 3
        if to_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "kzoo: interrupted", err
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 10
    while _processes_with_home(home) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_with_home(home) == []


def test_verify_of_an_empty_zoo(tmp_path: Path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = run_cli(["zoo", "verify", "--zoo", str(empty)], capsys)
    assert code == 0 and out == f"no zoo entries in {empty.resolve()}\n"
    code, report, _ = run_json(["zoo", "verify", "--json"], capsys)
    assert code == 0 and report == {"mode": None, "ok": True, "entries": []}


# ---------------------------------------------------------------------------------------------
# migrate


def test_migrate_converts_a_zoo_says_so_and_a_second_run_changes_nothing(tmp_path: Path, capsys):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    as_schema_1(zoo)
    code, out, err = run_cli(["zoo", "migrate", "--zoo", str(zoo)], capsys)
    assert code == 0 and err == ""
    assert out == (f"migrated 3 of 3 entries in {zoo.resolve()} to schema 3: wrote 3 blob(s), "
                   "removed 5 kernel file(s) and 0 plain blob(s)\n")
    assert list(zoo.rglob("*.py")) == [] and len(list(zoo.rglob("*.py.xz"))) == 3
    code, out, _ = run_cli(["zoo", "migrate", "--zoo", str(zoo)], capsys)
    assert code == 0
    assert out == f"nothing to migrate: all 3 entries in {zoo.resolve()} are schema 3\n"
    code, summary, _ = run_json(["zoo", "migrate", "--json", "--zoo", str(zoo)], capsys)
    assert code == 0 and summary == {"zoo": str(zoo.resolve()), "entries": 3, "migrated": [],
                                     "blobs_written": 0, "files_removed": 0, "blobs_removed": 0,
                                     "debris_removed": 0}

    other = tmp_path / "other"
    promote_three(other)
    as_schema_1(other)
    proc = run_kzoo("zoo", "migrate", "--json", "--zoo", str(other), env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["migrated"] == ["softmax 1.0.0", "softmax 1.1.0",
                                                   "softmax 1.2.0"]


def test_migrate_converts_a_schema_2_zoo_and_says_what_an_interrupted_run_left(tmp_path: Path,
                                                                              capsys):
    zoo = tmp_path / "zoo"
    promote_three(zoo)
    as_schema_2(zoo)
    stopped = tmp_path / "stopped"
    shutil.copytree(zoo, stopped)
    code, out, err = run_cli(["zoo", "migrate", "--zoo", str(zoo)], capsys)
    assert code == 0 and err == ""
    assert out == (f"migrated 3 of 3 entries in {zoo.resolve()} to schema 3: wrote 3 blob(s), "
                   "removed 0 kernel file(s) and 3 plain blob(s)\n")
    assert list(zoo.rglob("*.py")) == [] and len(list(zoo.rglob("*.py.xz"))) == 3

    # a run stopped after switching every manifest, before removing the plain blobs
    for blob in (zoo / "softmax" / "blobs").iterdir():
        shutil.copyfile(blob, stopped / "softmax" / "blobs" / blob.name)
    for version in ("1.0.0", "1.1.0", "1.2.0"):
        shutil.copyfile(zoo / "softmax" / version / "manifest.json",
                        stopped / "softmax" / version / "manifest.json")
    code, out, _ = run_cli(["zoo", "migrate", "--zoo", str(stopped)], capsys)
    assert code == 0
    assert out == (f"nothing to migrate: all 3 entries in {stopped.resolve()} are schema 3 "
                   "(removed 3 plain blob(s) an interrupted migration left)\n")
    assert list(stopped.rglob("*.py")) == []


def test_migrate_defaults_to_the_user_zoo_and_refuses_a_modified_file(capsys):
    zoo = _home.user_zoo()
    promote_three(zoo)
    as_schema_1(zoo)
    kernel = zoo / "softmax" / "1.2.0" / "softmax_sm_90_float32.py"
    flip_byte(kernel, b"TAG = 'f'", b"TAG = 'g'")
    code, out, err = run_cli(["zoo", "migrate", "--json"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"kzoo: error: {kernel.resolve()}: sha256 ")
    assert "will not be migrated" in err
    assert store.read_manifest(zoo / "softmax" / "1.2.0")["schema"] == 1
    flip_byte(kernel, b"TAG = 'g'", b"TAG = 'f'")
    code, summary, _ = run_json(["zoo", "migrate", "--json"], capsys)
    assert code == 0 and summary["migrated"] == ["softmax 1.2.0"]
    assert summary["zoo"] == str(zoo.resolve())


def test_migrate_of_a_missing_zoo_folder_exits_2(tmp_path: Path, capsys):
    code, out, err = run_cli(["zoo", "migrate", "--zoo", str(tmp_path / "nowhere")], capsys)
    assert code == 2 and out == ""
    assert err == f"kzoo: error: no such zoo folder: {(tmp_path / 'nowhere').resolve()}\n"


# ---------------------------------------------------------------------------------------------
# through the real `kzoo` entry point


def test_kzoo_zoo_commands_end_to_end(shipped_copy: Path, tmp_path: Path):
    home = tmp_path / "home"
    kernel = kernel_path(shipped_copy / "softmax" / "1.1.0", "softmax_sm_90_float32.py")
    flip_byte(kernel, b"TILE_ELEMS = 8192", b"TILE_ELEMS = 4096")
    proc = run_kzoo("zoo", "verify", "softmax", "--version", "1.1.0", "--zoo", str(shipped_copy),
                    env_home=home, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and str(kernel.resolve()) in proc.stderr

    proc = run_kzoo("zoo", "show", "nope", "--zoo", str(shipped_copy), env_home=home)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("kzoo: error: no zoo entry for op 'nope'")

    out = tmp_path / "b.json"
    proc = run_kzoo("zoo", "export", "softmax", "--version", "1.0.0", "--out", str(out), "--zoo",
                    str(shipped_copy), env_home=home)
    assert proc.returncode == 0, proc.stderr
    proc = run_kzoo("zoo", "import", str(out), "--json", env_home=home)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["path"] == str(home.resolve() / "zoo" / "softmax" / "1.0.0")


@pytest.mark.parametrize("command",
                         ["list", "show", "diff", "verify", "export", "import", "migrate"])
def test_every_zoo_command_takes_json_and_zoo(command: str, tmp_path: Path):
    proc = run_kzoo("zoo", command, "--help", env_home=tmp_path)
    assert proc.returncode == 0
    assert "--json" in proc.stdout and "--zoo DIR" in proc.stdout


# ---------------------------------------------------------------------------------------------
# on the GPU machine


@pytest.mark.gpu
@pytest.mark.parametrize("op", sorted(p.name for p in REAL_SHIPPED_ZOO.iterdir() if p.is_dir()))
def test_kzoo_zoo_verify_passes_for_every_shipped_op_on_the_gpu(tmp_path: Path, op: str):
    """What kernel_zoo.ops serves (each op's newest entry), one op a test: every entry at once
    took longer than one device call's 10 minutes (GPU round 163); older versions were checked
    on the GPU when promoted. Four kernels at a time: 17-75 s an op on an H200 (rounds 420-422),
    against 195-239 s one at a time (rounds 411-417)."""
    proc = run_kzoo("zoo", "verify", op, "--newest", "--json", "--zoo", str(REAL_SHIPPED_ZOO),
                    "--workers", "4", env_home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["mode"] == "gpu" and report["ok"] is True
    configs = [c for e in report["entries"] for c in e["configs"]]
    assert configs and all(c["status"] == "correct" for c in configs)


def _kzoo_piped(home: Path, *argv: str, stdin: bytes = b""):
    """`kzoo zoo ...` in a subprocess, with bytes on stdin and stdout kept as bytes."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    env = dict(os.environ, KZOO_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "agent", "zoo", *argv], cwd=home.parent,
                          env=env, input=stdin, capture_output=True, timeout=300, check=False)


def test_export_to_stdout_pipes_into_import_from_stdin(shipped_copy: Path, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    exported = _kzoo_piped(home, "export", "softmax", "--version", "1.0.0", "--out", "-",
                           "--zoo", str(shipped_copy))
    assert exported.returncode == 0, exported.stderr
    assert not (tmp_path / "-").exists()  # the bundle went to stdout, not a file named "-"
    assert exported.stderr.decode() == (
        "exported softmax 1.0.0 (custom) -> stdout (1 file(s), sha256 checked)\n")
    to_file = tmp_path / "b.json"
    assert _kzoo_piped(home, "export", "softmax", "--version", "1.0.0", "--out", str(to_file),
                       "--zoo", str(shipped_copy)).returncode == 0
    assert exported.stdout == to_file.read_bytes()  # the same bytes a file export writes

    imported = _kzoo_piped(home, "import", "-", "--json", stdin=exported.stdout)
    assert imported.returncode == 0, imported.stderr
    result = json.loads(imported.stdout)
    assert result["status"] == "imported" and result["path"] == str(
        home / "zoo" / "softmax" / "1.0.0")
    not_a_bundle = _kzoo_piped(home, "import", "-", stdin=b"{}")
    assert not_a_bundle.returncode == 2
    assert not_a_bundle.stderr.decode() == (
        'kzoo: error: <stdin>: not a zoo bundle (no "format": "kzoo-entry-bundle")\n')


def test_export_to_stdout_with_json_is_a_usage_error(shipped_copy: Path, tmp_path: Path, capsys,
                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a file named "-" would land
    code, out, err = run_cli(["zoo", "export", "softmax", "--out", "-", "--json",
                              "--zoo", str(shipped_copy)], capsys)
    assert code == 2 and out == ""
    assert err == ("kzoo: error: zoo export: --out - writes the bundle to stdout, where --json "
                   "would print the summary too; give --out a file, or leave out --json\n")
    assert not (tmp_path / "-").exists()


def test_an_error_with_json_is_a_json_object_on_stdout(tmp_path: Path):
    proc = run_kzoo("zoo", "show", "nope", "--json", env_home=tmp_path / "home")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("kzoo: error: no zoo entry for op 'nope'")
    assert json.loads(proc.stdout) == {"error": proc.stderr[len("kzoo: error: "):-1],
                                       "exit_code": 2, "command": "zoo show"}
    plain = run_kzoo("zoo", "show", "nope", env_home=tmp_path / "home")
    assert plain.returncode == 2 and plain.stdout == "" and plain.stderr == proc.stderr


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path):
    """`kzoo zoo list | head -2`: the listing (over 100 KB, more than a pipe holds) meets a closed
    pipe. It said `kzoo: error: Broken pipe` and exited 2, a usage error; now it ends as a tool
    that SIGPIPE ends does (141), saying nothing."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    env = dict(os.environ, KZOO_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "agent", "zoo", "list"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("op ")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == "", err
