"""The verifier judges real Triton kernels (in the interpreter here): honest ones pass, wrong ones
fail with a reason that says what was wrong."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Iterator

import pytest
import torch

import tasks
from conftest import ROOT
from templates import get_template
from verifier.core import Verifier
from verifier.worker import (VerifyProcess, VerifyRequest, detect_mode,
                             verify_in_subprocess)

CANDIDATES = ROOT / "tests" / "candidates"
SOFTMAX = ROOT / "tasks" / "softmax.py"


@pytest.fixture(scope="module")
def task():
    return tasks.load(SOFTMAX)


@pytest.fixture
def verifier(tmp_path):
    return Verifier(detect_mode(), tmp_path / "cands")


def honest_template_source() -> str:
    t = get_template("softmax")
    return t.render(t.default, op="softmax", log=False, dim=1, params=[])


# Each wrong candidate is the honest template source with one edit, and the reason it must produce.
def _patched(old: str, new: str) -> str:
    src = honest_template_source()
    assert old in src, old
    return src.replace(old, new)


WRONG = {
    "scaled output": (
        _patched("        return launch_softmax(x, 1)\n", "        return launch_softmax(x, 1) * 1.01\n"),
        "pytorch-fallback",
    ),
    "wrong constant in the kernel": (
        _patched("inv = 1.0 / tl.sum(e, axis=1)", "inv = 1.01 / tl.sum(e, axis=1)"),
        "wrong-values",
    ),
    "nan in the kernel": (
        _patched("inv = 1.0 / tl.sum(e, axis=1)", "inv = 0.0 / (tl.sum(e, axis=1) * 0.0)"),
        "nan-output",
    ),
    "zeros": (
        _patched("        return launch_softmax(x, 1)\n", "        return torch.zeros_like(x)\n"),
        "no-kernel-launch",
    ),
    "modifies input": (
        _patched("        return launch_softmax(x, 1)\n",
                 "        y = launch_softmax(x, 1)\n        x.mul_(0.5)\n        return y\n"),
        "pytorch-fallback",
    ),
    "wrong dtype": (
        _patched("        return launch_softmax(x, 1)\n",
                 "        return launch_softmax(x).view(torch.int16)\n"),
        "output-structure",
    ),
    "no ModelNew": (
        _patched("class ModelNew(torch.nn.Module):", "class SomethingElse(torch.nn.Module):"),
        "no-model",
    ),
    "raises": (
        _patched("        return launch_softmax(x, 1)\n", "        raise RuntimeError('boom')\n"),
        "error",
    ),
    "cached output": (
        _patched("        return launch_softmax(x, 1)\n",
                 "        if not hasattr(self, 'c'):\n            self.c = launch_softmax(x)\n"
                 "        return self.c\n"),
        "no-kernel-launch",
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_template_default_is_accepted(task, verifier, dtype):
    verdict = verifier.verify(task, honest_template_source(), dtype)
    assert verdict.accepted, verdict.reasons
    assert verdict.stage == "done"
    assert len(verdict.shapes) == len(task.shapes_for(verdict.mode == "interpreter"))
    assert all(s.correct and s.comparisons for s in verdict.shapes)
    if verdict.mode == "interpreter":
        assert verdict.ms is None  # never timed in the interpreter


def test_hand_written_candidate_is_accepted(task, verifier):
    verdict = verifier.verify(task, (CANDIDATES / "softmax_correct.py").read_text(), "float32")
    assert verdict.accepted, verdict.reasons


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_candidates_are_rejected_with_their_exploit_class(task, verifier, name):
    source, exploit = WRONG[name]
    verdict = verifier.verify(task, source, "float32")
    assert not verdict.accepted
    assert exploit in verdict.exploits, verdict.reasons
    assert any(r.startswith(f"[{exploit}]") for r in verdict.reasons)


def test_a_finding_about_the_whole_module_names_no_line(task, verifier):
    source, _ = WRONG["no ModelNew"]
    verdict = verifier.verify(task, source, "float32")
    assert "[no-model] defines no class ModelNew" in verdict.reasons, verdict.reasons  # no "line 0"


def test_mismatch_report_is_data(task, verifier):
    source = _patched("inv = 1.0 / tl.sum(e, axis=1)", "inv = 1.05 / tl.sum(e, axis=1)")
    verdict = verifier.verify(task, source, "bfloat16")
    comparison = verdict.shapes[0].comparisons[-1]
    assert not comparison.ok and comparison.n_bad > 0
    first = comparison.mismatches[0]
    assert first.got > first.expected > 0.0 and first.kind == "value"
    assert len(first.index) == 2


def test_wrong_hand_written_candidate_is_rejected(task, verifier):
    verdict = verifier.verify(task, (CANDIDATES / "softmax_wrong_scale.py").read_text(), "float32")
    assert not verdict.accepted
    assert any("relative L2 error" in r for r in verdict.reasons)


def test_crashing_process_becomes_a_failed_verdict(task, tmp_path):
    # A wild address: the interpreter segfaults, a GPU raises an illegal memory access.
    source = _patched("x = tl.load(x_ptr + x_off,", "x = tl.load(x_ptr + x_off + (1 << 40),")
    request = VerifyRequest(str(task.path), task.source, source, "float32")
    data = verify_in_subprocess(request, detect_mode(), str(tmp_path), timeout_s=120)
    assert data["accepted"] is False and data["stage"] in ("crash", "correctness")
    assert set(data["exploits"]) & {"crash", "error"}


def test_hanging_candidate_times_out(task, tmp_path):
    source = _patched("        return launch_softmax(x, 1)\n",
                      "        while True:\n            pass\n")
    request = VerifyRequest(str(task.path), task.source, source, "float32")
    data = verify_in_subprocess(request, detect_mode(), str(tmp_path), timeout_s=10)
    assert data["stage"] == "timeout" and not data["accepted"]


def _hanging_request(task) -> VerifyRequest:
    source = _patched("        return launch_softmax(x, 1)\n",
                      "        while True:\n            pass\n")
    return VerifyRequest(str(task.path), task.source, source, "float32")


@contextlib.contextmanager
def _ctrl_c_as_at_a_terminal() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt for the block: a test runner's worker, or a background
    job's shell (CI's runs), may have it ignored, and a spawned process inherits that."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
def test_ctrl_c_while_a_check_process_starts_leaves_no_child_behind(task, tmp_path, capfd,
                                                                   monkeypatch):
    """A Ctrl-C after the spawn but before the request is handed over (CI caught it: the child
    read a closed pipe into an EOFError traceback, and nobody killed it): it lands as the start
    ends, and the half-started process is killed without a word."""
    import multiprocessing.util

    spawned = []
    spawn = multiprocessing.util.spawnv_passfds

    def spawn_then_interrupt(path, args, passfds):
        pid = spawn(path, args, passfds)
        if any("spawn_main" in str(arg) for arg in args):  # not the resource tracker
            spawned.append(pid)
            os.kill(os.getpid(), signal.SIGINT)
        return pid

    monkeypatch.setattr(multiprocessing.util, "spawnv_passfds", spawn_then_interrupt)
    with _ctrl_c_as_at_a_terminal(), pytest.raises(KeyboardInterrupt):
        VerifyProcess(_hanging_request(task), detect_mode(), str(tmp_path), timeout_s=60)
    assert len(spawned) == 1 and _gone(spawned[0])
    time.sleep(0.5)  # what a child left reading a closed pipe would have printed by now
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
def test_a_ctrl_c_reaching_a_check_process_ends_it_without_a_traceback(task, tmp_path, capfd):
    """A terminal sends Ctrl-C to the whole process group: the parent reports it, a check
    process just ends (128 + SIGINT), at whatever point of its start the signal finds it."""
    for settle_s in (0.0, 3.0):  # held back while it starts / running the candidate
        with _ctrl_c_as_at_a_terminal():  # what the check process is born with
            check = VerifyProcess(_hanging_request(task), detect_mode(), str(tmp_path),
                                  timeout_s=60)
        time.sleep(settle_s)
        os.kill(check._proc.pid, signal.SIGINT)
        verdict = check.verdict()
        assert check._proc.exitcode == 128 + signal.SIGINT, verdict
        assert verdict["stage"] == "crash" and not verdict["accepted"]
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
def test_a_command_that_ignores_ctrl_c_has_checks_that_ignore_it(task, tmp_path):
    """Run as a background job (SIGINT ignored), the command is not interrupted while a check
    starts, and the check process ignores SIGINT too rather than ending on it."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        check = VerifyProcess(_hanging_request(task), detect_mode(), str(tmp_path), timeout_s=8)
        time.sleep(3)
        os.kill(check._proc.pid, signal.SIGINT)
        verdict = check.verdict()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert verdict["stage"] == "timeout", verdict  # it ran on, to its deadline


LAUNCHER_SOURCE = '''import torch
import triton
import triton.language as tl


@triton.jit
def _fill(x, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(x + offs, 1.0, mask=offs < n)


class ModelNew(torch.nn.Module):
    pass
'''


@pytest.mark.gpu
def test_a_launch_through_a_compiled_kernels_own_launcher_is_counted(tmp_path):
    """Launch recipes keep `CompiledKernel[grid]` to skip the JIT's argument binding; such a
    launch counts as the candidate's own, as a `kernel[grid](...)` launch does, so the
    no-kernel-launch check sees it."""
    import torch

    from verifier import runtime
    from verifier.core import load_candidate

    runtime.install_launch_hooks()
    module = load_candidate(LAUNCHER_SOURCE, tmp_path)
    x = torch.zeros(8, device="cuda")
    run = module._fill[(1,)](x, 8, B=8)[(1, 1, 1)]
    with runtime.watch_call(module.__name__) as record:
        run(x, 5, 8)
    torch.cuda.synchronize()
    assert record.own_launches == 1 and record.other_launches == 0
    x.zero_()
    run(x, 3, 8)  # outside a watched call: launched, not counted
    torch.cuda.synchronize()
    assert x.sum().item() == 3.0


def test_only_threads_the_call_itself_starts_are_charged_to_it():
    """A thread an unrelated thread starts during a watched call (PyTorch's compile-worker pool
    restarts its idle timer from its reader thread after a torch.compile baseline) is not the
    candidate's; one the call's own thread starts is, and so is one a thread of the call starts.
    The background thread ends during the call, so "own" may take its ident: threads are told
    apart as objects, not by ident."""
    import threading
    import time

    from verifier import runtime

    go, done, started = threading.Event(), threading.Event(), []

    def background():  # stands in for the pool's reader thread, running before the call
        go.wait(10)
        timer = threading.Thread(target=done.wait, args=(10,), name="background_timer",
                                 daemon=True)
        timer.start()
        started.append(timer)

    threading.Thread(target=background, daemon=True).start()

    def spawn():
        threading.Thread(target=done.wait, args=(10,), name="grandchild", daemon=True).start()

    try:
        with runtime.watch_call("kzoo_candidate_threads") as record:
            go.set()
            deadline = time.monotonic() + 10
            while not started and time.monotonic() < deadline:
                time.sleep(0.01)
            threading.Thread(target=done.wait, args=(10,), name="own", daemon=True).start()
            child = threading.Thread(target=spawn, name="child", daemon=True)
            child.start()
            child.join()
    finally:
        done.set()
    assert started and started[0].name == "background_timer"
    assert sorted(record.new_threads) == ["grandchild", "own"]


def test_pytorch_work_handed_to_a_thread_of_the_call_is_seen():
    """A dispatch mode holds for its own thread: PyTorch work a call hands to a thread it starts
    and joins before returning (so nothing is left running) is counted all the same, and so is
    the work of a thread's thread; a thread that computes nothing adds nothing."""
    import threading

    import torch

    from verifier import runtime

    x, out = torch.randn(4, 8), {}

    def nested():
        inner = threading.Thread(target=lambda: out.update(z=torch.exp(x)))
        inner.start()
        inner.join()

    with runtime.watch_call("kzoo_candidate_threads") as record:
        for target in (lambda: out.update(y=torch.softmax(x, dim=1)), nested, lambda: None):
            worker = threading.Thread(target=target)
            worker.start()
            worker.join()
    assert record.torch_ops == {"_softmax": 1, "exp": 1}, record.torch_ops
    assert record.new_threads == []
    assert torch.equal(out["y"], torch.softmax(x, dim=1))  # the threads' work itself is intact


def test_the_l2_flush_names_its_mode_and_refuses_an_unknown_one():
    """Every result's environment says how the timer emptied the L2 (none without a GPU); the
    flusher refuses a mode it does not know before touching a device, and discard needs sm_80+."""
    import torch

    from verifier.environment import environment
    from verifier.timing import FLUSH_MODE, L2Flusher, flush_mode_supported

    assert FLUSH_MODE == "discard"
    assert "l2_flush" in environment() and "call_order" in environment()
    if not torch.cuda.is_available():
        assert environment()["l2_flush"] is None and environment()["call_order"] is None
    assert not flush_mode_supported(torch.device("cpu"))
    with pytest.raises(ValueError, match="mode must be one of"):
        L2Flusher(torch.device("cpu"), mode="zero")


def test_host_time_is_the_least_of_its_rounds_with_the_collector_held_off(monkeypatch):
    """One host stall inside a round (a garbage collection, say) must not read as every call's
    cost: GPU round 105 recorded 1140 us per call for a kernel whose other readings were 85-120."""
    import gc
    import time

    import torch

    from verifier import timing

    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)  # no GPU here
    calls = {"n": 0, "gc_enabled": []}

    def fn():
        calls["n"] += 1
        calls["gc_enabled"].append(gc.isenabled())
        if calls["n"] == 3 + 10 + 5:  # in the second round, after the warm-up and a first round
            time.sleep(0.05)

    us = timing.host_us(fn, calls=10, warmup=3, rounds=3)
    assert calls["n"] == 3 + 3 * 10
    assert us < 5000, us  # 50 ms over 10 calls would read as 5000 us per call
    assert not any(calls["gc_enabled"][3:]), "the collector ran during a timed round"
    assert gc.isenabled()


def test_a_mismatch_says_where_pytorchs_own_result_misses_the_bound_too():
    """An op whose dtype is short (PyTorch's 16-bit cumsum on CUDA, GPU round 328): the report
    says how many elements PyTorch's own result misses the element-wise bound at, which never
    loosens the bound itself."""
    from verifier import core, tolerance

    ref = torch.linspace(1.0, 2.0, 1000, dtype=torch.float64)
    tol = tolerance.tolerance_for("float16")
    off = ref.clone()
    off[:400] *= 1.01  # 1%: outside float16's rtol of 2e-3
    same = ref.clone()
    same[:300] *= 1.01
    comp = tolerance.compare(off.half(), ref, same.half(), tol)
    assert not comp.ok and comp.n_bad == 400 and comp.same_dtype_bad == 300
    text = core._mismatch_text("first run", 0, comp)
    assert "outside the element-wise bound too, at 300 elements" in text
    # a candidate inside the bound: nothing judged, however far PyTorch's own result is
    fine = tolerance.compare(ref.half(), ref, same.half(), tol)
    assert fine.ok and fine.same_dtype_bad is None
    # PyTorch's own result inside the bound: the report adds nothing
    alone = tolerance.compare(off.half(), ref, ref.half(), tol)
    assert alone.same_dtype_bad == 0
    assert "PyTorch's own" not in core._mismatch_text("first run", 0, alone)



@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_output_where_the_reference_is_a_number_has_an_unbounded_error(bad):
    """The error measures were taken after a NaN or infinity was swapped for the reference, so a
    rejected all-inf output read "relative L2 error 0": each is inf now, and the verdict with it
    still goes through JSON and back."""
    import json

    from verifier import core, tolerance
    from verifier.verdict import ShapeResult, Verdict

    ref = torch.linspace(1.0, 2.0, 1000, dtype=torch.float64)
    tol = tolerance.tolerance_for("float32")
    for got in (torch.full((1000,), bad), torch.cat([ref[:999].float(), torch.tensor([bad])])):
        comp = tolerance.compare(got, ref, ref.float(), tol)
        assert not comp.ok and comp.n_bad >= 1
        assert comp.rel_l2_err == comp.max_abs_err == comp.max_rel_err == float("inf")
        assert "relative L2 error inf (bound" in core._mismatch_text("first run", 0, comp)
        verdict = Verdict(accepted=False, stage="correctness", mode="interpreter",
                          dtype="float32",
                          shapes=[ShapeResult(shape={}, correct=False, comparisons=[comp])])
        back = Verdict.from_dict(json.loads(json.dumps(verdict.to_dict())))
        assert back.shapes[0].comparisons[0].rel_l2_err == float("inf")
        assert json.loads(json.dumps(verdict.summary()))["shapes"][0]["max_rel_l2_err"] == \
            float("inf")
    # a finite output is judged as before
    exact = tolerance.compare(ref.float(), ref, None, tol)
    assert exact.ok and exact.rel_l2_err < tol["rel_l2"] and exact.max_abs_err < 1e-6


def test_a_constructor_may_compute_only_for_a_module():
    """A module's __init__ prepares its parameters with PyTorch; any other class's __init__ runs
    wherever the class is called, the forward path too, and is held to the forward's rules."""
    from verifier.guards import check_source

    template = (
        "import torch\n"
        "class {name}({base}):\n"
        "    def __init__(self, x):\n"
        "        {init}\n"
        "        self.y = torch.softmax(x, dim=1)\n"
        "class ModelNew(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n")
    helper = template.format(name="_Work", base="object", init="pass")
    module = template.format(name="_Prepared", base="torch.nn.Module", init="super().__init__()")
    assert [f.exploit for f in check_source(helper)] == ["pytorch-fallback"]
    assert check_source(module) == []


def test_an_error_line_is_capped_so_a_verdict_stays_readable():
    from verifier.core import _brief

    text = _brief(ValueError("x" * 5_000_000))
    assert text.startswith("ValueError: xxx") and text.endswith(" ...") and len(text) < 600


@pytest.mark.parametrize("code, exploit", [
    ("e = eval\ne('1 + 1')\n", "module-patching"),
    ("imp = __import__\nimp('os')\n", "module-patching"),
    ("fs = [exec]\nfs[0]('pass')\n", "module-patching"),
    ("g = getattr\ng(torch, 'cuda')\n", "module-patching"),
    ("@eval\ndef f():\n    pass\n", "module-patching"),
    ("o = open\n", "module-patching"),
    ("import functools\nfunctools.reduce(getattr, ['cuda'], torch)\n", "module-patching"),
    ("b = __builtins__\n", "module-patching"),
    ("torch.load('/tmp/weights.pt', weights_only=False)\n", "forbidden-api"),
    ("from torch import *\n", "forbidden-import"),
], ids=["alias-eval", "alias-import", "exec-in-a-list", "alias-getattr", "decorator-eval",
        "alias-open", "reduce-getattr", "builtins-name", "torch-load", "star-import"])
def test_a_builtin_taken_as_a_value_is_as_good_as_called(code, exploit):
    """The guards refused eval(...) and getattr(...) only as direct calls: bound to another name,
    put in a list or handed to functools, the same builtin ran."""
    from verifier.guards import check_source

    source = ("import torch\n" + code + "class ModelNew(torch.nn.Module):\n"
              "    def forward(self, x):\n        return x\n")
    assert exploit in [f.exploit for f in check_source(source)]


def test_a_name_the_candidate_binds_itself_is_no_builtin():
    from verifier.guards import check_source

    source = ("import torch\nclass ModelNew(torch.nn.Module):\n"
              "    def forward(self, input, compile=False):\n"
              "        vars = input\n        return vars\n")
    assert check_source(source) == []


LAUNCH_CALLBACKS_SOURCE = '''
import torch
import triton


@triton.jit
def _touch(x_ptr):
    pass


class ModelNew(torch.nn.Module):
    pass
'''


def test_pytorch_work_in_a_launch_s_grid_or_pre_run_hook_is_seen(tmp_path):
    """Triton calls a callable grid and the kernel's pre-run hooks inside the launch, where the
    monitor steps aside for Triton's own work (the interpreter copies arguments): a candidate's
    PyTorch there is counted all the same, and the hooks the kernel had are given back."""
    import torch

    from verifier import runtime
    from verifier.core import load_candidate

    runtime.install_launch_hooks()
    module = load_candidate(LAUNCH_CALLBACKS_SOURCE, tmp_path)
    x = torch.randn(4, 8, device="cuda" if torch.cuda.is_available() else "cpu")

    def hook(*args, **kwargs):
        torch.exp(x)

    module._touch.add_pre_run_hook(hook)
    with runtime.watch_call(module.__name__) as record:
        module._touch[lambda meta: (torch.softmax(x, dim=1), (1,))[1]](x)
    assert record.own_launches == 1
    assert record.torch_ops == {"_softmax": 1, "exp": 1}, record.torch_ops
    assert module._touch.pre_run_hooks == [hook]


def test_a_kernel_may_call_what_a_triton_decorator_made_device_side():
    """kernel-escape refuses a plain host function called from a kernel body, not one that
    Triton's own decorator (constexpr_function) made device-side; that one's body is still held
    to the forward path's rules."""
    from verifier.guards import check_source

    source = ("import torch\nimport triton\nimport triton.language as tl\n\n"
              "@triton.constexpr_function\ndef _half(n):\n    return n // 2\n\n"
              "@triton.jit\ndef _k(x_ptr, BLOCK: tl.constexpr):\n"
              "    offs = tl.arange(0, _half(BLOCK))\n"
              "    tl.store(x_ptr + offs, tl.load(x_ptr + offs))\n\n"
              "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n")
    assert check_source(source) == []
    plain = source.replace("@triton.constexpr_function\n", "")
    assert [f.exploit for f in check_source(plain)] == ["kernel-escape"]
    computing = source.replace("return n // 2", "return torch.softmax(n, 1)")
    assert [f.exploit for f in check_source(computing)] == ["pytorch-fallback"]


@pytest.mark.timeout(30)
def test_a_name_bound_twice_at_module_level_is_read_in_both_bindings():
    """`if`/`else` at module level may bind a name a kernel calls in each branch (a Triton
    function under its new or its old name): device-side in both is accepted, torch in either
    is kernel-escape. Two bindings of one name to two paths once kept the guards' rebinding
    search from ending."""
    from verifier.guards import check_source

    source = ("import torch\nimport triton\nimport triton.language as tl\n\n"
              "if hasattr(tl, 'exp2'):\n    _fexp = tl.exp2\nelse:\n    _fexp = tl.exp\n\n"
              "@triton.jit\ndef _k(x_ptr, BLOCK: tl.constexpr):\n"
              "    offs = tl.arange(0, BLOCK)\n"
              "    tl.store(x_ptr + offs, _fexp(tl.load(x_ptr + offs)))\n\n"
              "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
              "        print(__file__, __name__)\n        return x\n")
    assert check_source(source) == []
    torch_branch = source.replace("    _fexp = tl.exp\n", "    _fexp = torch.exp\n")
    assert [f.exploit for f in check_source(torch_branch)] == ["kernel-escape"]


@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_bench_interleaves_every_variant_once_a_sweep_in_changing_orders(n):
    """bench's calls: every variant once a sweep, so all are timed in the same mix of clocks and
    heat (GPU rounds 348-349: a block of calls ran up to 16% slower after other GEMM blocks), in
    orders that change, so that no variant always follows the same one; the same every run."""
    from verifier import timing
    names = [f"v{i}" for i in range(n)]
    sequence = timing.call_sequence(names, 40)
    sweeps = [sequence[i:i + n] for i in range(0, len(sequence), n)]
    assert len(sweeps) == 40 and all(sorted(sweep) == names for sweep in sweeps)
    assert sequence == timing.call_sequence(names, 40)
    if n >= 3:
        before = {(a, b) for a, b in zip(sequence, sequence[1:]) if a != b}
        assert len(before) == n * (n - 1)  # every variant follows every other one somewhere
    assert timing.call_sequence([], 5) == []


def test_copies_are_captured_in_turn_and_timed_as_the_mean_of_theirs():
    """Two graphs of one call read up to 5% apart (GPU round 450): a callable timed as several
    copies has them captured in turn, the order reversed every other round, and its time is the
    mean of the copies' (their medians, quantiles; their counts summed)."""
    from verifier import timing
    from verifier.verdict import Timing
    assert timing.copies_in_turn(["a", "b"], 3) == [("a", 0), ("b", 0), ("b", 1), ("a", 1),
                                                    ("a", 2), ("b", 2)]
    assert timing.copies_in_turn(["a", "b", "c"], 1) == [("a", 0), ("b", 0), ("c", 0)]
    timed = {("a", 0): Timing(1.0, 0.9, 1.1, 10), ("a", 1): Timing(1.2, 1.1, 1.3, 12),
             ("b", 0): Timing(2.0, 1.9, 2.1, 10), ("b", 1): Timing(2.0, 1.9, 2.1, 10),
             "eager": Timing(5.0, 5.0, 5.0, 10)}
    merged, each = timing.merge_copies(timed, ["a", "b"], 2)
    assert each == {"a": [1.0, 1.2], "b": [2.0, 2.0]}
    assert merged["a"] == Timing(pytest.approx(1.1), pytest.approx(1.0), pytest.approx(1.2), 22)
    assert set(merged) == {"a", "b"}


def test_copy_of_names_the_copy_of_a_bench_key_and_first_output_address_finds_a_tensor():
    """`graphed_where_possible(paired=True)` pools graphs by `copy_of` their key: k of a (name, k)
    key from `copies_in_turn`, 0 for a plain name or a tune_buckets config index."""
    from verifier import timing
    assert [timing.copy_of(k) for k in timing.copies_in_turn(["a", "b"], 2)] == [0, 0, 1, 1]
    assert timing.copy_of("eager") == timing.copy_of(7) == timing.copy_of(("a", "b")) == 0
    x = torch.zeros(4)
    assert timing.first_output_address(x) == x.data_ptr()
    assert timing.first_output_address(((x, 1), 2)) == x.data_ptr()
    assert timing.first_output_address(None) is None
    assert timing.first_output_address(()) is None


@pytest.mark.gpu
def test_paired_graphs_of_one_copy_write_one_address_and_still_compute():
    """`graphed_where_possible(paired=True)`: the callables of a copy are captured into one pool,
    each output released before the next capture, so same-sized outputs land at one address;
    copies get pools of their own. In a shared pool a replay still computes its call."""
    from verifier import timing
    x = torch.randn(1 << 20, device="cuda")
    keys = timing.copies_in_turn(["double", "triple"], 2)
    calls = {"double": lambda: x * 2.0, "triple": lambda: x * 3.0}
    where = {}
    graphs, failed = timing.graphed_where_possible({key: calls[key[0]] for key in keys},
                                                   paired=True, addresses=where)
    assert not failed and set(graphs) == set(where) == set(keys)
    assert all(where[("double", k)] == where[("triple", k)] for k in range(2))
    assert where[("double", 0)] != where[("double", 1)]
    replay, out = timing.captured(calls["triple"], torch.cuda.graph_pool_handle())
    x.add_(1.0)
    replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x * 3.0)


@pytest.mark.gpu
def test_a_captured_graph_rewrites_its_own_output_and_copies_time_apart():
    """`captured`: the replay reruns the call into the graph's own output; two copies of one
    call are two graphs with outputs of their own, timed as two callables."""
    from verifier import timing
    x = torch.randn(1 << 20, device="cuda")
    replay, out = timing.captured(lambda: x * 2.0)
    x.mul_(3.0)
    replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2.0)
    fns = {pair: (lambda: x * 2.0) for pair in timing.copies_in_turn(["double"], 2)}
    graphs, failed = timing.graphed_where_possible(fns)
    assert not failed and set(graphs) == {("double", 0), ("double", 1)}
    timed = timing.bench(graphs, flusher=timing.L2Flusher(torch.device("cuda")), budget_ms=20.0)
    merged, each = timing.merge_copies(timed, ["double"], 2)
    assert len(each["double"]) == 2 and merged["double"].median_ms > 0


def test_host_ahead_holds_cover_each_call_once_and_stay_under_the_cap():
    """hold_plan over an interleaved chunk: every call after exactly one hold's start, a hold for
    at most AHEAD_BATCH calls and (but for a lone slow call) at most AHEAD_HOLD_MAX_S, twice the
    host time of the calls it covers."""
    from verifier import timing
    host_s = {"fast": 10e-6, "slow": 0.02, "slower": 0.04}
    chunk = ["fast"] * 100 + ["slow", "fast", "slower", "slow"] + ["fast"] * 30
    plan = timing.hold_plan(chunk, host_s)
    starts = [i for i, _ in plan] + [len(chunk)]
    assert starts[0] == 0 and starts == sorted(set(starts))
    for (i, seconds), end in zip(plan, starts[1:]):
        covered = chunk[i:end]
        assert 1 <= len(covered) <= timing.AHEAD_BATCH
        want = 2.0 * sum(host_s[n] for n in covered) + 20e-6
        assert seconds == pytest.approx(want)
        assert len(covered) == 1 or want - 20e-6 <= timing.AHEAD_HOLD_MAX_S
    # the fast calls' second hold takes "slow" and a fast call too and stops before "slower",
    # which, over the cap alone, has a hold of its own
    assert starts[:4] == [0, 64, 102, 103]
    assert timing.hold_plan([], host_s) == []
