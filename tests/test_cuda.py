"""The CUDA C++ path: the source guards, nvcc builds and their verdicts, the templates, and (on a GPU)
CUDA candidates through the verifier, cheats included.

Without a GPU, nvcc still compiles (for sm_90, or sm_90a for the Hopper GEMMs) and the verifier
says plainly that running needs a GPU. Compiles take seconds each, so only a few are made: the
three templates' defaults (through the verifier), one sampled config of each, one broken source,
bench/probe_split_ring.py's kernels, and the Hopper GEMM probe's (bench/cuda_gemm_source.py) beside
gemm_cuda's.
"""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import jinja2
import pytest

import bench_scripts
import search
import tasks
from conftest import ROOT
from kernel_zoo import cuda_ext, cuda_sm90
from templates import InvalidConfig, get_template, params_of
from verifier import guards, runtime
from verifier.cuda_guards import check_cuda_source
from verifier.core import Verifier
from verifier.exploits import EXPLOITS
from verifier.worker import detect_mode

SOFTMAX_CUDA = get_template("softmax_cuda")
POINTWISE_CUDA = get_template("pointwise_cuda")
GEMM_CUDA = get_template("gemm_cuda")
CUDA_TASKS = ROOT / "tests" / "cuda_tasks"
CORPUS = ROOT / "tests" / "cuda_adversarial"
NVCC = cuda_ext.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found (CUDA_HOME, PATH, "
                                "/usr/local/cuda*/bin): CUDA C++ compile tests need it")

SWIGLU = dict(op="swiglu", expr=["mul", ["silu", ["input", 0]], ["input", 1]], params=[],
              inputs=[{"kind": "full", "source": "arg", "index": 0},
                      {"kind": "full", "source": "arg", "index": 1}])
GEGLU = dict(SWIGLU, op="geglu", expr=["mul", ["gelu", ["input", 0], "none"], ["input", 1]])
BIAS_GELU_RESIDUAL = dict(
    op="bias_gelu_residual", params=[{"path": "bias", "shape": [1001]}],
    expr=["add", ["mul", ["gelu", ["add", ["input", 0], ["input", 1]], "tanh"], ["const", 0.5]],
          ["input", 2]],
    inputs=[{"kind": "full", "source": "arg", "index": 0},
            {"kind": "row", "source": "param", "path": "bias"},
            {"kind": "full", "source": "arg", "index": 1}],
)
SOFTMAX_LAST = dict(op="softmax", dim=1, dim_is_last=True, params=[])
LOG_SOFTMAX_DIM1 = dict(op="log_softmax", dim=1, dim_is_last=False, params=[])


def sample_configs(template, n: int, seed: int) -> list:
    rng = random.Random(seed)
    configs = []
    while len(configs) < n:
        cfg = template.draw(rng)
        if not template.violations(cfg) and cfg != template.default and cfg not in configs:
            configs.append(cfg)
    return configs


def cuda_source_of(module_source: str) -> str:
    tree = ast.parse(module_source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "CUDA_SOURCE":
            return node.value.value
    raise AssertionError("no CUDA_SOURCE in the rendered module")


def expectation(path: Path, mode: str) -> tuple[str, set[str]]:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    fields = dict(line.split(":", 1) for line in doc.splitlines() if line.startswith("EXPECT_"))
    verdict, _, classes = fields["EXPECT_GPU" if mode == "gpu" else "EXPECT_CPU"].strip() \
        .partition(" ")
    return verdict, set(filter(None, classes.split("|")))


@pytest.fixture
def cuda_home(tmp_path, monkeypatch) -> Path:
    """A fresh $KZOO_HOME, so builds really run nvcc instead of reading a cache."""
    monkeypatch.setenv("KZOO_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


# ---- the CUDA source guards: one row per rule -------------------------------------------------
CLEAN = """#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k(float* y, int64_t n) { if (threadIdx.x < n) y[threadIdx.x] = 1.0f; }
extern "C" int run(void* y, int64_t n, cudaStream_t stream) {
    k<<<1, 32, 0, stream>>>((float*)y, n);
    return (int)cudaGetLastError();
}
"""
HOST = 'extern "C" int run(void* y, int64_t n, cudaStream_t stream) {\n'

GUARD_ROWS = [
    ("include_stdlib", "#include <stdlib.h>\n" + CLEAN, "forbidden-import"),
    ("include_local", '#include "evil.h"\n' + CLEAN, "forbidden-import"),
    ("include_macro", "#define H <stdio.h>\n#include H\n" + CLEAN, "forbidden-import"),
    ("cuda_malloc", CLEAN.replace(HOST, HOST + "    void* p; cudaMalloc(&p, 64);\n"),
     "forbidden-api"),
    ("cuda_memcpy", CLEAN.replace(HOST, HOST + "    cudaMemcpyAsync(y, y, 4, "
                                  "cudaMemcpyDeviceToDevice, stream);\n"), "forbidden-api"),
    ("cuda_stream_create", CLEAN.replace(HOST, HOST + "    cudaStream_t s; cudaStreamCreate(&s);\n"),
     "side-stream"),
    ("cuda_event", CLEAN.replace(HOST, HOST + "    cudaEvent_t e; cudaEventCreate(&e);\n"),
     "forbidden-api"),
    ("cuda_graph", CLEAN.replace(HOST, HOST + "    cudaGraph_t g;\n"), "forbidden-api"),
    ("device_sync", CLEAN.replace(HOST, HOST + "    cudaDeviceSynchronize();\n"), "forbidden-api"),
    ("set_device", CLEAN.replace(HOST, HOST + "    cudaSetDevice(1);\n"), "forbidden-api"),
    ("driver_api", CLEAN.replace(HOST, HOST + "    cuCtxSynchronize();\n"), "forbidden-api"),
    ("managed", "__managed__ float cache[16];\n" + CLEAN, "forbidden-api"),
    ("asm", CLEAN.replace(HOST, HOST + '    asm volatile("syscall");\n'), "forbidden-api"),
    ("token_paste", "#define J(a, b) a##b\n" + CLEAN, "forbidden-api"),
    ("pragma_other", "#pragma GCC optimize(\"O0\")\n" + CLEAN, "forbidden-api"),
    ("line_directive", "#line 1 \"x.cu\"\n" + CLEAN, "forbidden-api"),
    ("raw_string", CLEAN.replace(HOST, HOST + '    const char* s = R"(x)";\n'), "syntax-error"),
    ("system", CLEAN.replace(HOST, HOST + '    system("id");\n'), "host-escape"),
    ("popen", CLEAN.replace(HOST, HOST + '    popen("id", "r");\n'), "host-escape"),
    ("fopen", CLEAN.replace(HOST, HOST + '    fopen("/etc/passwd", "r");\n'), "host-escape"),
    ("dlopen", CLEAN.replace(HOST, HOST + '    dlopen("libc.so.6", 0);\n'), "host-escape"),
    ("getenv", CLEAN.replace(HOST, HOST + '    getenv("HOME");\n'), "host-escape"),
    ("thread", CLEAN.replace(HOST, HOST + "    std::thread t;\n"), "host-escape"),
    ("load_time_code", "__attribute__((constructor)) static void init() {}\n" + CLEAN,
     "host-escape"),
    ("extern_declaration", 'extern "C" int system(const char*);\n' + CLEAN, "host-escape"),
    ("extern_block", 'extern "C" {\nint puts(const char*);\n}\n' + CLEAN, "host-escape"),
    ("split_name", CLEAN.replace(HOST, HOST + "    void* p; cudaMal\\\nloc(&p, 64);\n"),
     "forbidden-api"),
    ("launch_default_stream", CLEAN.replace("k<<<1, 32, 0, stream>>>", "k<<<1, 32>>>"),
     "side-stream"),
    ("launch_literal_stream", CLEAN.replace("k<<<1, 32, 0, stream>>>",
                                            "k<<<1, 32, 0, (cudaStream_t)0>>>"), "side-stream"),
    # kernel-zoo's Hopper header is allowed; it lends no asm, driver call or other header
    ("sm90_header_then_asm", '#include "kzoo_sm90.cuh"\n'
     + CLEAN.replace(HOST, HOST + '    asm volatile("trap;");\n'), "forbidden-api"),
    ("sm90_header_then_driver", '#include "kzoo_sm90.cuh"\n'
     + CLEAN.replace(HOST, HOST + "    cuTensorMapEncodeIm2col(0);\n"), "forbidden-api"),
    ("other_kzoo_header", '#include "kzoo_sm91.cuh"\n' + CLEAN, "forbidden-import"),
]


@pytest.mark.parametrize("source,exploit", [r[1:] for r in GUARD_ROWS],
                         ids=[r[0] for r in GUARD_ROWS])
def test_cuda_guard_catches(source, exploit):
    findings = check_cuda_source(source)
    assert exploit in {f.exploit for f in findings}, findings
    assert all(f.exploit in EXPLOITS for f in findings)


def test_cuda_guard_passes_clean_sources_and_reads_tokens_not_text():
    assert check_cuda_source(CLEAN) == []
    # Forbidden names in comments and strings are not code; digit separators are not literals.
    quiet = CLEAN.replace(HOST, HOST + '    // cudaMalloc, system()\n    /* fopen */\n'
                          '    const char* s = "getenv cudaMemcpy"; int64_t big = 1\'000\'000;\n')
    assert check_cuda_source(quiet) == []
    for template, context in ((SOFTMAX_CUDA, SOFTMAX_LAST), (POINTWISE_CUDA, BIAS_GELU_RESIDUAL)):
        assert check_cuda_source(cuda_source_of(template.render(template.default, **context))) == []


def test_sm90_header_is_allowed_and_offers_no_escape():
    """`#include "kzoo_sm90.cuh"` passes the guards, and the header itself (trusted: cuda_ext
    writes it beside every build) holds no clock, timer, trap or exit, looks up exactly one driver
    entry point by a fixed name, and includes nothing a candidate could not."""
    assert check_cuda_source('#include "kzoo_sm90.cuh"\n' + CLEAN) == []
    text = cuda_sm90.header()
    for word in ("%clock", "%globaltimer", "trap", "exit;", "nanosleep", "membar", "atom.",
                 "red.global", "cudaMalloc", "cudaMemcpy", "cudaStream", "cudaDeviceSynchronize"):
        assert word not in text, word
    assert text.count("cudaGetDriverEntryPoint") == 1
    assert '"cuTensorMapEncodeTiled"' in text
    includes = {line.split()[1] for line in text.splitlines() if line.startswith("#include")}
    assert includes == {"<cuda.h>", "<cuda_runtime.h>", "<stdint.h>"}
    for n in cuda_sm90.WGMMA_N:
        assert f"kzoo_wgmma_m64n{n}k16_bf16(float (&d)[{n // 2}]" in text


@needs_nvcc
def test_builds_find_the_sm90_header_and_cache_on_it(cuda_home, monkeypatch):
    """cuda_ext writes the header beside the source it builds, so a source that includes it
    compiles; its text is part of the cache key, so a changed header rebuilds."""
    source = ('#include "kzoo_sm90.cuh"\n__global__ void k(float* y) { __shared__ float s[32]; '
              "y[0] = (float)kzoo_smem_addr(s); }\n" + CLEAN)
    first = cuda_ext.compile_source(source, arch="90a")
    assert first.is_file()
    monkeypatch.setattr(cuda_sm90, "header", lambda: cuda_sm90._HEAD + "// changed\n")
    assert cuda_ext.compile_source(source, arch="90a") != first


def test_cuda_guard_findings_name_the_module_line():
    module = '''import torch
from kernel_zoo import cuda_ext

SOURCE = r"""
#include <cuda_runtime.h>
extern "C" int run(void* y, cudaStream_t stream) {
    cudaDeviceReset();
    return 0;
}
"""
_lib = cuda_ext.load(SOURCE, {"run": ("tensor",)})


class ModelNew(torch.nn.Module):
    pass
'''
    findings = guards.check_source(module)
    assert [(f.exploit, f.line) for f in findings] == [("forbidden-api", 7)], findings
    assert "CUDA line 4" in findings[0].message and "cudaDeviceReset" in findings[0].message


# ---- the Python side: only cuda_ext.load, on a source the guards can read ------------------------
WRAPPER = '''import torch
{imports}

SOURCE = "extern \\"C\\" int run(void* y, cudaStream_t stream) {{ return 0; }}"
{body}


class ModelNew(torch.nn.Module):
    pass
'''
PYTHON_ROWS = [
    ("ops", "from kernel_zoo import ops", "", "forbidden-import"),
    ("store", "from kernel_zoo import store", "", "forbidden-import"),
    ("bare_import", "import kernel_zoo.cuda_ext", "", "forbidden-import"),
    ("observer", "from kernel_zoo import cuda_ext", "cuda_ext.set_launch_observer(None)",
     "forbidden-api"),
    ("compile_source", "from kernel_zoo.cuda_ext import compile_source", "", "forbidden-import"),
    ("built_source", "from kernel_zoo import cuda_ext",
     "_lib = cuda_ext.load(SOURCE + '//', {})", "forbidden-api"),
    ("rebound_source", "from kernel_zoo import cuda_ext",
     "SOURCE = SOURCE.upper()\n_lib = cuda_ext.load(SOURCE, {})", "forbidden-api"),
    ("load_as_value", "from kernel_zoo import cuda_ext", "build = cuda_ext.load", "forbidden-api"),
    ("module_as_value", "from kernel_zoo import cuda_ext", "ext = cuda_ext", "forbidden-api"),
    ("cuda_in_literal", "from kernel_zoo import cuda_ext",
     "_lib = cuda_ext.load('#include <unistd.h>\\n', {})", "forbidden-import"),
]


@pytest.mark.parametrize("imports,body,exploit", [r[1:] for r in PYTHON_ROWS],
                         ids=[r[0] for r in PYTHON_ROWS])
def test_python_guard_keeps_candidates_to_cuda_ext_load(imports, body, exploit):
    findings = guards.check_source(WRAPPER.format(imports=imports, body=body))
    assert exploit in {f.exploit for f in findings}, findings


def test_python_guard_allows_the_sanctioned_forms():
    for imports, call in (("from kernel_zoo import cuda_ext", "cuda_ext.load"),
                          ("import kernel_zoo.cuda_ext as ext", "ext.load"),
                          ("from kernel_zoo.cuda_ext import load", "load")):
        source = WRAPPER.format(imports=imports, body=f"_lib = {call}(SOURCE, {{}})")
        assert guards.check_source(source) == [], (imports, guards.check_source(source))


@pytest.mark.parametrize("template,context", [
    (SOFTMAX_CUDA, SOFTMAX_LAST), (SOFTMAX_CUDA, LOG_SOFTMAX_DIM1), (POINTWISE_CUDA, SWIGLU),
    (POINTWISE_CUDA, BIAS_GELU_RESIDUAL),
], ids=["softmax", "log_softmax", "swiglu", "bias_gelu_residual"])
def test_rendered_wrappers_pass_the_python_guards(template, context):
    for cfg in [template.default, *sample_configs(template, 3, seed=5)]:
        assert guards.check_source(template.render(cfg, **context)) == []


def test_launches_of_cuda_entry_points_count_for_their_module():
    runtime.install_launch_hooks()
    with runtime.watch_call("kzoo_candidate_x") as record:
        runtime._count_cuda_launch("kzoo_candidate_x")
        runtime._count_cuda_launch("someone_else")
    assert (record.own_launches, record.other_launches) == (1, 1)
    runtime._count_cuda_launch("kzoo_candidate_x")  # outside a watched call: not counted
    assert cuda_ext._launch_observer is runtime._count_cuda_launch


# ---- templates: spaces, constraints, expressions ------------------------------------------------
def test_spaces_are_real_choices_and_defaults_valid():
    for template in (SOFTMAX_CUDA, POINTWISE_CUDA):
        assert all(len(p.choices) >= 2 for p in template.space)
        assert not template.violations(template.default)
    assert search.space_size(SOFTMAX_CUDA) > 1000
    assert search.space_size(POINTWISE_CUDA) > 300


def test_constraints_prune_spilling_and_oversubscribed_configs():
    spill = dataclasses.replace(SOFTMAX_CUDA.default, cache_vecs=16, vec_bytes=16)
    assert any("spills" in p for p in SOFTMAX_CUDA.violations(spill))
    crowded = dataclasses.replace(SOFTMAX_CUDA.default, block_threads=1024, min_blocks_per_sm=4)
    assert any("2048 threads" in p for p in SOFTMAX_CUDA.violations(crowded))
    with pytest.raises(InvalidConfig):
        SOFTMAX_CUDA.render(spill, **SOFTMAX_LAST)
    fat = dataclasses.replace(POINTWISE_CUDA.default, vec_bytes=16, items_per_thread=8)
    assert any("spill" in p for p in POINTWISE_CUDA.violations(fat))


def test_render_fails_loudly_without_context():
    with pytest.raises(jinja2.UndefinedError):
        SOFTMAX_CUDA.render(SOFTMAX_CUDA.default, op="softmax")  # no dim
    with pytest.raises(InvalidConfig, match="inputs"):
        POINTWISE_CUDA.render(POINTWISE_CUDA.default, op="x", expr=["input", 0], params=[])


def _gemm_context(task_name: str) -> dict:
    from agent.plan import plan

    return plan(tasks.load(ROOT / "tasks" / f"{task_name}.py")).context


def test_gemm_cuda_covers_a_linear_and_a_function_of_its_result_only():
    """gemm_cuda computes f(x @ W^T [+ row bias]): the planner offers it for the Linear tasks
    whose epilogue is such an f, and not where the weight is not K-major, a residual or a row
    norm follows, or the epilogue reads the matmul result more ways than one."""
    from agent.plan import plan
    from templates.gemm_cuda import covers, split_epilogue

    for name in ("linear_bias_gelu", "linear_bias_silu", "linear_bias_gelu_tanh"):
        assert "gemm_cuda" in plan(tasks.load(ROOT / "tasks" / f"{name}.py")).alternatives, name
    for name in ("matmul", "linear_residual", "linear_layer_norm"):
        assert plan(tasks.load(ROOT / "tasks" / f"{name}.py")).alternatives == (), name
    row = [{"kind": "row", "source": "param", "path": "fc.bias"}]
    full = [{"kind": "full", "source": "arg", "index": 1}]
    gelu = ["gelu", ["add", ["acc"], ["input", 0]], "none"]
    assert split_epilogue(gelu, row) == (0, ["gelu", ["input", 0], "none"])
    assert split_epilogue(["add", ["input", 0], ["acc"]], row) == (0, ["input", 0])
    assert split_epilogue(["mul", ["acc"], ["sigmoid", ["acc"]]], []) == \
        (None, ["mul", ["input", 0], ["sigmoid", ["input", 0]]])
    context = _gemm_context("linear_bias_gelu")
    assert covers(context) is None
    for change, why in (({"epilogue": ["add", ["acc"], ["input", 0]], "inputs": full},
                         "beside the pre-activation"),
                        ({"epilogue": ["mul", ["add", ["acc"], ["input", 0]], ["acc"]]},
                         "with and without the bias"),
                        ({"epilogue": ["mul", ["acc"], ["input", 0]]}, "beside"),
                        ({"epilogue": ["const", 1.0]}, "never reads"),
                        ({"a": {**context["a"], "transposed": True}}, "x @ W^T"),
                        ({"b": {**context["b"], "transposed": False}}, "x @ W^T"),
                        ({"row_norm": {"kind": "rms"}}, "row norm"),
                        ({"inputs": row + row}, "at most one input")):
        reason = covers({**context, **change})
        assert reason is not None and why in reason, (change, reason)
        with pytest.raises(InvalidConfig, match="gemm_cuda"):
            GEMM_CUDA.render(GEMM_CUDA.default, **{**context, **change})


def test_gemm_cuda_renders_guarded_modules_with_their_triton_companion():
    """Every config of the space that fits shared memory renders a module that passes both
    guards (its PTX is the header's), runs the Triton gemm template's kernels under `_triton_`
    for the calls the CUDA kernel leaves, and translates the epilogue after the bias."""
    from templates.gemm_cuda import TRITON_PARAMS, shared_bytes

    assert all(len(p.choices) >= 2 for p in GEMM_CUDA.space)
    assert not GEMM_CUDA.violations(GEMM_CUDA.default)
    fits = {(bn, stages) for bn in (192, 256) for stages in range(2, 7)
            if not GEMM_CUDA.violations(dataclasses.replace(GEMM_CUDA.default, bn=bn,
                                                            stages=stages))}
    assert fits == {(192, 2), (192, 3), (192, 4), (256, 2), (256, 3)}
    too_deep = dataclasses.replace(GEMM_CUDA.default, stages=5)
    assert shared_bytes(too_deep) > 232448
    with pytest.raises(InvalidConfig, match="shared memory"):
        GEMM_CUDA.render(too_deep, **_gemm_context("linear_bias_gelu"))
    get_template("gemm").config(TRITON_PARAMS)  # a config of today's gemm space
    for task_name, post in (("linear_bias_gelu", "gelu_erf_f(in0)"),
                            ("linear_bias_silu", "silu_f(in0)")):
        context = _gemm_context(task_name)
        for cfg in [GEMM_CUDA.default, *sample_configs(GEMM_CUDA, 1, seed=7)]:
            module = GEMM_CUDA.render(cfg, **context)
            assert guards.check_source(module) == [], params_of(cfg)
            cuda = cuda_source_of(module)
            assert check_cuda_source(cuda) == []
            assert f"return {post};" in cuda and f"#define BN {cfg.bn}" in cuda
            op = context["op"]
            assert f"def launch_{op}(" in module and f"def _triton_launch_{op}(" in module
            assert "_triton_ModelNew" in module and "\nclass ModelNew(" in module


@pytest.mark.parametrize("expr,code", [
    (["mul", ["silu", ["input", 0]], ["input", 1]], "(silu_f(in0) * in1)"),
    (["gelu", ["input", 0], "none"], "gelu_erf_f(in0)"),
    (["gelu", ["input", 0], "tanh"], "gelu_tanh_f(in0)"),
    (["leaky_relu", ["input", 0], 0.01], "leaky_relu_f(in0, 0.01f)"),
    (["hardtanh", ["input", 0], -1, 1], "fminf(fmaxf(in0, -1.0f), 1.0f)"),
    (["clamp", ["input", 0], None, 6.0], "fminf(in0, 6.0f)"),
    (["softplus", ["input", 0], 1.0, 20.0], "softplus_f(in0, 1.0f, 20.0f)"),
    (["add", ["mish", ["input", 0]], ["const", 1e-05]], "(mish_f(in0) + 1e-05f)"),
    (["where", ["gt", ["input", 0], ["const", 0.0]], ["input", 0], ["input", 1]],
     "((((in0) > (0.0f) ? 1.0f : 0.0f)) != 0.0f ? (in0) : (in1))"),
])
def test_expressions_translate_to_cuda(expr, code):
    from templates.pointwise_cuda import cuda_expr

    assert cuda_expr(expr, n_inputs=2) == code


@pytest.mark.parametrize("expr,message", [
    (["cosh", ["input", 0]], "unknown op 'cosh'"),
    (["input", 2], "not one of the 2 inputs"),
    (["add", ["input", 0]], "takes 2 argument"),
    (["gelu", ["input", 0], "erf"], "approximate"),
    (["const", float("nan")], "finite number"),
])
def test_malformed_expressions_are_refused(expr, message):
    from templates.pointwise_cuda import cuda_expr

    with pytest.raises(InvalidConfig, match=message):
        cuda_expr(expr, n_inputs=2)


def test_optuna_searches_the_cuda_templates(tmp_path):
    """The loop's own mapping (search.suggest) turns trials into renderable CUDA configs."""
    import optuna

    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    rendered = 0
    for _ in range(12):
        trial = study.ask()
        cfg = search.suggest(trial, SOFTMAX_CUDA)
        if SOFTMAX_CUDA.violations(cfg):
            search.reject(study, trial, SOFTMAX_CUDA.violations(cfg))
            continue
        assert guards.check_source(SOFTMAX_CUDA.render(cfg, **SOFTMAX_LAST)) == []
        study.tell(trial, 1.0)
        rendered += 1
    assert rendered >= 3


def test_cuda_check_renders_both_templates_of_every_op():
    """bench/cuda_check.py (a GPU-only script) takes each op's CUDA and Triton templates and their
    context from the task's plan: both render. Its hand-written contexts once went stale (the
    Triton softmax template gained `log`) and the script failed on the GPU in round 425."""
    module = bench_scripts.load("cuda_check")
    found = module.rows()
    assert [r[0] for r in found] == list(module.OPS)
    for _, task_path, (cuda_name, cuda_ctx), (triton_name, triton_ctx) in found:
        assert task_path.is_file() and cuda_name.endswith("_cuda")
        for name, context in ((cuda_name, cuda_ctx), (triton_name, triton_ctx)):
            template = get_template(name)
            assert "ModelNew" in template.render(template.default, **context)
    assert [r[0] for r in module.rows(["geglu"])] == ["geglu"]


# ---- nvcc: builds, the cache, compile errors, and the interpreter's verdict ----------------------
@needs_nvcc
def test_sampled_configs_compile_for_sm90(cuda_home):
    for template, context, seed in ((SOFTMAX_CUDA, LOG_SOFTMAX_DIM1, 11),
                                    (POINTWISE_CUDA, BIAS_GELU_RESIDUAL, 12)):
        (cfg,) = sample_configs(template, 1, seed)
        source = cuda_source_of(template.render(cfg, **context))
        path = cuda_ext.compile_source(source, arch="90")
        assert path.is_file() and path.parent == cuda_home / "cuda", params_of(cfg)
        assert cuda_ext.compile_source(source, arch="90") == path  # the cache, no rebuild
    assert not list((cuda_home / "cuda").glob("build-*"))  # no half-written builds left


@needs_nvcc
def test_split_ring_probe_builds_and_plans_for_sm90(cuda_home):
    """bench/probe_split_ring.py (GPU round 427) still builds, and each variant's plan fits: the
    split times the slice covers the row, slices stay float4-aligned, the ring fits the shared
    memory it asks for and holds more slots than the lag."""
    probe = bench_scripts.load("probe_split_ring")
    assert cuda_ext.compile_source(probe.source(), arch="90").is_file()
    for (rows, cols), variants in probe.SHAPES.items():
        for groups, _threads, lag in variants:
            plan = probe.plan(cols, 132, groups, lag)
            assert plan["groups"] * plan["split"] == 132
            assert plan["slice_len"] % 4 == 0 and plan["split"] * plan["slice_len"] >= cols
            assert plan["depth"] * plan["slice_len"] * 4 <= probe.SMEM_BYTES
            assert plan["depth"] > lag + 1
    assert probe.plan(32768, 132, 5, 2) is None  # 5 groups do not divide 132 SMs


@needs_nvcc
def test_hopper_gemm_probe_builds_for_sm90a_only(cuda_home):
    """bench/cuda_gemm_source.py (GPU round 452): the probe's variants pass the verifier's CUDA
    guards (their PTX and tensor maps are kzoo_sm90.cuh's), build for the arch-specific sm_90a
    target, and a plain sm_90 build refuses them (wgmma, setmaxnreg), which is why
    `cuda_ext.load(..., arch_specific=True)` exists; the source refuses the option pairs it has no
    code for."""
    gemm = bench_scripts.load("cuda_gemm_source")
    fastest = {"cluster": 2, "store": 3, "stages": 4, "bn": 192, "bias_smem": True}
    probe = bench_scripts.load("probe_cuda_gemm")
    for params in probe.VARIANTS.values():  # no asm or driver call of its own: the header's
        assert check_cuda_source(gemm.source(**params)) == [], params
    edges = {"cluster": 1, "store": 3, "bn": 192, "bias_early": True, "direct_store": True,
             "act_in_consumers": True, "erf_fit": True}
    wide = {"cluster": 2, "store": 3, "stages": 6, "bn": 256, "bk": 32}
    for params in (fastest, edges, wide, {"cluster": 1, "store": 1}):
        path = cuda_ext.compile_source(gemm.source(**params), arch="90a")
        assert path.is_file() and path.name.endswith("_sm90a.so")
    with pytest.raises(cuda_ext.CudaBuildError, match="sm_90"):
        cuda_ext.compile_source(gemm.source(**fastest), arch="90")
    for bad in ({"bn": 192, "store": 1}, {"store": 1, "bias_early": True}, {"store": 5},
                {"cluster": 4}, {**fastest, "bias_early": True}, {**fastest, "stages": 5},
                {**wide, "bk": 16}):
        with pytest.raises(ValueError):
            gemm.source(**bad)


@needs_nvcc
def test_gemm_cuda_builds_for_sm90a_as_the_probe_did(cuda_home):
    """The template's kernel is round 452's fastest probe form (bench/cuda_gemm_source.py): built
    for sm_90a, the bfloat16 kernel of its default has the probe build's opcode counts; a
    sampled config builds too, and a plain sm_90 build refuses the source (wgmma)."""
    import collections
    import re
    import subprocess

    import shutil

    import triton

    cuobjdump = next((p for p in (Path(cuda_ext.find_nvcc()).parent / "cuobjdump",
                                  Path(shutil.which("cuobjdump") or "/nonexistent"),
                                  Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
                                  / "cuobjdump") if p.is_file()), None)
    context = _gemm_context("linear_bias_gelu")
    source = cuda_source_of(GEMM_CUDA.render(GEMM_CUDA.default, **context))
    built = cuda_ext.compile_source(source, arch="90a")
    (cfg,) = sample_configs(GEMM_CUDA, 1, seed=3)
    assert cuda_ext.compile_source(cuda_source_of(GEMM_CUDA.render(cfg, **context)),
                                   arch="90a").is_file()
    with pytest.raises(cuda_ext.CudaBuildError, match="sm_90"):
        cuda_ext.compile_source(source, arch="90")
    if cuobjdump is None:
        pytest.skip("built; no cuobjdump (beside nvcc, on PATH or in Triton) to compare opcodes")
    probe = bench_scripts.load("cuda_gemm_source")
    probe_built = cuda_ext.compile_source(probe.source(cluster=2, store=3, stages=4, bn=192,
                                                       bias_smem=True), arch="90a")

    def opcodes(path: Path, kernel: str) -> collections.Counter:
        sass = subprocess.run([str(cuobjdump), "-sass", str(path)], capture_output=True,
                              text=True, check=True).stdout
        body = next(part for part in sass.split("Function : ")[1:]
                    if kernel in part.split("\n", 1)[0])
        return collections.Counter(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[0-9T]\s+)?"
                                              r"([A-Z0-9_]+)", body))

    assert opcodes(built, "gemm_kernelI13__nv_bfloat16") == \
        opcodes(probe_built, "gemm_bias_gelu_kernel")


@needs_nvcc
@pytest.mark.skipif(detect_mode() == "gpu", reason="without a GPU only")
def test_load_builds_the_arch_specific_target_when_asked(cuda_home):
    source = ('extern "C" int noop(void* x, cudaStream_t stream) '
              "{ return (int)cudaGetLastError(); }\n")
    with pytest.raises(cuda_ext.CudaUnavailableError, match="sm_90a"):
        cuda_ext.load(source, {"noop": ("tensor",)}, arch_specific=True)
    assert list((cuda_home / "cuda").glob("*_sm90a.so"))


@needs_nvcc
@pytest.mark.skipif(detect_mode() == "gpu", reason="the interpreter's verdict; a GPU runs them")
@pytest.mark.parametrize("template,context,task", [
    (SOFTMAX_CUDA, SOFTMAX_LAST, ROOT / "tasks" / "softmax.py"),
    (POINTWISE_CUDA, SWIGLU, CUDA_TASKS / "swiglu.py"),
    (GEMM_CUDA, None, ROOT / "tasks" / "linear_bias_gelu.py"),
], ids=["softmax_cuda", "pointwise_cuda", "gemm_cuda"])
def test_interpreter_compiles_then_says_a_gpu_is_needed(cuda_home, tmp_path, template, context,
                                                        task):
    context = context or _gemm_context(Path(task).stem)
    verdict = Verifier("interpreter", tmp_path).verify(
        tasks.load(task), template.render(template.default, **context), "float32")
    assert not verdict.accepted and verdict.stage == "load"
    assert verdict.exploits == ["needs-gpu"], verdict.reasons
    assert "compiled OK for sm_90" in verdict.reasons[0]
    assert list((cuda_home / "cuda").glob("*.so"))


@needs_nvcc
def test_a_compile_error_is_a_verdict_with_nvcc_lines(cuda_home, tmp_path):
    module = SOFTMAX_CUDA.render(SOFTMAX_CUDA.default, **SOFTMAX_LAST)
    cuda = cuda_source_of(module)
    broken_line = cuda.splitlines().index("static int64_t grid_for(int64_t work_items, "
                                          "int64_t per_block, int64_t sm_count) {") + 2
    module = module.replace("    int64_t blocks = (work_items + per_block - 1) / per_block;",
                            "    int64_t blocks = (work_items + per_block - 1) / per_blok;")
    verdict = Verifier(detect_mode(), tmp_path).verify(tasks.load(ROOT / "tasks" / "softmax.py"),
                                                       module, "float32")
    assert verdict.exploits == ["compile-error"] and verdict.stage == "load", verdict.reasons
    assert f"kernel.cu:{broken_line}: error" in verdict.reasons[0]
    assert "per_blok" in verdict.reasons[0]


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_cuda_corpus_without_a_gpu(path, cuda_home, tmp_path):
    if detect_mode() == "gpu":
        pytest.skip("test_cuda_corpus_on_gpu judges these")
    verdict_expected, classes = expectation(path, "interpreter")
    if classes == {"needs-gpu"}:
        # Statically clean: only running it shows the cheat (test_cuda_corpus_on_gpu). Building it
        # here would only repeat test_interpreter_compiles_then_says_a_gpu_is_needed.
        assert guards.check_source(path.read_text()) == []
        return
    verdict = Verifier("interpreter", tmp_path).verify(tasks.load(ROOT / "tasks" / "softmax.py"),
                                                       path.read_text(), "float32")
    assert verdict_expected == "reject" and not verdict.accepted
    assert set(verdict.exploits) & classes, verdict.reasons


# ---- on the GPU ---------------------------------------------------------------------------------
GPU_ROWS = [
    ("softmax", SOFTMAX_CUDA, SOFTMAX_LAST, ROOT / "tasks" / "softmax.py"),
    ("log_softmax_dim1", SOFTMAX_CUDA, LOG_SOFTMAX_DIM1, CUDA_TASKS / "log_softmax_dim0.py"),
    ("swiglu", POINTWISE_CUDA, SWIGLU, CUDA_TASKS / "swiglu.py"),
    ("geglu", POINTWISE_CUDA, GEGLU, CUDA_TASKS / "geglu.py"),
    ("bias_gelu_residual", POINTWISE_CUDA, BIAS_GELU_RESIDUAL, CUDA_TASKS / "bias_gelu_residual.py"),
]


@pytest.fixture(scope="module")
def gpu_verifier(tmp_path_factory):
    return Verifier("gpu", tmp_path_factory.mktemp("cuda-candidates"))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("name,template,context,task_path", GPU_ROWS, ids=[r[0] for r in GPU_ROWS])
def test_cuda_templates_are_correct_on_gpu(gpu_verifier, name, template, context, task_path,
                                           dtype):
    task = tasks.load(task_path)
    seed = sum(map(ord, name + dtype))
    for cfg in [template.default, *sample_configs(template, 2, seed)]:
        verdict = gpu_verifier.verify(task, template.render(cfg, **context), dtype, time=False)
        assert verdict.accepted, (params_of(cfg), verdict.reasons)


# gemm_cuda's edges where the CUDA kernel runs: a tile row past M (and past a cluster's two),
# N past the 192- and 256-wide tiles, K not a multiple of the 64-deep stage (TMA zero-fills)
GEMM_CUDA_EDGES = ({"tokens": 129, "in_features": 72, "out_features": 200},
                   {"tokens": 1000, "in_features": 1000, "out_features": 3000},
                   {"tokens": 4099, "in_features": 4096, "out_features": 8200})


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_gemm_cuda_is_correct_on_gpu(gpu_verifier, tmp_path, dtype):
    """The verifier accepts gemm_cuda's default at linear_bias_gelu's shapes (N = 3073 goes to
    the Triton companion), and the default and two sampled configs at edge shapes that the CUDA
    kernel itself runs (cuda_plan says so), and silu(linear)'s default."""
    import torch

    from verifier.core import load_candidate

    task = tasks.load(ROOT / "tasks" / "linear_bias_gelu.py")
    context = _gemm_context("linear_bias_gelu")
    source = GEMM_CUDA.render(GEMM_CUDA.default, **context)
    verdict = gpu_verifier.verify(task, source, dtype, time=False)
    assert verdict.accepted, verdict.reasons
    module = load_candidate(source, tmp_path)
    torch_dtype = getattr(torch, dtype)
    for shape in (*GEMM_CUDA_EDGES, {"tokens": 8192, "in_features": 4096, "out_features": 8192},
                  {"tokens": 4099, "in_features": 1000, "out_features": 3073}):
        x = torch.empty(shape["tokens"], shape["in_features"], dtype=torch_dtype, device="cuda")
        w = torch.empty(shape["out_features"], shape["in_features"], dtype=torch_dtype,
                        device="cuda")
        b = torch.empty(shape["out_features"], dtype=torch_dtype, device="cuda")
        why = module.cuda_plan(x, w, (b,))
        assert (why is None) == (shape["out_features"] % 8 == 0), (shape, why)
    edges = dataclasses.replace(task, shapes=GEMM_CUDA_EDGES)
    for cfg in [GEMM_CUDA.default, *sample_configs(GEMM_CUDA, 2, sum(map(ord, dtype)))]:
        verdict = gpu_verifier.verify(edges, GEMM_CUDA.render(cfg, **context), dtype, time=False)
        assert verdict.accepted, (params_of(cfg), verdict.reasons)
    silu = tasks.load(ROOT / "tasks" / "linear_bias_silu.py")
    verdict = gpu_verifier.verify(silu, GEMM_CUDA.render(GEMM_CUDA.default,
                                                         **_gemm_context("linear_bias_silu")),
                                  dtype, time=False)
    assert verdict.accepted, verdict.reasons


@pytest.mark.gpu
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_cuda_corpus_on_gpu(gpu_verifier, path):
    verdict_expected, classes = expectation(path, "gpu")
    verdict = gpu_verifier.verify(tasks.load(ROOT / "tasks" / "softmax.py"), path.read_text(),
                                  "float32", time=False)
    if verdict_expected == "accept":
        assert verdict.accepted, verdict.reasons
    else:
        assert not verdict.accepted
        assert set(verdict.exploits) & classes, verdict.reasons
