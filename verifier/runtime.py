"""Dynamic checks around a candidate's calls: whose kernels launched, which PyTorch ops ran, which
threads appeared, and whether anything the verifier relies on was patched.

Triton launches go through `JITFunction.run` (compiled) or `InterpretedFunction.run` (interpreter),
or through a compiled kernel's own launcher (`CompiledKernel[grid](...)`, which a launch recipe
keeps to skip the JIT's argument binding); wrapping those counts each launch by the module that
defined the kernel, and marks the launch so the PyTorch work Triton does for itself (the
interpreter copies arguments) is not charged to the candidate. A launcher taken from a compiled
kernel before these hooks went in is not counted: the call then fails as launching none of the
candidate's kernels, never the other way round. CUDA C++ entry points built by kernel_zoo.cuda_ext
report each call to an observer installed here, under the module that built them. Everything else
PyTorch runs during a call is seen at the aten level by a dispatch mode. Threads left running are
charged to the candidate unless a thread unrelated to the call was seen starting them.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

# aten ops a forward path may run: allocation, views, layout copies and metadata, nothing else.
ALLOWED_ATEN = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "zero_", "view", "_unsafe_view", "reshape", "_reshape_alias",
    "as_strided", "clone", "t", "transpose", "permute", "unsqueeze", "squeeze", "expand", "select",
    "slice", "narrow", "split", "split_with_sizes", "chunk", "unbind", "detach", "alias",
    "lift_fresh", "unflatten", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
    "is_contiguous", "size", "stride", "dim", "numel", "contiguous",
}

_state = threading.local()
_launches: Counter = Counter()
_installed = False
# Thread starts while a call is watched, by who started them. A thread the watched call's own
# thread (or a thread it started, transitively) starts is the candidate's; one a thread unrelated
# to the call starts (PyTorch's compile-worker pool restarting its idle timer from its reader
# thread after a torch.compile baseline) is not, and is not charged to the candidate. A thread
# whose start was not seen (started outside Python) stays charged.
_watched_thread: int | None = None
_candidate_threads: weakref.WeakSet = weakref.WeakSet()
_foreign_threads: weakref.WeakSet = weakref.WeakSet()
# The watched call's aten monitor. A dispatch mode holds for its own thread only, so a thread the
# candidate starts runs under a monitor of its own that counts into the same record: PyTorch work
# handed to a thread (and joined before the call returns) is the candidate's like any other.
_watch_monitor: _AtenMonitor | None = None


def _in_launch() -> bool:
    return getattr(_state, "depth", 0) > 0


def _launch(module, count, launch, *args, **kwargs):
    """A launch (or, not `count`, a warm-up compile) of a kernel defined in `module`: counted
    while a call is watched."""
    if not getattr(_state, "watching", False):
        # Outside a watched call (timing, baselines, users' code) the hook costs one lookup.
        return launch(*args, **kwargs)
    if count:
        _launches[module] += 1
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        # Step out of any dispatch mode for the launch: Triton's own tensor work (the
        # interpreter copies arguments) is not the candidate's, and intercepting it is slow.
        with _disable_current_modes():
            return launch(*args, **kwargs)
    finally:
        _state.depth -= 1


def _watched_again(fn):
    """`fn` (a candidate's callable grid or pre-run hook, which Triton calls inside the launch,
    where the monitor steps aside for Triton's own work) run under the call's monitor again."""
    def watched(*args, **kwargs):
        monitor, depth = _watch_monitor, getattr(_state, "depth", 0)
        if monitor is None:
            return fn(*args, **kwargs)
        _state.depth = 0
        try:
            with monitor.twin():
                return fn(*args, **kwargs)
        finally:
            _state.depth = depth

    return watched


def _wrap_run(original):
    def run(self, *args, grid, warmup, **kwargs):
        if not getattr(_state, "watching", False):  # the one lookup, as in _launch
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        module = getattr(getattr(self, "fn", None), "__module__", None)
        if callable(grid):
            grid = _watched_again(grid)
        hooks = getattr(self, "pre_run_hooks", None)
        if not hooks:
            return _launch(module, not warmup, original, self, *args, grid=grid, warmup=warmup,
                           **kwargs)
        self.pre_run_hooks = [_watched_again(hook) for hook in hooks]
        try:
            return _launch(module, not warmup, original, self, *args, grid=grid, warmup=warmup,
                           **kwargs)
        finally:
            self.pre_run_hooks = hooks

    run.__kzoo_wrapped__ = True
    return run


def _wrap_getitem(original):
    """CompiledKernel.__getitem__: the launcher it returns counts its launches under the module
    of the kernel's source (its JITFunction's function)."""
    def getitem(self, grid):
        runner = original(self, grid)
        jit = getattr(getattr(self, "src", None), "fn", None)
        module = getattr(getattr(jit, "fn", None), "__module__", None)

        def counted(*args, **kwargs):
            return _launch(module, True, runner, *args, **kwargs)

        return counted

    getitem.__kzoo_wrapped__ = True
    return getitem


def _wrap_thread_start(original):
    def start(self, *args, **kwargs):
        if _watched_thread is not None:
            if threading.get_ident() == _watched_thread or \
                    threading.current_thread() in _candidate_threads:
                _candidate_threads.add(self)
                if _watch_monitor is not None:
                    _monitor_thread(self, _watch_monitor)
            else:
                _foreign_threads.add(self)
        return original(self, *args, **kwargs)

    start.__kzoo_wrapped__ = True
    return start


def _monitor_thread(thread: threading.Thread, watching: _AtenMonitor) -> None:
    """Run `thread` under a monitor of its own that counts into `watching`'s ops."""
    run = thread.run

    def monitored_run():
        with watching.twin():
            run()

    thread.run = monitored_run


def _count_cuda_launch(owner: str) -> None:
    if getattr(_state, "watching", False):
        _launches[owner] += 1


def install_launch_hooks() -> None:
    """Wrap Triton's launch entry points once per process (the verifier's own process), and
    observe cuda_ext's."""
    global _installed
    if _installed:
        return
    from kernel_zoo import cuda_ext

    cuda_ext.set_launch_observer(_count_cuda_launch)
    from triton.runtime.jit import JITFunction

    classes = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        classes.append(InterpretedFunction)
    except ImportError:  # a Triton without the interpreter: nothing to wrap there
        pass
    for cls in classes:
        if not getattr(cls.run, "__kzoo_wrapped__", False):
            cls.run = _wrap_run(cls.run)
    if not getattr(threading.Thread.start, "__kzoo_wrapped__", False):
        threading.Thread.start = _wrap_thread_start(threading.Thread.start)
    from triton.compiler.compiler import CompiledKernel

    if not getattr(CompiledKernel.__getitem__, "__kzoo_wrapped__", False):
        CompiledKernel.__getitem__ = _wrap_getitem(CompiledKernel.__getitem__)
    _installed = True


class _AtenMonitor(TorchDispatchMode):
    def __init__(self, extra_allowed: frozenset[str] = frozenset(),
                 ops: Counter | None = None) -> None:
        super().__init__()
        self.ops: Counter = Counter() if ops is None else ops
        self.allowed = ALLOWED_ATEN | extra_allowed

    def twin(self) -> _AtenMonitor:
        """A monitor that counts into this one's record: a dispatch mode holds for its own thread
        and context only (a thread the call starts, a grid or hook run inside a launch)."""
        return _AtenMonitor(self.allowed, self.ops)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not _in_launch():
            name = func.overloadpacket.__name__
            if name not in self.allowed:
                self.ops[name] += 1
        return func(*args, **(kwargs or {}))


@dataclass
class CallRecord:
    own_launches: int = 0
    other_launches: int = 0
    torch_ops: dict[str, int] = field(default_factory=dict)
    new_threads: list[str] = field(default_factory=list)


@contextmanager
def watch_call(candidate_module: str, library_aten: frozenset[str] = frozenset()):
    """Record what one candidate call launches, computes with PyTorch, and leaves running.
    `library_aten`: aten ops of the library calls the task's reference makes (a convolution),
    which a composed candidate makes too."""
    global _watched_thread, _watch_monitor
    install_launch_hooks()
    before = dict(_launches)
    # the Thread objects, not their idents: a thread that ends frees its ident for the next one
    threads_before = set(threading.enumerate())
    record = CallRecord()
    monitor = _AtenMonitor(library_aten)
    _foreign_threads.clear()
    _watched_thread = threading.get_ident()
    _watch_monitor = monitor
    _state.watching = True
    try:
        with monitor:
            yield record
    finally:
        _state.watching = False
        _watched_thread = None
        _watch_monitor = None
        for module, count in _launches.items():
            delta = count - before.get(module, 0)
            if module == candidate_module:
                record.own_launches += delta
            else:
                record.other_launches += delta
        record.torch_ops = dict(monitor.ops)
        record.new_threads = [t.name for t in threading.enumerate()
                              if t not in threads_before and t.is_alive()
                              and t not in _foreign_threads]


# ---- what the verifier relies on, snapshotted so a candidate's patching shows -----------------
def _watched():
    import math
    import time

    import triton

    from kernel_zoo import cuda_ext

    return {
        "kernel_zoo.cuda_ext": cuda_ext,
        "torch": torch, "torch.Tensor": torch.Tensor, "torch.nn.functional": torch.nn.functional,
        "torch.cuda": torch.cuda, "torch.cuda.Event": torch.cuda.Event, "time": time,
        "math": math, "triton": triton, "torch.testing": torch.testing,
    }


def snapshot() -> dict[str, int]:
    """Identity of every attribute of the modules and classes the verifier judges with."""
    import types

    import torch._dynamo  # noqa: F401  its import rebinds torch.manual_seed; let that happen first

    state = {}
    for prefix, obj in _watched().items():
        for name, value in list(vars(obj).items()):
            # Submodules appear as PyTorch and Triton import them lazily; functions and classes
            # are what a patch would replace.
            if not isinstance(value, types.ModuleType):
                state[f"{prefix}.{name}"] = id(value)
    return state


def patched_since(before: dict[str, int]) -> list[str]:
    """Public names rebound or added since `before` (private ones change under PyTorch's own lazy
    initialization; the static guards keep candidates away from them)."""
    after = snapshot()
    public = [name for name in set(before) | set(after) if not name.rsplit(".", 1)[-1].startswith("_")]
    return sorted(name for name in public if before.get(name) != after.get(name))
