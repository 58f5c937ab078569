"""The kernel zoo: store (promote, list, layered lookup, integrity), ops dispatch, `kzoo zoo`."""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from agent import zoo_cli
from kernel_zoo import _home, ops, store
from kernel_zoo.store import ZooError, ZooIntegrityError

REPO = Path(__file__).resolve().parents[1]


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


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(autouse=True)
def isolated_zoo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Default layers point into tmp_path: the real user and shipped zoos are never touched."""
    monkeypatch.setenv("KZOO_HOME", str(tmp_path / "kzoo_home"))
    monkeypatch.setattr(_home, "SHIPPED_ZOO", tmp_path / "shipped_zoo")
    ops.clear_cache()
    yield
    ops.clear_cache()


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
    assert (zoo / "softmax/1.1.0" / bf16_file).read_bytes() == (
        zoo / "softmax/1.0.0" / bf16_file
    ).read_bytes()

    third = store.promote("softmax", kernel_source("bf16-b"), make_record(), zoo_dir=zoo)
    assert third["version"] == "1.2.0"
    v12 = store.read_manifest(Path(third["path"]))
    assert sorted((c["dtype"], c["file"]) for c in v12["configs"]) == [
        ("bfloat16", bf16_file),
        ("float32", "softmax_sm_90_float32.py"),
    ]
    assert "bf16-b" in (zoo / "softmax/1.2.0" / bf16_file).read_text()
    # immutability: the old version still holds the old kernel
    assert "bf16-a" in (zoo / "softmax/1.0.0" / bf16_file).read_text()

    for version in ("1.0.0", "1.1.0", "1.2.0"):
        entry_dir = zoo / "softmax" / version
        manifest = store.read_manifest(entry_dir)
        on_disk = sorted(p.name for p in entry_dir.iterdir() if p.name != "manifest.json")
        assert sorted(manifest["files"]) == on_disk
        for name, digest in manifest["files"].items():
            assert sha256_file(entry_dir / name) == digest
        assert manifest["schema"] == 1 and manifest["created"].endswith("+00:00")
    assert [p.name for p in (zoo / "softmax").iterdir() if p.name.startswith(".")] == []


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
        assert sha256_file(zoo / "softmax" / "1.7.0" / name) == digest


# ---------------------------------------------------------------------------------------------
# integrity and manifest validation


def test_tampered_kernel_is_refused(tmp_path: Path):
    zoo = tmp_path / "zoo"
    result = store.promote("softmax", kernel_source("ok"), make_record(), zoo_dir=zoo)
    manifest, config, entry_dir = store.find_config("softmax", "sm_90", "bfloat16", [zoo])
    store.load_kernel(entry_dir, config, manifest)  # loads fine before the edit

    kernel = Path(result["path"]) / config["file"]
    data = bytearray(kernel.read_bytes())
    data[data.index(b"ok")] = ord("O")
    kernel.write_bytes(bytes(data))
    with pytest.raises(ZooIntegrityError) as excinfo:
        store.load_kernel(entry_dir, config, manifest)
    message = str(excinfo.value)
    assert str(kernel.resolve()) in message
    assert "modified after it was verified" in message and "will not be loaded" in message

    # promote must not carry a tampered file forward either, nor leave a half-built version
    with pytest.raises(ZooIntegrityError):
        store.promote("softmax", "x = 1\n", make_record(dtype="float32"), zoo_dir=zoo)
    assert sorted(p.name for p in (zoo / "softmax").iterdir()) == ["1.0.0"]

    kernel.unlink()
    with pytest.raises(ZooIntegrityError, match="missing"):
        store.load_kernel(entry_dir, config, manifest)


def test_tampered_kernel_is_not_hidden_by_the_ops_fallback(tmp_path: Path):
    result = store.promote("softmax", kernel_source("ok"), make_record(), zoo_dir=_home.user_zoo())
    (Path(result["path"]) / "softmax_sm_90_bfloat16.py").write_text("TAG = 'swapped'\n")
    with pytest.raises(ZooIntegrityError):
        ops._zoo_launcher("softmax", "sm_90", "bfloat16")


@pytest.mark.parametrize(
    "breakage,problem",
    [
        (lambda m: m.pop("created"), "missing field 'created'"),
        (lambda m: m["configs"][0].pop("dtype"), "configs[0]: missing field 'dtype'"),
        (lambda m: m.update(schema=2), "schema 2 is not supported"),
        (lambda m: m["files"].clear(), "has no sha256"),
        (lambda m: m.update(version="1.0"), "not a MAJOR.MINOR.PATCH version"),
        (lambda m: m["configs"][0].update(params=[1]), "'params' must be dict"),
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

    assert Path(module.__file__) == (entry_dir / config["file"]).resolve()
    assert module.TAG == "real" and sys.modules[module.__name__] is module
    x = torch.randn(3, 7)
    torch.testing.assert_close(module.launch_softmax(x), torch.softmax(x, -1))
    assert module.calls == [(3, 7)]
    assert store.load_kernel(entry_dir, config, manifest) is module

    # the same file carried into another version is a distinct module under a distinct name
    old_dir = entry_dir.parent / "1.0.0"
    old_manifest = store.read_manifest(old_dir)
    old = store.load_kernel(old_dir, old_manifest["configs"][0], old_manifest)
    assert old is not module and old.__name__ != module.__name__ and old.TAG == "real"
    assert not (entry_dir / "__pycache__").exists()


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
    assert code == 0 and lines[0].split() == ["op", "version", "layer", "configs", "created"]
    assert lines[2].split()[:5] == ["softmax", "1.1.0", "user", "sm_90/bfloat16", "sm_90/float32"]


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
