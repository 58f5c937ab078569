"""The kernel zoo: store (promote, list, layered lookup, integrity), ops dispatch, `kzoo zoo`."""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import lzma
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import torch

import kernel_zoo
from agent import zoo_cli
from kernel_zoo import _home, buckets, ops, store
from kernel_zoo.store import ZooError, ZooIntegrityError

REPO = Path(__file__).resolve().parents[1]
# read before any fixture points _home.SHIPPED_ZOO into a temp folder
REAL_SHIPPED_ZOO = _home.SHIPPED_ZOO


def make_record(arch: str = "sm_90", dtype: str = "bfloat16", **overrides: Any) -> dict[str, Any]:
    record = {
        "arch": arch,
        "dtype": dtype,
        "shape_bucket": "any",
        "template": "softmax",
        "params": {"BLOCK": 1024, "num_warps": 4},
        "task": {"name": "softmax", "sha256": "0" * 64},
        "device": "NVIDIA H100 80GB HBM3",
        "verdict": {"accepted": True, "speedup_vs_eager": 1.7},
        "environment": {
            "gpu": "H100",
            "driver": "580.159.04",
            "cuda": "13.0",
            "torch": "2.13.0",
            "triton": "3.9.0",
        },
    }
    record.update(overrides)
    return record


def kernel_source(tag: str) -> str:
    """A pure-PyTorch stand-in for a rendered Triton kernel, following the launcher contract."""
    return textwrap.dedent(
        f"""\
        import torch

        TAG = {tag!r}
        calls = []


        def launch_softmax(x: torch.Tensor) -> torch.Tensor:
            calls.append(tuple(x.shape))
            return torch.softmax(x.float(), dim=-1).to(x.dtype)


        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return launch_softmax(x)
        """
    )


def stored_source(path: Path) -> bytes:
    """The source a stored kernel file holds: a compressed (schema-3) blob's, decompressed here
    with lzma itself, not the store's code; any other file's bytes as they are."""
    data = path.read_bytes()
    return lzma.decompress(data) if path.name.endswith(".py.xz") else data


def store_source(path: Path, source: bytes | str) -> None:
    """Put `source` where a stored kernel file is, as that file is stored (xz for a schema-3
    blob): a well-formed file of other content, so that only the hash check can refuse it."""
    data = source.encode() if isinstance(source, str) else source
    path.write_bytes(lzma.compress(data) if path.name.endswith(".py.xz") else data)


def sha256_file(path: Path) -> str:
    """The sha256 of the source a stored kernel file holds (`stored_source`)."""
    return hashlib.sha256(stored_source(path)).hexdigest()


def kernel_path(entry_dir: Path, name: str) -> Path:
    """Where the entry's file `name` is stored: its blob, in a schema-2 or schema-3 entry."""
    return store.entry_file_path(entry_dir, store.read_manifest(entry_dir), name)


@pytest.fixture(autouse=True)
def _isolated(isolated_zoo):
    """Every test here runs against zoos under tmp_path (conftest.isolated_zoo)."""


# ---------------------------------------------------------------------------------------------
# ops.softmax


SHAPES_AND_DIMS = [
    ((7,), -1),
    ((4, 33), -1),
    ((4, 33), 0),
    ((2, 3, 129), 1),
    ((2, 3, 129), -1),
    ((3, 0, 5), -1),
    ((), 0),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("shape,dim", SHAPES_AND_DIMS)
def test_softmax_matches_torch_on_cpu(dtype: torch.dtype, shape: tuple[int, ...], dim: int):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0)).to(dtype)
    out = ops.softmax(x, dim=dim)
    assert out.dtype == dtype and out.shape == x.shape
    assert torch.equal(out, torch.softmax(x, dim))


def test_softmax_output_layout_matches_fake_for_strided_input():
    x = torch.randn(5, 9).t()  # torch.softmax would return this contiguous
    out = ops.softmax(x, dim=0)
    assert out.stride() == torch.empty_like(x).stride()
    assert torch.equal(out, torch.softmax(x, 0))


def test_softmax_logs_fallback_once(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO, logger="kernel_zoo")
    for _ in range(3):
        ops.softmax(torch.randn(2, 8))
    messages = [r.getMessage() for r in caplog.records if r.name == "kernel_zoo"]
    assert messages == ["no zoo entry for softmax on cpu float32; using torch.softmax"]


def test_softmax_opcheck():
    x = torch.randn(3, 17, requires_grad=True)
    results = torch.library.opcheck(torch.ops.kzoo.softmax.default, (x, -1))
    assert set(results.values()) == {"SUCCESS"}


def test_softmax_compiles_fullgraph_as_one_custom_op():
    graphs: list[str] = []

    def recording_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]):
        graphs.append(gm.code)
        return gm.forward

    def f(x: torch.Tensor) -> torch.Tensor:
        return ops.softmax(x * 2.0, dim=-1) + 1.0

    torch._dynamo.reset()
    x = torch.randn(4, 50)
    out = torch.compile(f, fullgraph=True, backend=recording_backend)(x)
    assert torch.allclose(out, torch.softmax(x * 2.0, -1) + 1.0)
    assert len(graphs) == 1 and "kzoo.softmax" in graphs[0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_softmax_under_inductor_fullgraph(dtype: torch.dtype):
    def f(x: torch.Tensor) -> torch.Tensor:
        # a transposed input checks that the fake's strides match what the real op returns.
        # The tail runs in float32: inductor fuses a bfloat16 tail with one rounding where eager
        # rounds after every op, which differed by half an ulp on about 1 input in 20.
        return ops.softmax(x.t(), dim=0).float() * 3.0 - ops.softmax(x, dim=-1).float().sum(-1)

    torch._dynamo.reset()
    x = torch.randn(6, 40, generator=torch.Generator().manual_seed(0)).to(dtype)
    expected = torch.softmax(x.t(), 0).float() * 3.0 - torch.softmax(x, -1).float().sum(-1)
    out = torch.compile(f, fullgraph=True)(x)
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-6), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("shape,dim", [((4, 33), -1), ((4, 33), 0), ((2, 3, 65), 1)])
def test_softmax_gradient_matches_torch(dtype, tol, shape, dim):
    gen = torch.Generator().manual_seed(1)
    base = torch.randn(shape, generator=gen).to(dtype)
    upstream = torch.randn(shape, generator=gen).to(dtype)
    x_ours = base.clone().requires_grad_()
    x_ref = base.clone().requires_grad_()
    ops.softmax(x_ours, dim=dim).backward(upstream)
    torch.softmax(x_ref, dim).backward(upstream)
    assert x_ours.grad is not None and x_ours.grad.dtype == dtype
    torch.testing.assert_close(x_ours.grad, x_ref.grad, atol=tol, rtol=tol)


def test_softmax_gradient_under_compile():
    def f(x: torch.Tensor) -> torch.Tensor:
        return (ops.softmax(x, dim=-1) * torch.arange(x.shape[-1])).sum()

    torch._dynamo.reset()
    x_ours = torch.randn(3, 16, requires_grad=True)
    x_ref = x_ours.detach().clone().requires_grad_()
    torch.compile(f, fullgraph=True, backend="aot_eager")(x_ours).backward()
    (torch.softmax(x_ref, -1) * torch.arange(16)).sum().backward()
    torch.testing.assert_close(x_ours.grad, x_ref.grad)


# ---------------------------------------------------------------------------------------------
# promote and list_entries


def test_promote_versions_carry_and_replace_configs(tmp_path: Path):
    zoo = tmp_path / "zoo"
    first = store.promote("softmax", kernel_source("bf16-a"), make_record(), zoo_dir=zoo)
    assert first == {"op": "softmax", "version": "1.0.0", "path": str(zoo / "softmax" / "1.0.0")}

    second = store.promote(
        "softmax", kernel_source("f32-a"), make_record(dtype="float32"), zoo_dir=zoo
    )
    assert second["version"] == "1.1.0"
    v11 = store.read_manifest(Path(second["path"]))
    assert [(c["arch"], c["dtype"]) for c in v11["configs"]] == [
        ("sm_90", "bfloat16"),
        ("sm_90", "float32"),
    ]
    bf16_file = "softmax_sm_90_bfloat16.py"
    # carried, not copied: both versions name the one blob
    assert kernel_path(zoo / "softmax/1.1.0", bf16_file) == kernel_path(
        zoo / "softmax/1.0.0", bf16_file
    )

    third = store.promote("softmax", kernel_source("bf16-b"), make_record(), zoo_dir=zoo)
    assert third["version"] == "1.2.0"
    v12 = store.read_manifest(Path(third["path"]))
    assert sorted((c["dtype"], c["file"]) for c in v12["configs"]) == [
        ("bfloat16", bf16_file),
        ("float32", "softmax_sm_90_float32.py"),
    ]
    assert b"bf16-b" in store.read_entry_file(zoo / "softmax/1.2.0", v12, bf16_file)
    # immutability: the old version still holds the old kernel
    v10 = store.read_manifest(zoo / "softmax/1.0.0")
    assert b"bf16-a" in store.read_entry_file(zoo / "softmax/1.0.0", v10, bf16_file)

    blobs = zoo / "softmax" / "blobs"
    for version in ("1.0.0", "1.1.0", "1.2.0"):
        entry_dir = zoo / "softmax" / version
        manifest = store.read_manifest(entry_dir)
        assert [p.name for p in entry_dir.iterdir()] == ["manifest.json"]
        for name, digest in manifest["files"].items():
            assert kernel_path(entry_dir, name) == blobs / f"{digest}.py.xz"
            assert sha256_file(blobs / f"{digest}.py.xz") == digest
        assert manifest["schema"] == 3 and manifest["created"].endswith("+00:00")
    # three kernels promoted, three blobs: bf16-a, f32-a, bf16-b
    assert len(list(blobs.iterdir())) == 3
    assert sorted(p.name for p in (zoo / "softmax").iterdir()) == [
        "1.0.0", "1.1.0", "1.2.0", "blobs"
    ]


def test_promote_names_shape_bucket_files_and_rejects_bad_input(tmp_path: Path):
    zoo = tmp_path / "zoo"
    result = store.promote(
        "softmax", kernel_source("x"), make_record(shape_bucket="cols_le_1024"), zoo_dir=zoo
    )
    manifest = store.read_manifest(Path(result["path"]))
    assert manifest["configs"][0]["file"] == "softmax_sm_90_bfloat16_cols_le_1024.py"

    with pytest.raises(ZooError, match="must not carry 'file'"):
        store.promote("softmax", "x = 1\n", make_record(file="evil.py"), zoo_dir=zoo)
    with pytest.raises(ZooError, match="missing field 'verdict'"):
        record = make_record()
        del record["verdict"]
        store.promote("softmax", "x = 1\n", record, zoo_dir=zoo)
    with pytest.raises(ZooError, match="does not compile"):
        store.promote("softmax", "def broken(:\n", make_record(), zoo_dir=zoo)
    with pytest.raises(ZooError, match="plain name"):
        store.promote("../escape", "x = 1\n", make_record(), zoo_dir=zoo)
    assert [e["version"] for e in store.list_entries([zoo])] == ["1.0.0"]


def test_list_entries_orders_versions_semantically(tmp_path: Path):
    zoo = tmp_path / "zoo"
    for i in range(11):
        store.promote("softmax", kernel_source(str(i)), make_record(), zoo_dir=zoo)
    store.promote("layernorm", "x = 1\n", make_record(template="layernorm"), zoo_dir=zoo)

    entries = store.list_entries([zoo])
    assert [(e["op"], e["version"]) for e in entries] == [("layernorm", "1.0.0")] + [
        ("softmax", f"1.{i}.0") for i in range(11)
    ]
    last = entries[-1]
    assert last["layer"] == "custom" and last["zoo"] == str(zoo.resolve())
    assert last["path"] == str(zoo.resolve() / "softmax" / "1.10.0")
    assert last["configs"] == [
        {
            "arch": "sm_90",
            "dtype": "bfloat16",
            "shape_bucket": "any",
            "template": "softmax",
            "params": {"BLOCK": 1024, "num_warps": 4},
            "device": "NVIDIA H100 80GB HBM3",
        }
    ]
    found = store.find_config("softmax", "sm_90", "bfloat16", [zoo])
    assert found is not None and found[2].name == "1.10.0"


def test_list_entries_default_layers(tmp_path: Path):
    store.promote("softmax", "x = 1\n", make_record(), zoo_dir=_home.user_zoo())
    store.promote("softmax", "x = 1\n", make_record(), zoo_dir=_home.SHIPPED_ZOO)
    entries = store.list_entries()
    assert [(e["version"], e["layer"]) for e in entries] == [
        ("1.0.0", "user"),
        ("1.0.0", "shipped"),
    ]
    assert entries[0]["zoo"] == str(tmp_path / "kzoo_home" / "zoo")


_WORKER = """
import json, pathlib, sys, time
from kernel_zoo import store

zoo, go, worker, record = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
while not go.exists():
    time.sleep(0.001)
for i in range(4):
    rec = dict(json.loads(record), arch=f"sm_{worker}{i}")
    result = store.promote("softmax", f"TAG = '{worker}-{i}'\\n", rec, zoo_dir=zoo)
    print(result["version"])
"""


def test_concurrent_promotions_from_two_processes(tmp_path: Path):
    zoo, go = tmp_path / "zoo", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    record = json.dumps(make_record())
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(zoo), str(go), worker, record],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for worker in ("8", "9")
    ]
    time.sleep(0.3)  # both interpreters are up and polling before the start signal
    go.touch()
    versions = []
    for proc in workers:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        versions += out.split()

    expected = [f"1.{i}.0" for i in range(8)]
    assert sorted(versions, key=store.parse_version) == expected
    entries = store.list_entries([zoo])
    assert [e["version"] for e in entries] == expected
    # serialized end to end: every version holds exactly one more config than the one before
    assert [len(e["configs"]) for e in entries] == list(range(1, 9))
    newest = store.read_manifest(zoo / "softmax" / "1.7.0")
    assert sorted(c["arch"] for c in newest["configs"]) == sorted(
        f"sm_{w}{i}" for w in "89" for i in range(4)
    )
    for name, digest in newest["files"].items():
        assert sha256_file(kernel_path(zoo / "softmax" / "1.7.0", name)) == digest
    assert len(list((zoo / "softmax" / "blobs").iterdir())) == 8


# ---------------------------------------------------------------------------------------------
# integrity and manifest validation


def test_tampered_kernel_is_refused(tmp_path: Path):
    zoo = tmp_path / "zoo"
    result = store.promote("softmax", kernel_source("ok"), make_record(), zoo_dir=zoo)
    manifest, config, entry_dir = store.find_config("softmax", "sm_90", "bfloat16", [zoo])
    store.load_kernel(entry_dir, config, manifest)  # loads fine before the edit

    kernel = kernel_path(Path(result["path"]), config["file"])
    data = bytearray(stored_source(kernel))
    data[data.index(b"ok")] = ord("O")
    store_source(kernel, bytes(data))  # a well-formed blob of other source
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.load_kernel(entry_dir, config, manifest)
    message = str(excinfo.value)
    assert str(kernel.resolve()) in message and "sha256 " in message
    assert "modified after it was verified" in message and "will not be loaded" in message
    # bytes that are no blob at all are refused as well
    kernel.write_bytes(b"TAG = 'not xz'\n")
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.load_kernel(entry_dir, config, manifest)
    message = str(excinfo.value)
    assert str(kernel.resolve()) in message and "not a valid xz stream" in message
    assert "modified after it was verified" in message and "will not be loaded" in message
    store_source(kernel, bytes(data))

    # promote must not carry a tampered file forward either, nor leave a half-built version
    with pytest.raises(ZooIntegrityError, match=str(kernel.resolve())):
        store.promote("softmax", "x = 1\n", make_record(dtype="float32"), zoo_dir=zoo)
    assert sorted(p.name for p in (zoo / "softmax").iterdir()) == ["1.0.0", "blobs"]
    assert [p.name for p in (zoo / "softmax" / "blobs").iterdir()] == [kernel.name]

    kernel.unlink()
    with pytest.raises(ZooIntegrityError, match="missing"):
        store.load_kernel(entry_dir, config, manifest)


def test_each_gpu_model_keeps_its_own_config_of_a_bucket(tmp_path: Path):
    """An H200's promotion for the bucket an H100 tuned takes no place of the H100's: both stay,
    each GPU model is served its own, any other GPU of the arch the one promoted last; a model's
    re-promotion replaces only its own config; the second model's file takes its name."""
    zoo = tmp_path / "zoo"
    h100, h200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
    store.promote("softmax", kernel_source("h100-a"), make_record(device=h100), zoo_dir=zoo)
    second = store.promote("softmax", kernel_source("h200-a"), make_record(device=h200),
                           zoo_dir=zoo)
    manifest = store.read_manifest(Path(second["path"]))
    assert [(c["device"], c["file"]) for c in manifest["configs"]] == [
        (h100, "softmax_sm_90_bfloat16.py"), (h200, "softmax_sm_90_bfloat16_nvidia-h200.py")]

    def tag(device):
        found_manifest, config, entry_dir = store.find_config("softmax", "sm_90", "bfloat16",
                                                              [zoo], device=device)
        return store.read_entry_file(entry_dir, found_manifest, config["file"]).decode()

    assert "h100-a" in tag(h100) and "h200-a" in tag(h200)
    assert "h200-a" in tag("NVIDIA GH200 480GB") and "h200-a" in tag(None)  # promoted last
    third = store.promote("softmax", kernel_source("h100-b"), make_record(device=h100),
                          zoo_dir=zoo)
    manifest = store.read_manifest(Path(third["path"]))
    assert [c["device"] for c in manifest["configs"]] == [h200, h100]
    assert "h100-b" in tag(h100) and "h200-a" in tag(h200)
    assert "h100-b" in tag(None)  # now the last promoted
    # one config per arch, dtype, bucket and GPU model
    twice = {**manifest, "configs": manifest["configs"] + manifest["configs"][-1:]}
    with pytest.raises(ZooError, match="a second config"):
        store.validate_manifest(twice, "test")
    with pytest.raises(ZooError, match="two kernels"):
        store.promote_many("softmax", [(kernel_source("x"), make_record(device=h200)),
                                       (kernel_source("y"), make_record(device=h200))],
                           zoo_dir=zoo)


def test_ops_serve_the_running_gpu_models_config(tmp_path: Path):
    """kernel_zoo.ops looks up the config of the GPU model it runs on (the launcher cache keeps
    the models apart)."""
    store.promote("softmax", kernel_source("h100"), make_record(device="NVIDIA H100 80GB HBM3"),
                  zoo_dir=_home.user_zoo())
    store.promote("softmax", kernel_source("h200"), make_record(device="NVIDIA H200"),
                  zoo_dir=_home.user_zoo())
    ops.clear_cache()
    on_h100 = ops._zoo_launcher("softmax", "sm_90", "bfloat16", gpu="NVIDIA H100 80GB HBM3")
    on_h200 = ops._zoo_launcher("softmax", "sm_90", "bfloat16", gpu="NVIDIA H200")
    assert on_h100.__globals__["TAG"] == "h100" and on_h200.__globals__["TAG"] == "h200"


def test_tampered_kernel_is_not_hidden_by_the_ops_fallback(tmp_path: Path):
    result = store.promote("softmax", kernel_source("ok"), make_record(), zoo_dir=_home.user_zoo())
    kernel = kernel_path(Path(result["path"]), "softmax_sm_90_bfloat16.py")
    store_source(kernel, "TAG = 'swapped'\n")
    with pytest.raises(ZooIntegrityError):
        ops._zoo_launcher("softmax", "sm_90", "bfloat16")


@pytest.mark.parametrize(
    "breakage,problem",
    [
        (lambda m: m.pop("created"), "missing field 'created'"),
        (lambda m: m["configs"][0].pop("dtype"), "configs[0]: missing field 'dtype'"),
        (lambda m: m.update(schema=4), "schema 4 is not supported (want 1, 2 or 3)"),
        (lambda m: m["files"].clear(), "has no sha256"),
        (lambda m: m.update(version="1.0"), "not a MAJOR.MINOR.PATCH version"),
        (lambda m: m["configs"][0].update(params=[1]), "'params' must be dict"),
        (lambda m: m.update(created="yesterday"), "'created' must be an ISO 8601 time"),
        (lambda m: m["configs"][0].update(arch="hopper"), "arch must look like 'sm_90'"),
        (lambda m: m.update(created="2026-11-22T02:40:49"), "with a UTC offset"),
        (
            lambda m: m["configs"][0].update(shape_bucket="cols_le_999"),
            "shape_bucket 'cols_le_999' is not one of softmax's buckets: any, cols_le_1024",
        ),
        (
            lambda m: m["configs"][0]["verdict"].update(accepted=False),
            "'verdict'['accepted'] must be true",
        ),
        (
            lambda m: m["configs"][0]["environment"].pop("driver"),
            "'environment' needs 'driver'",
        ),
        (
            lambda m: m["configs"][0]["task"].update(sha256="abc"),
            "'task'['sha256'] is not a sha256 hex digest",
        ),
        (
            lambda m: m["files"].update({"manifest.json": "0" * 64}),
            "'files' holds 'manifest.json', which is not a plain file name",
        ),
    ],
)
def test_malformed_manifest_names_file_and_problem(tmp_path: Path, breakage, problem: str):
    zoo = tmp_path / "zoo"
    result = store.promote("softmax", "x = 1\n", make_record(), zoo_dir=zoo)
    manifest_path = Path(result["path"]) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    breakage(manifest)
    manifest_path.write_text(json.dumps(manifest))
    for call in (
        lambda: store.read_manifest(Path(result["path"])),
        lambda: store.list_entries([zoo]),
        lambda: store.find_config("softmax", "sm_90", "bfloat16", [zoo]),
    ):
        with pytest.raises(ZooError) as excinfo:
            call()
        assert str(manifest_path.resolve()) in str(excinfo.value)
        assert problem in str(excinfo.value)


# ---------------------------------------------------------------------------------------------
# layered lookup and loading


def test_layered_lookup_user_wins_then_falls_through(tmp_path: Path):
    user, shipped = tmp_path / "user", tmp_path / "shipped"
    store.promote("softmax", kernel_source("shipped-bf16"), make_record(), zoo_dir=shipped)
    store.promote(
        "softmax", kernel_source("shipped-f32"), make_record(dtype="float32"), zoo_dir=shipped
    )
    store.promote("softmax", kernel_source("user-bf16"), make_record(), zoo_dir=user)

    def tag_of(dtype: str) -> str:
        found = store.find_config("softmax", "sm_90", dtype, [user, shipped])
        assert found is not None
        return store.load_kernel(found[2], found[1], found[0]).TAG

    assert tag_of("bfloat16") == "user-bf16"
    assert tag_of("float32") == "shipped-f32"
    assert store.find_config("softmax", "sm_80", "float32", [user, shipped]) is None
    assert store.find_config("layernorm", "sm_90", "float32", [user, shipped]) is None


def test_layered_lookup_through_default_layers_and_ops(tmp_path: Path):
    store.promote("softmax", kernel_source("shipped"), make_record(), zoo_dir=_home.SHIPPED_ZOO)
    store.promote(
        "softmax", kernel_source("user"), make_record(dtype="float32"), zoo_dir=_home.user_zoo()
    )
    bf16 = ops._zoo_launcher("softmax", "sm_90", "bfloat16")
    f32 = ops._zoo_launcher("softmax", "sm_90", "float32")
    assert bf16 is not None and bf16.__globals__["TAG"] == "shipped"
    assert f32 is not None and f32.__globals__["TAG"] == "user"
    assert ops._zoo_launcher("softmax", "sm_75", "float32") is None


def test_load_kernel_imports_real_file_and_caches(tmp_path: Path):
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("real"), make_record(dtype="float32"), zoo_dir=zoo)
    store.promote("softmax", kernel_source("other"), make_record(), zoo_dir=zoo)
    manifest, config, entry_dir = store.find_config("softmax", "sm_90", "float32", [zoo])
    module = store.load_kernel(entry_dir, config, manifest)

    # a compressed blob's module runs under a name beside the blob that no file has
    blob = kernel_path(entry_dir, config["file"]).resolve()
    assert Path(module.__file__) == blob.with_name(manifest["files"][config["file"]] + ".xz.py")
    assert not Path(module.__file__).exists()
    assert module.TAG == "real" and sys.modules[module.__name__] is module
    x = torch.randn(3, 7)
    torch.testing.assert_close(module.launch_softmax(x), torch.softmax(x, -1))
    assert module.calls == [(3, 7)]
    assert store.load_kernel(entry_dir, config, manifest) is module

    # the same file carried into another version is the same blob, so the same module: one
    # import (for a Triton kernel, one compile) however many versions carry it
    old_dir = entry_dir.parent / "1.0.0"
    old_manifest = store.read_manifest(old_dir)
    old = store.load_kernel(old_dir, old_manifest["configs"][0], old_manifest)
    assert old is module
    assert module.__name__.startswith("_kzoo_entry_softmax_sm_90_float32_")
    assert not (entry_dir / "__pycache__").exists()
    assert not (entry_dir.parent / "blobs" / "__pycache__").exists()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_softmax_dispatches_to_zoo_kernel_on_cuda():
    major, minor = torch.cuda.get_device_capability()
    record = make_record(arch=f"sm_{major}{minor}", dtype="float32")
    store.promote("softmax", kernel_source("gpu"), record, zoo_dir=_home.user_zoo())
    x = torch.randn(4, 100, device="cuda")
    out = ops.softmax(x, dim=-1)
    torch.testing.assert_close(out, torch.softmax(x, -1))
    launcher = ops._zoo_launcher("softmax", f"sm_{major}{minor}", "float32")
    assert launcher is not None and launcher.__globals__["calls"] == [(4, 100)]

    compiled = torch.compile(lambda t: ops.softmax(t, dim=-1) * 2.0, fullgraph=True)
    torch.testing.assert_close(compiled(x), torch.softmax(x, -1) * 2.0)
    assert len(launcher.__globals__["calls"]) == 2

    # no entry for this dtype, and not the last dim: the reference runs, the kernel does not
    torch.testing.assert_close(ops.softmax(x.half(), -1), torch.softmax(x.half(), -1))
    torch.testing.assert_close(ops.softmax(x, 0), torch.softmax(x, 0))
    assert len(launcher.__globals__["calls"]) == 2


# ---------------------------------------------------------------------------------------------
# kzoo zoo list


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="kzoo")
    subparsers = parser.add_subparsers(dest="command", required=True)
    zoo_cli.add_zoo_parser(subparsers)
    args = parser.parse_args(argv)
    assert args.command == "zoo"
    code = zoo_cli.run_zoo(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_list_json_custom_zoo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    zoo = tmp_path / "zoo"
    store.promote("softmax", "x = 1\n", make_record(), zoo_dir=zoo)
    store.promote("softmax", "x = 1\n", make_record(dtype="float32"), zoo_dir=zoo)
    code, out, err = run_cli(["zoo", "list", "--json", "--zoo", str(zoo)], capsys)
    assert code == 0 and err == ""
    listed = json.loads(out)
    assert listed == [{**e, "layer": "custom"} for e in store.list_entries([zoo])]
    assert [(e["version"], e["layer"], len(e["configs"])) for e in listed] == [
        ("1.0.0", "custom", 1),
        ("1.1.0", "custom", 2),
    ]


def test_cli_list_table_default_layers(capsys: pytest.CaptureFixture[str]):
    store.promote("softmax", "x = 1\n", make_record(), zoo_dir=_home.user_zoo())
    store.promote("softmax", "x = 1\n", make_record(dtype="float32"), zoo_dir=_home.user_zoo())
    code, out, _ = run_cli(["zoo", "list"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["op", "version", "layer", "created", "configs"]
    cells = lines[2].split()
    assert cells[:3] == ["softmax", "1.1.0", "user"] and cells[4:] == ["sm_90/bfloat16",
                                                                     "sm_90/float32"]
    one = next(line for line in lines if " 1.0.0 " in line)
    assert len(one) == lines[0].index("configs") + len("sm_90/bfloat16"), \
        "the one-config entry is padded out to the two-config entry's width"


def test_cli_list_empty_zoo(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = run_cli(["zoo", "list", "--zoo", str(empty)], capsys)
    assert code == 0 and out.startswith("no zoo entries in ") and str(empty) in out
    code, out, _ = run_cli(["zoo", "list", "--json", "--zoo", str(empty)], capsys)
    assert code == 0 and json.loads(out) == []
    code, out, _ = run_cli(["zoo", "list", "--json"], capsys)
    assert code == 0 and json.loads(out) == []


def test_cli_reports_zoo_errors_without_traceback(tmp_path: Path, capsys):
    code, out, err = run_cli(["zoo", "list", "--zoo", str(tmp_path / "nowhere")], capsys)
    assert code == 2 and out == ""
    assert err.startswith("kzoo: error: no such zoo folder") and "Traceback" not in err

    zoo = tmp_path / "zoo"
    result = store.promote("softmax", "x = 1\n", make_record(), zoo_dir=zoo)
    (Path(result["path"]) / "manifest.json").write_text("{not json")
    code, _, err = run_cli(["zoo", "list", "--zoo", str(zoo)], capsys)
    assert code == 2 and err.startswith("kzoo: error: ") and "manifest.json" in err


# ---------------------------------------------------------------------------------------------
# shape buckets


@pytest.mark.parametrize(
    "cols,bucket",
    [
        (1, "cols_le_1024"),
        (1024, "cols_le_1024"),
        (1025, "cols_le_4096"),
        (4097, "cols_le_16384"),
        (32768, "cols_le_65536"),
        (65536, "cols_le_65536"),
        (65537, "cols_gt_65536"),
        (128256, "cols_gt_65536"),
    ],
)
def test_softmax_bucket_is_chosen_by_the_last_dim(cols: int, bucket: str):
    assert buckets.bucket_of("softmax", (7, 3, cols)) == bucket
    assert buckets.bucket_of("softmax", (cols,)) == bucket


def test_bucket_names_and_distance():
    assert buckets.bucket_names("softmax") == (
        "any", "cols_le_1024", "cols_le_4096", "cols_le_16384", "cols_le_65536", "cols_gt_65536",
        "inner_dim",
    )
    assert buckets.bucket_of("softmax", (8, 1000, 64), dim=1) == "inner_dim"
    assert buckets.bucket_of("softmax", (8, 1000, 1), dim=1) == "cols_le_1024"  # dim is last
    assert buckets.bucket_of("softmax", (8, 1000), dim=-1) == "cols_le_1024"
    assert buckets.bucket_names("layernorm") == ("any",)  # no scheme: every config is "any"
    # cross-entropy by its logits' rows; a bucket with no config of its own takes "any"
    assert buckets.bucket_names("cross_entropy") == ("any", "rows_le_1024", "rows_gt_1024")
    assert buckets.bucket_of("cross_entropy", (4099, 50257)) == "rows_gt_1024"
    assert buckets.bucket_of("cross_entropy", (64, 128256)) == "rows_le_1024"
    assert buckets.pick("cross_entropy", "rows_le_1024", ["any", "rows_gt_1024"]) == "any"
    # the gated units by their rows' width; their entries up to swiglu 1.2.0 and geglu 1.3.0 hold
    # "any" only, which serves both buckets
    for op in ("swiglu", "geglu"):
        assert buckets.bucket_names(op) == ("any", "cols_le_4096", "cols_gt_4096")
        assert buckets.bucket_of(op, (4099, 3001)) == "cols_le_4096"
        assert buckets.bucket_of(op, (16, 16384)) == "cols_gt_4096"
        assert buckets.pick(op, "cols_gt_4096", ["any"]) == "any"
    assert buckets.bucket_of("layernorm", (4, 4096)) == "any"
    softmax = buckets.scheme("softmax")
    assert softmax is not None
    assert softmax.distance("cols_le_1024", "cols_gt_65536") == 4
    assert softmax.distance("cols_le_16384", "cols_le_4096") == 1
    with pytest.raises(ValueError, match="strictly ascending"):
        buckets.BucketScheme("cols", -1, (4096, 1024))


@pytest.mark.parametrize(
    "wanted,present,chosen",
    [
        ("cols_le_4096", ["any", "cols_le_4096", "cols_le_1024"], "cols_le_4096"),  # exact
        ("cols_le_4096", ["cols_le_1024", "cols_gt_65536"], "cols_le_1024"),  # 1 away, not 3
        ("cols_le_16384", ["cols_le_1024", "cols_gt_65536"], "cols_gt_65536"),  # tie: wider
        ("cols_le_16384", ["cols_le_4096", "cols_le_65536"], "cols_le_65536"),  # tie: wider
        ("cols_gt_65536", ["any", "cols_le_1024"], "any"),  # tuned on all shapes beats another
        ("cols_gt_65536", ["cols_le_16384", "cols_le_1024"], "cols_le_16384"),  # else nearest
        ("cols_le_1024", ["any"], "any"),  # entries from before buckets keep working
        ("any", ["cols_le_1024", "cols_le_65536"], "cols_le_65536"),  # shape unknown: widest
        ("any", ["any", "cols_le_1024"], "any"),
        ("cols_le_1024", [], None),
        ("inner_dim", ["cols_le_1024", "inner_dim"], "inner_dim"),
        ("inner_dim", ["cols_le_1024", "cols_le_65536"], "cols_le_65536"),
        ("cols_le_4096", ["inner_dim"], "inner_dim"),  # a strided-tuned kernel still serves
    ],
)
def test_bucket_pick(wanted: str, present: list[str], chosen: str | None):
    assert buckets.pick("softmax", wanted, present) == chosen


@pytest.mark.parametrize(
    "wanted,present,chosen",
    [
        ("cols_le_4096", ["cols_le_4096", "cols_le_1024"], "cols_le_4096"),  # exact
        ("cols_le_4096", ["cols_le_1024", "cols_le_16384"], None),  # never the neighbour's
        ("cols_le_4096", ["any", "cols_le_1024"], "any"),  # an all-shapes config still serves
        ("inner_dim", ["cols_le_1024", "cols_le_65536"], None),  # nor a last-dim config
        ("inner_dim", ["inner_dim"], "inner_dim"),
        ("cols_le_1024", ["inner_dim"], None),
        ("any", ["cols_le_1024", "cols_le_65536"], "cols_le_65536"),  # shape unknown: widest
    ],
)
@pytest.mark.parametrize("op", ["sum", "argmax"])
def test_reductions_do_not_borrow_a_bucket(
    op: str, wanted: str, present: list[str], chosen: str | None
):
    assert buckets.pick(op, wanted, present) == chosen
    assert buckets.bucket_of(op, (4, 4099, 1000), dim=2) == "cols_le_1024"
    assert buckets.bucket_of(op, (4, 4099, 1000), dim=1) == "inner_dim"


def test_a_large_matmul_never_borrows_the_skinny_config():
    """matmul's configs are tuned for M <= 128 (rows_le_128): a larger M runs torch.matmul, not a
    module whose tiles for such calls were never timed."""
    assert buckets.bucket_of("matmul", (4096, 4096)) == "rows_gt_128"
    assert buckets.bucket_of("matmul", (2, 64, 4096)) == "rows_le_128"  # rows of each batch
    assert buckets.pick("matmul", "rows_gt_128", ["rows_le_128"]) is None
    assert buckets.pick("matmul", "rows_le_128", ["rows_le_128"]) == "rows_le_128"
    assert buckets.pick("matmul", "rows_gt_128", ["any", "rows_le_128"]) == "any"
    # a batched A against one matrix is as many rows as the launcher folds it into
    from kernel_zoo._ops_gemm import MATMUL
    assert MATMUL.bucket_shape((torch.empty(4, 64, 32), torch.empty(32, 8))) == (256, 32)
    assert MATMUL.bucket_shape((torch.empty(4, 64, 32), torch.empty(4, 32, 8))) == (64, 32)


def test_a_matmul_whose_k_is_not_16_aligned_runs_cublas():
    """A plain GEMM with K off 16 elements (1000) runs torch.matmul, which the zoo's kernels trail
    there (GPU rounds 303-304), and says why; an aligned K (1008) is the zoo's."""
    from kernel_zoo._ops_gemm import MATMUL

    x = torch.empty(64, 1000, dtype=torch.bfloat16)
    reason = MATMUL.ineligible((x, torch.empty(1000, 3000, dtype=torch.bfloat16)))
    assert reason is not None and "K = 1000 is not a multiple of 16" in reason
    aligned = torch.empty(64, 1008, dtype=torch.bfloat16)
    assert MATMUL.ineligible((aligned, torch.empty(1008, 3000, dtype=torch.bfloat16))) is None


def test_a_bucket_the_entry_lacks_runs_the_reference(tmp_path: Path, caplog):
    zoo = _home.user_zoo()
    source = "TAG = 'narrow'\n\n\ndef launch_rms_norm(x, shape, weight=None, eps=None):\n    return x\n"
    store.promote("rms_norm", source, make_record(shape_bucket="cols_le_1024"), zoo_dir=zoo)
    launcher = ops._zoo_launcher("rms_norm", "sm_90", "bfloat16", "cols_le_1024")
    assert launcher is not None and launcher.__globals__["TAG"] == "narrow"
    assert ops._zoo_launcher("rms_norm", "sm_90", "bfloat16", "cols_le_4096") is None
    assert store.find_config("rms_norm", "sm_90", "bfloat16", bucket="cols_le_16384") is None
    assert buckets.bucket_of("rms_norm", (4096, 4097)) == "cols_le_16384"
    assert buckets.pick("rms_norm", "cols_le_4096", ["cols_le_1024", "cols_le_16384"]) is None


def test_dispatch_picks_the_nearest_bucket_of_the_newest_entry(tmp_path: Path):
    zoo = _home.user_zoo()
    for bucket in ("cols_le_1024", "cols_gt_65536"):
        store.promote(
            "softmax", kernel_source(bucket), make_record(shape_bucket=bucket), zoo_dir=zoo
        )

    def tag(bucket: str) -> str:
        launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", bucket)
        assert launcher is not None
        return launcher.__globals__["TAG"]

    assert tag("cols_le_1024") == "cols_le_1024"
    assert tag("cols_le_4096") == "cols_le_1024"
    assert tag("cols_le_16384") == "cols_gt_65536"
    assert tag("cols_gt_65536") == "cols_gt_65536"
    # a config tuned over all shapes serves every bucket that has no config of its own
    store.promote("softmax", kernel_source("any"), make_record(), zoo_dir=zoo)
    ops.clear_cache()
    assert tag("cols_le_4096") == "any"
    assert tag("cols_le_1024") == "cols_le_1024"  # an exact bucket still wins
    found = store.find_config("softmax", "sm_90", "bfloat16", bucket="cols_le_65536")
    assert found is not None and found[1]["shape_bucket"] == "any"
    assert found[2].name == "1.2.0"


def test_a_layer_with_any_config_for_the_arch_and_dtype_wins_over_the_layers_below(
    tmp_path: Path,
):
    store.promote("softmax", kernel_source("shipped"), make_record(), zoo_dir=_home.SHIPPED_ZOO)
    store.promote(
        "softmax",
        kernel_source("user"),
        make_record(shape_bucket="cols_le_1024"),
        zoo_dir=_home.user_zoo(),
    )
    launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "cols_gt_65536")
    assert launcher is not None and launcher.__globals__["TAG"] == "user"
    # float32 only the shipped layer has
    store.promote(
        "softmax", kernel_source("shipped-f32"), make_record(dtype="float32"),
        zoo_dir=_home.SHIPPED_ZOO,
    )
    launcher = ops._zoo_launcher("softmax", "sm_90", "float32", "cols_le_1024")
    assert launcher is not None and launcher.__globals__["TAG"] == "shipped-f32"


# ---------------------------------------------------------------------------------------------
# pinned versions


def promote_versions(zoo: Path, tags: list[str]) -> list[str]:
    return [
        store.promote("softmax", kernel_source(tag), make_record(), zoo_dir=zoo)["version"]
        for tag in tags
    ]


def test_pinned_version_is_used_even_when_a_newer_exists(tmp_path: Path):
    assert promote_versions(_home.user_zoo(), ["v1", "v2", "v3"]) == ["1.0.0", "1.1.0", "1.2.0"]
    pinned = kernel_zoo.load("softmax", version="1.0.0")
    assert isinstance(pinned, ops.PinnedSoftmax)
    assert (pinned.op, pinned.version, pinned.layer) == ("softmax", "1.0.0", "user")
    assert pinned.path == _home.user_zoo().resolve() / "softmax" / "1.0.0"
    assert "softmax 1.0.0 (user)" in repr(pinned)

    pinned_launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any", pinned._entry)
    newest_launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any")
    assert pinned_launcher is not None and pinned_launcher.__globals__["TAG"] == "v1"
    assert newest_launcher is not None and newest_launcher.__globals__["TAG"] == "v3"
    # a version promoted after pinning does not move the pin
    promote_versions(_home.user_zoo(), ["v4"])
    ops.clear_cache()
    again = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any", pinned._entry)
    assert again is not None and again.__globals__["TAG"] == "v1"
    assert kernel_zoo.load("softmax").version == "1.3.0"  # no version: the newest, now


def test_pinned_op_falls_back_on_cpu_and_says_which_entry(caplog: pytest.LogCaptureFixture):
    promote_versions(_home.user_zoo(), ["v1"])
    pinned = kernel_zoo.load("softmax", version="1.0.0")
    caplog.set_level(logging.INFO, logger="kernel_zoo")
    x = torch.randn(3, 50, generator=torch.Generator().manual_seed(0))
    assert torch.equal(pinned(x, dim=-1), torch.softmax(x, -1))
    assert torch.equal(pinned(x.t(), dim=0), torch.softmax(x.t(), 0))
    messages = [r.getMessage() for r in caplog.records if r.name == "kernel_zoo"]
    assert messages == [
        f"no zoo entry for softmax on cpu float32 in pinned entry {pinned.path}; "
        "using torch.softmax"
    ]


def test_pin_resolves_in_layer_order_or_in_the_given_zoo(tmp_path: Path):
    promote_versions(_home.SHIPPED_ZOO, ["shipped-1.0", "shipped-1.1"])
    promote_versions(_home.user_zoo(), ["user-1.0"])
    other = tmp_path / "other"
    promote_versions(other, ["other-1.0"])

    def tag(pinned: ops.PinnedOp) -> str:
        launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any", pinned._entry)
        assert launcher is not None
        return launcher.__globals__["TAG"]

    assert tag(kernel_zoo.load("softmax", version="1.0.0")) == "user-1.0"
    assert tag(kernel_zoo.load("softmax", version="1.1.0")) == "shipped-1.1"
    assert kernel_zoo.load("softmax", version="1.1.0").layer == "shipped"
    assert tag(kernel_zoo.load("softmax", version="1.0.0", zoo=_home.SHIPPED_ZOO)) == "shipped-1.0"
    from_other = kernel_zoo.load("softmax", version="1.0.0", zoo=str(other))
    assert tag(from_other) == "other-1.0" and from_other.layer == "custom"


def test_pin_errors_name_what_there_is(tmp_path: Path):
    promote_versions(_home.SHIPPED_ZOO, ["a"])
    promote_versions(_home.user_zoo(), ["b", "c"])
    with pytest.raises(ZooError) as excinfo:
        kernel_zoo.load("softmax", version="2.0.0")
    message = str(excinfo.value)
    assert message.startswith("softmax has no version 2.0.0 in ")
    assert message.endswith("versions there: 1.0.0 (user), 1.1.0 (user), 1.0.0 (shipped)")
    with pytest.raises(ZooError, match="not a MAJOR.MINOR.PATCH version: '1.0'"):
        kernel_zoo.load("softmax", version="1.0")
    with pytest.raises(ZooError, match="kernel_zoo.ops has no op .layernorm.; ops: .*softmax"):
        kernel_zoo.load("layernorm", version="1.0.0")
    with pytest.raises(ZooError, match="no such zoo folder"):
        kernel_zoo.load("softmax", version="1.0.0", zoo=tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ZooError, match="no zoo entry for op 'softmax' in .*ops there: none"):
        kernel_zoo.load("softmax", zoo=empty)


def test_tampered_entry_is_refused_when_pinned(tmp_path: Path):
    promote_versions(_home.user_zoo(), ["v1"])
    kernel = kernel_path(_home.user_zoo() / "softmax" / "1.0.0", "softmax_sm_90_bfloat16.py")
    store_source(kernel, stored_source(kernel).replace(b"v1", b"v9"))
    with pytest.raises(ZooIntegrityError) as excinfo:
        kernel_zoo.load("softmax", version="1.0.0")
    assert str(kernel.resolve()) in str(excinfo.value)
    assert "will not be loaded" in str(excinfo.value)


def test_pinned_op_under_torch_compile_fullgraph(tmp_path: Path):
    promote_versions(_home.user_zoo(), ["v1", "v2"])
    pinned = kernel_zoo.load("softmax", version="1.0.0")
    graphs: list[str] = []

    def recording_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]):
        graphs.append(gm.code)
        return gm.forward

    def f(x: torch.Tensor) -> torch.Tensor:
        return pinned(x * 2.0, dim=-1) + ops.softmax(x, dim=-1)

    torch._dynamo.reset()
    x = torch.randn(4, 50, generator=torch.Generator().manual_seed(0))
    out = torch.compile(f, fullgraph=True, backend=recording_backend)(x)
    torch.testing.assert_close(out, torch.softmax(x * 2.0, -1) + torch.softmax(x, -1))
    assert len(graphs) == 1 and graphs[0].count("kzoo.softmax") == 2
    # the pin is a constant of the graph: the compiled code calls exactly that entry
    assert repr(str(pinned.path)) in graphs[0]

    torch._dynamo.reset()
    inductor = torch.compile(lambda t: pinned(t.t(), dim=0) * 3.0, fullgraph=True)
    torch.testing.assert_close(inductor(x), torch.softmax(x.t(), 0) * 3.0)


def test_pinned_op_opcheck_and_gradient(tmp_path: Path):
    promote_versions(_home.user_zoo(), ["v1"])
    pinned = kernel_zoo.load("softmax", version="1.0.0")
    x = torch.randn(3, 17, requires_grad=True)
    results = torch.library.opcheck(torch.ops.kzoo.softmax.default, (x, -1, pinned._entry))
    assert set(results.values()) == {"SUCCESS"}
    upstream = torch.randn(3, 17)
    x_ref = x.detach().clone().requires_grad_()
    pinned(x, dim=-1).backward(upstream)
    torch.softmax(x_ref, -1).backward(upstream)
    torch.testing.assert_close(x.grad, x_ref.grad)


CUDA_KERNEL = textwrap.dedent(
    """\
    import torch

    from kernel_zoo import cuda_ext

    _lib = cuda_ext.load('extern "C" int f(void* x, cudaStream_t s) { return 0; }',
                         {"f": ("tensor",)})


    def launch_softmax(x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x.float(), dim=-1).to(x.dtype)
    """
)


def test_a_cuda_kernel_this_machine_cannot_build_yields_to_another_gpus_config(
        tmp_path: Path, monkeypatch, caplog):
    """An entry whose H200 config is a CUDA C++ kernel (gemm_cuda's linear_bias_gelu, say), on a
    machine without nvcc: the call is served by the bucket's other GPU model's config where its
    kernel loads, else by the reference, each with a warning naming why; a kernel that fails to
    import for any other reason is still a ZooError."""
    from kernel_zoo import cuda_ext

    monkeypatch.setattr(cuda_ext, "find_nvcc", lambda: None)
    zoo = tmp_path / "zoo"
    store.promote("softmax", kernel_source("h100"), make_record(), zoo_dir=zoo)
    both = store.promote("softmax", CUDA_KERNEL, make_record(device="NVIDIA H200",
                                                             template="gemm_cuda"), zoo_dir=zoo)
    alone = store.promote("softmax", CUDA_KERNEL, make_record(device="NVIDIA H200",
                                                              template="gemm_cuda"),
                          zoo_dir=tmp_path / "alone")
    ops.clear_cache()
    try:
        with caplog.at_level(logging.WARNING, logger="kernel_zoo"):
            launcher = ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any",
                                         both["path"], "NVIDIA H200")
            assert launcher is not None and launcher.__globals__["TAG"] == "h100"
            assert ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any", alone["path"],
                                     "NVIDIA H200") is None
        warnings = [r.getMessage() for r in caplog.records]
        assert any("NVIDIA H200 kernel of 1.1.0 (gemm_cuda, CUDA C++) cannot be built here: "
                   "nvcc not found" in w and "serving the NVIDIA H100 80GB HBM3 config's" in w
                   for w in warnings), warnings
        assert any("PyTorch reference runs" in w for w in warnings), warnings
        broken = store.promote("softmax", "raise RuntimeError('not a toolchain problem')\n",
                               make_record(device="NVIDIA H200"), zoo_dir=tmp_path / "broken")
        with pytest.raises(ZooError, match="failed to import"):
            ops._zoo_launcher("softmax", "sm_90", "bfloat16", "any", broken["path"],
                              "NVIDIA H200")
    finally:
        ops.clear_cache()


def test_kernel_zoo_imports_stay_light(tmp_path: Path):
    # a broken user zoo: importing must not read it (nothing runs at import time)
    broken = tmp_path / "home" / "zoo" / "softmax" / "1.0.0"
    broken.mkdir(parents=True)
    (broken / "manifest.json").write_text("{not json")
    code = textwrap.dedent(
        """\
        import sys
        import kernel_zoo
        assert "torch" not in sys.modules, "import kernel_zoo pulled in torch"
        from kernel_zoo import ops
        assert "torch" in sys.modules
        print("ok")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "KZOO_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr


# ---------------------------------------------------------------------------------------------
# import_entry


def test_import_entry_adds_refuses_conflicts_and_is_idempotent(tmp_path: Path):
    source_zoo, target = tmp_path / "source", tmp_path / "target"
    store.promote("softmax", kernel_source("a"), make_record(), zoo_dir=source_zoo)
    entry = store.find_entry("softmax", "1.0.0", [source_zoo])
    files = store.read_entry_files(entry.path, entry.manifest)

    result = store.import_entry(entry.manifest, files, zoo_dir=target, source="test")
    assert result["status"] == "imported" and result["version"] == "1.0.0"
    imported = Path(result["path"])
    assert store.read_manifest(imported) == entry.manifest
    assert [p.name for p in imported.iterdir()] == ["manifest.json"]
    for name, data in files.items():
        assert stored_source(kernel_path(imported, name)) == data
    again = store.import_entry(entry.manifest, files, zoo_dir=target, source="test")
    assert again["status"] == "identical"

    other_zoo = tmp_path / "other"
    store.promote("softmax", kernel_source("b"), make_record(), zoo_dir=other_zoo)
    other = store.find_entry("softmax", "1.0.0", [other_zoo])
    with pytest.raises(store.ZooConflictError, match="already holds softmax 1.0.0 with other"):
        store.import_entry(
            other.manifest,
            store.read_entry_files(other.path, other.manifest),
            zoo_dir=target,
            source="test",
        )
    assert store.read_entry_files(imported, entry.manifest) == files  # untouched

    name = next(iter(files))
    with pytest.raises(ZooIntegrityError, match=f"bundle.json: {name}: sha256 .* does not match"):
        store.import_entry(
            entry.manifest, {name: files[name] + b"#"}, zoo_dir=tmp_path / "t2",
            source="bundle.json",
        )
    assert not (tmp_path / "t2").exists()
    with pytest.raises(ZooError, match=r"missing \['" + name):
        store.import_entry(entry.manifest, {}, zoo_dir=tmp_path / "t3", source="bundle.json")

    # the same manifest over a modified blob in the target is not "identical"
    blob = kernel_path(imported, name)
    store_source(blob, files[name] + b"#")
    with pytest.raises(ZooIntegrityError, match=str(blob)):
        store.import_entry(entry.manifest, files, zoo_dir=target, source="test")


# ---------------------------------------------------------------------------------------------
# on a GPU: the shipped kernels in CUDA graphs, pinned and bucketed dispatch


def copy_shipped_entries() -> None:
    """The real shipped softmax entries (and their blobs), into the test's stand-in for the
    shipped zoo."""
    shutil.copytree(REAL_SHIPPED_ZOO / "softmax", _home.SHIPPED_ZOO / "softmax")


def _device_arch() -> str:
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_shipped_kernel_in_a_cuda_graph_replays_on_new_inputs(dtype: torch.dtype, monkeypatch):
    copy_shipped_entries()
    dtype_name = str(dtype).removeprefix("torch.")
    # the config ops.softmax serves for this shape: its bucket's, on this GPU model
    bucket = buckets.bucket_of("softmax", (257, 4097), -1)
    found = store.find_config(
        "softmax", _device_arch(), dtype_name, bucket=bucket,
        device=torch.cuda.get_device_name(),
    )
    if found is None:
        pytest.skip(f"no shipped softmax entry for {_device_arch()} {dtype_name}")
    module = store.load_kernel(found[2], found[1], found[0])
    calls: list[tuple[int, ...]] = []
    original = module.launch_softmax
    monkeypatch.setattr(
        module, "launch_softmax", lambda t: calls.append(tuple(t.shape)) or original(t)
    )

    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(257, 4097, device="cuda", generator=gen).mul(4).to(dtype)
    # warm up on a side stream, as torch.cuda.graphs asks: Triton compiles on first launch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            ops.softmax(x, dim=-1)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = ops.softmax(x, dim=-1)
    assert calls == [(257, 4097)] * 3, "the zoo kernel was not the one captured"

    tolerance = 1e-2 if dtype == torch.bfloat16 else 1e-5
    for _ in range(3):
        x.copy_(torch.randn(x.shape, device="cuda", generator=gen).mul(4).to(dtype))
        graph.replay()
        torch.cuda.synchronize()
        ref = torch.softmax(x.double(), dim=-1)
        assert ((y.double() - ref).norm() / ref.norm()).item() < tolerance
    assert len(calls) == 3  # replays run the captured kernel, not Python


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_pinned_and_bucketed_dispatch_on_cuda_under_compile():
    record = {"arch": _device_arch(), "dtype": "float32"}
    zoo = _home.user_zoo()
    store.promote("softmax", kernel_source("old"), make_record(**record), zoo_dir=zoo)
    store.promote(
        "softmax", kernel_source("wide"),
        make_record(**record, shape_bucket="cols_gt_65536"), zoo_dir=zoo,
    )
    pinned = kernel_zoo.load("softmax", version="1.0.0")
    x_narrow = torch.randn(4, 100, device="cuda")
    x_wide = torch.randn(2, 70000, device="cuda")

    # 1.0.0 holds only "any"; 1.1.0 adds a wide-row config: pinned 1.0.0 must ignore it
    torch._dynamo.reset()
    pinned_fn = torch.compile(lambda t: pinned(t, dim=-1) * 2.0, fullgraph=True)
    newest_fn = torch.compile(lambda t: ops.softmax(t, dim=-1) * 2.0, fullgraph=True)
    torch.testing.assert_close(pinned_fn(x_wide), torch.softmax(x_wide, -1) * 2.0)
    torch.testing.assert_close(newest_fn(x_wide), torch.softmax(x_wide, -1) * 2.0)
    # a narrow tensor has no bucket of its own in 1.1.0: its "any" config serves it, not the
    # wide-row one
    torch.testing.assert_close(newest_fn(x_narrow), torch.softmax(x_narrow, -1) * 2.0)

    arch = _device_arch()
    pinned_old = ops._zoo_launcher("softmax", arch, "float32", "cols_gt_65536", pinned._entry)
    newest_wide = ops._zoo_launcher("softmax", arch, "float32", "cols_gt_65536")
    newest_any = ops._zoo_launcher("softmax", arch, "float32", "cols_le_1024")
    assert pinned_old is not None and newest_wide is not None and newest_any is not None
    assert pinned_old.__globals__["TAG"] == "old" and newest_wide.__globals__["TAG"] == "wide"
    # 1.1.0 carries 1.0.0's "any" kernel: one blob, so one module serves both entries
    assert newest_any is pinned_old
    assert pinned_old.__globals__["calls"] == [(2, 70000), (4, 100)]
    assert newest_wide.__globals__["calls"] == [(2, 70000)]


def test_dispatch_decides_once_per_call_signature(monkeypatch):
    decided = []
    real = ops._decide

    def counting(op, args, entry):
        decided.append(tuple(args[0].shape))
        return real(op, args, entry)

    monkeypatch.setattr(ops, "_decide", counting)
    ops.clear_cache()
    x, w = torch.randn(4, 8), torch.ones(8)
    first = ops.rms_norm(x, [8], w, 1e-6)
    second = ops.rms_norm(x.clone(), (8,), w, 1e-6)  # same signature: a tuple is the same list
    torch.testing.assert_close(first, second)
    assert decided == [(4, 8)]
    ops.rms_norm(torch.randn(3, 8), [8], w, 1e-6)  # a new shape is a new decision
    ops.rms_norm(x, [8], w.double(), 1e-6)  # so is another dtype of an argument
    assert decided == [(4, 8), (3, 8), (4, 8)]
    ops.clear_cache()
    ops.rms_norm(x, [8], w, 1e-6)
    assert decided[-1] == (4, 8) and len(decided) == 4


def test_a_first_promotion_into_the_user_zoo_carries_the_shipped_configs():
    """Dispatch reads the newest version of the first layer that serves a call: a user version
    holding only the promoted config would hide the shipped configs of the op's other buckets."""
    import dataclasses as dc

    import tasks
    from agent.loop import _promote
    from agent.plan import plan

    task = tasks.load(REPO / "tasks" / "amax.py")
    found = dc.replace(plan(task), shape_bucket="cols_le_1024")
    template = found.template_object()
    source = template.render(template.default, **found.context)
    env = {"arch": "sm_90", **make_record()["environment"]}
    shutil.copytree(REAL_SHIPPED_ZOO / "amax", _home.SHIPPED_ZOO / "amax")
    (shipped,) = store.newest_entries("amax")
    promoted = _promote(task, found, template, template.default, source, "bfloat16",
                        {"accepted": True, "speedup_vs_eager": 1.5}, env, _home.user_zoo())
    user = store.newest_entries("amax", [_home.user_zoo()])
    assert [e.version for e in user] == [promoted["version"]]
    major, minor, _ = store.parse_version(shipped.version)
    assert promoted["version"] == f"{major}.{minor + 1}.0"  # built on the imported shipped one
    keys = lambda m: sorted({(c["dtype"], c["shape_bucket"]) for c in m["configs"]})  # noqa: E731
    assert keys(user[0].manifest) == keys(shipped.manifest)  # every config still served
    # beside the shipped config of its bucket, which another GPU model was tuned on
    assert len(user[0].manifest["configs"]) == len(shipped.manifest["configs"]) + 1
    served = store.find_config("amax", "sm_90", "bfloat16", bucket="cols_le_1024")
    assert served[0]["version"] == promoted["version"] and served[1]["params"] == \
        dc.asdict(template.default)
    # every other bucket is served what the shipped version serves there (where a bucket holds
    # two GPU models' configs, the one promoted last: no device is named here)
    others = {(c["dtype"], c["shape_bucket"]) for c in shipped.manifest["configs"]
              if c["shape_bucket"] != "cols_le_1024"}
    assert others
    for dtype, bucket in sorted(others):
        expected = store.select_config(shipped.manifest, "sm_90", dtype, bucket, None)
        assert store.find_config("amax", "sm_90", dtype, bucket=bucket)[1]["params"] == \
            expected["params"], (dtype, bucket)
    # a second promotion builds on the user zoo's own newest version, importing nothing again
    again = _promote(task, found, template, template.default, source, "bfloat16",
                     {"accepted": True, "speedup_vs_eager": 1.6}, env, _home.user_zoo())
    assert again["version"] == f"{major}.{minor + 2}.0"


def _restore_and_zoo(tmp_path: Path, op: str, versions: tuple[str, ...]):
    """bench/restore_model_configs.py as a module, and a zoo in tmp_path holding copies of the
    shipped `versions` of `op`."""
    import importlib.util

    from conftest import copy_entry

    spec = importlib.util.spec_from_file_location(
        "restore_model_configs", REPO / "bench" / "restore_model_configs.py")
    restore = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(restore)
    zoo = tmp_path / "zoo"
    for version in versions:
        copy_entry(REAL_SHIPPED_ZOO, op, version, zoo)
    return restore, zoo


def test_restore_carries_a_models_replaced_configs_back_unchanged(tmp_path: Path):
    """bench/restore_model_configs.py on geglu 1.17.0-1.20.0 (the H200's cols_gt_4096 configs took
    the H100's places, one dtype a version): the H100's three come back in one new version beside
    the H200's, each with its record and bytes and the version it came from; each GPU model is then
    served its own; a second run finds nothing to restore."""
    restore, zoo = _restore_and_zoo(tmp_path, "geglu", ("1.17.0", "1.18.0", "1.19.0", "1.20.0"))
    h100, h200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
    assert restore.main(["--device", h100, "--zoo", str(zoo), "--ops", "geglu"]) == 0
    (entry,) = store.newest_entries("geglu", [zoo])
    assert entry.version == "1.21.0"
    restored = {c["dtype"]: c for c in entry.manifest["configs"] if c.get("restored_from")}
    assert {d: c["restored_from"] for d, c in restored.items()} == {
        "bfloat16": "1.17.0", "float16": "1.18.0", "float32": "1.19.0"}
    for dtype, config in restored.items():
        assert config["device"] == h100 and config["shape_bucket"] == "cols_gt_4096"
        origin = store.read_manifest(zoo / "geglu" / config["restored_from"])
        (before,) = [c for c in origin["configs"] if c["dtype"] == dtype
                     and c["shape_bucket"] == "cols_gt_4096"]
        assert {k: v for k, v in config.items() if k not in ("file", "restored_from")} == \
            {k: v for k, v in before.items() if k not in ("file", "restored_from")}
        assert store.read_entry_file(entry.path, entry.manifest, config["file"]) == \
            store.read_entry_file(zoo / "geglu" / config["restored_from"], origin, before["file"])
        for device in (h100, h200):
            _, served, _ = store.find_config("geglu", "sm_90", dtype, [zoo],
                                             bucket="cols_gt_4096", device=device)
            assert served["device"] == device
    assert restore.replaced_configs(zoo, "geglu", h100) == []


def test_rollback_lands_an_earlier_versions_config_of_one_bucket_unchanged(tmp_path: Path,
                                                                             capsys):
    """bench/restore_model_configs.py --rollback on layer_norm 1.29.0-1.32.0 (1.32.0's float32
    cols_le_16384 took the bucket on a bar met by the timer's spread, GPU round 401): one new
    version serves the H200 1.29.0's config again, record and bytes unchanged and marked
    `restored_from`; every other config is 1.32.0's; rolling back again, or to what is served,
    or from a version or config that is not there, is a usage error naming it."""
    restore, zoo = _restore_and_zoo(tmp_path, "layer_norm",
                                    ("1.29.0", "1.30.0", "1.31.0", "1.32.0"))
    h200 = "NVIDIA H200"
    args = ["--device", h200, "--zoo", str(zoo), "--ops", "layer_norm"]
    assert restore.main([*args, "--rollback", "float32:cols_le_16384:1.29.0"]) == 0
    (entry,) = store.newest_entries("layer_norm", [zoo])
    assert entry.version == "1.33.0"
    origin = store.read_manifest(zoo / "layer_norm" / "1.29.0")
    latest = store.read_manifest(zoo / "layer_norm" / "1.32.0")

    def key(c):
        return c["arch"], c["dtype"], c["shape_bucket"], c["device"]

    def same(a, b):
        return {k: v for k, v in a.items() if k not in ("file", "restored_from")} == \
            {k: v for k, v in b.items() if k not in ("file", "restored_from")}

    rolled = ("sm_90", "float32", "cols_le_16384", h200)
    now = {key(c): c for c in entry.manifest["configs"]}
    assert set(now) == {key(c) for c in latest["configs"]}
    (before,) = [c for c in origin["configs"] if key(c) == rolled]
    assert now[rolled]["restored_from"] == "1.29.0" and same(now[rolled], before)
    assert store.read_entry_file(entry.path, entry.manifest, now[rolled]["file"]) == \
        store.read_entry_file(zoo / "layer_norm" / "1.29.0", origin, before["file"])
    replaced = next(c for c in latest["configs"] if key(c) == rolled)
    assert not same(replaced, before)  # 1.32.0 served another config there
    for config in latest["configs"]:
        if key(config) != rolled:
            assert same(now[key(config)], config) and "restored_from" not in now[key(config)]
            assert store.read_entry_file(entry.path, entry.manifest, now[key(config)]["file"]) \
                == store.read_entry_file(zoo / "layer_norm" / "1.32.0", latest, config["file"])
    _, served, _ = store.find_config("layer_norm", "sm_90", "float32", [zoo],
                                     bucket="cols_le_16384", device=h200)
    assert served["restored_from"] == "1.29.0"
    capsys.readouterr()
    for spec_, why in (("float32:cols_le_16384:1.29.0", "already"),
                       ("float32:cols_le_16384:1.9.0", "no version 1.9.0"),
                       ("float32:cols_gt_65536:1.29.0", "no float32 cols_gt_65536 config"),
                       ("float32:cols_le_16384", "expected DTYPE:BUCKET:VERSION")):
        with pytest.raises(SystemExit) as exit_:
            restore.main([*args, "--rollback", spec_])
        assert exit_.value.code == 2 and why in capsys.readouterr().err
    assert store.newest_entries("layer_norm", [zoo])[0].version == "1.33.0"  # nothing landed


def test_zoo_cli_names_the_gpu_model_where_a_bucket_holds_two(tmp_path: Path):
    """`kzoo zoo diff` matches configs by GPU model too where a bucket holds two models' configs
    (the H200's unchanged, the H100's added), and by label alone elsewhere (one model's config
    replacing another's is a change of device); `kzoo zoo list` names such a bucket once."""
    zoo = tmp_path / "zoo"
    h100, h200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
    store.promote("softmax", kernel_source("a"), make_record(device=h100), zoo_dir=zoo)
    v2 = store.promote("softmax", kernel_source("b"), make_record(device=h200), zoo_dir=zoo)
    entries = {e.version: e for e in store.iter_entries([zoo])}
    diff = zoo_cli.diff_entries(entries["1.0.0"], entries[v2["version"]])["configs"]
    assert diff["added"] == ["sm_90/bfloat16/any @NVIDIA H200"]
    assert diff["unchanged"] == ["sm_90/bfloat16/any @NVIDIA H100 80GB HBM3"]
    assert diff["removed"] == [] and diff["changed"] == {}
    assert zoo_cli._format_configs(entries[v2["version"]].manifest["configs"]) == "sm_90/bfloat16"
    one = tmp_path / "one"
    store.promote("softmax", kernel_source("a"), make_record(device=h100), zoo_dir=one)
    manifest = store.read_manifest(one / "softmax" / "1.0.0")
    replaced = {**manifest, "configs": [{**manifest["configs"][0], "device": h200}]}
    before = store.Entry("softmax", "1.0.0", one, "user", one / "softmax" / "1.0.0", manifest)
    after = store.Entry("softmax", "1.1.0", one, "user", one / "softmax" / "1.0.0", replaced)
    changed = zoo_cli.diff_entries(before, after)["configs"]["changed"]
    assert changed["sm_90/bfloat16/any"]["device"] == {"old": h100, "new": h200}


def test_rerender_script_starts_from_the_entry_params_completed_as_they_were():
    """bench/rerender_entries.sh's start for matmul float16 (an entry from before shift_tail, at
    SPLIT_K 8): every knob of the template, the newer ones at the values that keep the entry's
    kernel as it was, not the bucket start's (SKINNY_DEFAULT's shift_tail, which --start refuses
    beside split-K)."""
    from agent.loop import _start_params
    from agent.plan import plan
    import tasks
    from templates import get_template

    script = (REPO / "bench" / "rerender_entries.sh").read_text()
    snippet = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": ""}
    env.pop("KNOBS", None)
    out = subprocess.run([sys.executable, "-c", snippet, "matmul", "float16"], env=env,
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    start = json.loads(out)
    template = get_template("gemm")
    assert set(start) == {p.name for p in template.space}
    assert start["SPLIT_K"] == 8 and start["shift_tail"] is False
    found = plan(tasks.load(REPO / "tasks" / "matmul_skinny.py"))
    assert _start_params(template, found, start) == start


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_linear_gelu_is_served_and_yields_without_nvcc_on_the_gpu(monkeypatch, caplog):
    """`ops.linear(x, w, b, "gelu")` from the shipped zoo, as a user calls it: correct at 8192 x
    4096 -> 8192 bfloat16 (the H200's config is gemm_cuda's CUDA C++ kernel); then, as on a
    machine without nvcc, correct again from the bucket's other GPU model's Triton kernel, with a
    warning saying why (where this GPU's config is the CUDA one)."""
    from conftest import copy_entry

    from kernel_zoo import cuda_ext

    # the shipped entry, copied into this test's (isolated, empty) shipped zoo
    version = store.newest_entries("linear_bias_gelu", [REAL_SHIPPED_ZOO])[0].version
    copy_entry(REAL_SHIPPED_ZOO, "linear_bias_gelu", version, _home.SHIPPED_ZOO)
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(8192, 4096, device="cuda", generator=gen).to(torch.bfloat16)
    w = (torch.randn(8192, 4096, device="cuda", generator=gen) / 64).to(torch.bfloat16)
    b = (torch.randn(8192, device="cuda", generator=gen) / 2).to(torch.bfloat16)
    ref = torch.nn.functional.gelu(torch.nn.functional.linear(x.double(), w.double(), b.double()))
    eager = torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b)).double()
    bound = 2 * ((eager - ref).norm() / ref.norm()).item()
    found = store.find_config("linear_bias_gelu", _device_arch(), "bfloat16",
                              device=torch.cuda.get_device_name())
    assert found is not None
    served_cuda = found[1]["template"] == "gemm_cuda"
    ops.clear_cache()
    try:
        for without_nvcc in (False, True):
            if without_nvcc:
                monkeypatch.setattr(cuda_ext, "find_nvcc", lambda: None)
                ops.clear_cache()
                store.clear_loaded()
            with caplog.at_level(logging.WARNING, logger="kernel_zoo"):
                y = ops.linear(x, w, b, activation="gelu")
            err = ((y.double() - ref).norm() / ref.norm()).item()
            assert err <= bound, (without_nvcc, err, bound)
        warned = [r.getMessage() for r in caplog.records if "cannot be built here" in
                  r.getMessage()]
        assert bool(warned) == served_cuda, warned
    finally:
        ops.clear_cache()


def test_the_readmes_table_of_shipped_entries_names_each_ops_newest_version_and_buckets():
    """The README's table of what ships (op, version, template, buckets by dtype) is the shipped
    zoo's: each op's newest version, and per dtype the buckets its configs cover ("the same": as
    bfloat16; "-": none). Rounds 457-458 promoted rms_norm and add_rms_norm and left the table on
    the versions before."""
    import re

    root = Path(__file__).resolve().parents[1]
    lines = (root / "README.md").read_text().splitlines()
    header = "| op | version | template | bfloat16 | float32 | float16 |"
    rows = lines[lines.index(header) + 2:]
    rows = rows[:next(i for i, line in enumerate(rows) if not line.startswith("|"))]
    shipped = root / "kernel_zoo" / "entries"
    named = set()
    for line in rows:
        op, version, _template, *cells = [c.strip() for c in line.strip("|").split("|")]
        named.add(op)
        entry = next(iter(store.newest_entries(op, [shipped])))
        assert entry.manifest["version"] == version, (op, version)
        covered: dict[str, set] = {}
        for config in entry.manifest["configs"]:
            covered.setdefault(config["dtype"], set()).add(config["shape_bucket"])
        listed = {}
        for dtype, cell in zip(("bfloat16", "float32", "float16"), cells):
            listed[dtype] = (listed["bfloat16"] if cell == "the same"
                             else set() if cell == "-" else set(re.findall(r"`([^`]+)`", cell)))
            assert listed[dtype] == covered.get(dtype, set()), (op, dtype)
    assert named == {p.name for p in shipped.iterdir() if p.is_dir()}
