"""Static guards: read a candidate's source (its AST, never regexes) before anything of it runs.

Each finding names an exploit class (verifier.exploits) so a person, Optuna and an LLM all learn which
rule a candidate broke. The rules keep a candidate to what an honest Triton kernel module needs:
torch, triton and math; kernels launched from plain Python; PyTorch used in the forward path only to
allocate, view and query shapes.

A CUDA C++ candidate also imports `kernel_zoo.cuda_ext` (only as `from kernel_zoo import cuda_ext`
or `import kernel_zoo.cuda_ext as NAME`) and uses nothing of it but `load`, called directly, with a
string literal or a module-level name bound once to a string literal as its source: that string is
checked here by verifier.cuda_guards, so what nvcc builds is what the guards read.

A split kernel's candidate may import `kernel_zoo.slots` the same ways and call nothing of it but
`epoch_words`, directly: slot words zeroed once and kept per stream by kernel-zoo's own code (a
candidate may not name streams), which launches nothing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from verifier.cuda_guards import check_cuda_source

# functools: lru_cache in launchers; it runs nothing of its own.
ALLOWED_IMPORTS = {"torch", "triton", "math", "functools", "typing", "__future__"}
FORBIDDEN_TORCH_MODULES = (
    ("torch", "nn", "functional"), ("torch", "ops"), ("torch", "_C"), ("torch", "_dynamo"),
    ("torch", "_inductor"), ("torch", "jit"), ("torch", "library"), ("torch", "overrides"),
    ("torch", "utils"), ("torch", "compile"), ("torch", "autograd"), ("torch", "_ops"),
)
# unpickling runs code; the rest reach processes, files and the network
FORBIDDEN_TORCH_HOST = (
    ("torch", "load"), ("torch", "save"), ("torch", "serialization"), ("torch", "hub"),
    ("torch", "package"), ("torch", "multiprocessing"), ("torch", "distributed"),
    ("torch", "onnx"), ("torch", "export"), ("torch", "profiler"), ("torch", "fx"),
    ("torch", "testing"),
    # triton's own compilers and C builders load native code the guards never read
    ("triton", "runtime"), ("triton", "compiler"), ("triton", "backends"),
)
# torch.<name>(...) calls allowed on the output path: allocation and dtype/device plumbing only.
ALLOWED_TORCH_CALLS = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "device", "Size", "dtype",
    "finfo", "iinfo", "is_tensor", "is_floating_point", "get_default_dtype",
}
ALLOWED_TORCH_CUDA = {
    "is_available", "device_count", "current_device", "get_device_properties",
    "get_device_capability", "get_device_name",
}
# Tensor methods that compute; a candidate's forward path may not call them.
COMPUTE_METHODS = {
    "abs", "add", "add_", "addmm", "amax", "amin", "argmax", "argmin", "baddbmm", "bfloat16", "bmm",
    "clamp", "clamp_", "clip", "copy_", "cos", "cumsum", "div", "div_", "double", "einsum", "exp",
    "exp_", "expm1", "fill_", "float", "gather", "gelu", "half", "index_select", "linear", "log",
    "log_softmax", "logsumexp", "masked_fill", "masked_fill_", "matmul", "max", "mean", "min", "mm",
    "mul", "mul_", "neg", "norm", "pow", "prod", "relu", "relu_", "rsqrt", "scatter", "sigmoid",
    "silu", "sin", "softmax", "sort", "sqrt", "std", "sub", "sub_", "sum", "tanh", "to", "topk",
    "type_as", "var", "where", "baddbmm_", "addcmul", "lerp", "erf", "item", "tolist", "numpy",
    "cpu", "cuda", "normal_", "uniform_", "random_", "bernoulli_", "conv2d", "conv1d", "round",
    "floor", "ceil", "sign", "reciprocal", "square", "all", "any", "eq", "ne", "lt", "gt", "le", "ge",
    "new_tensor", "new_full", "new_ones", "index_put_", "index_put", "put_", "masked_scatter_",
    "scatter_", "index_copy_", "index_fill_", "exp2", "logcumsumexp", "cumprod", "softplus",
}
FORBIDDEN_BUILTINS = {
    "eval", "exec", "compile", "__import__", "open", "setattr", "delattr", "getattr", "globals",
    "locals", "vars", "breakpoint", "input", "memoryview", "exit", "quit",
}
ALLOWED_DUNDERS = {"__init__", "__name__"}
# Modules that other modules hold as attributes (torch.os, torch.sys, typing.sys,
# torch.cuda.threading): reaching one through any object is importing it. By attribute name, since
# the guards cannot know every module that imported os.
PROCESS_MODULE_ATTRS = {
    "os", "sys", "subprocess", "importlib", "builtins", "ctypes", "socket", "shutil", "signal",
    "gc", "inspect", "pickle", "marshal", "posix", "pty", "runpy", "code", "codeop", "tempfile",
    "pathlib", "io", "time", "atexit", "weakref", "glob", "platform", "sysconfig", "np", "numpy",
    "bltns", "fnmatch", "shlex", "urllib", "http",
}
THREAD_MODULE_ATTRS = {"threading", "_thread", "multiprocessing", "mp", "concurrent", "asyncio"}
# Names that run code from a string or reach files, under any module (typing.get_type_hints
# evaluates string annotations; functools.singledispatch calls it; torch.from_file and
# UntypedStorage.from_file map any file writable): named at all, as an attribute or imported.
CODE_AND_FILE_NAMES = {
    "get_type_hints", "ForwardRef", "evaluate_forward_ref", "get_annotations", "singledispatch",
    "singledispatchmethod", "from_file", "export_chrome_trace", "export_stacks",
    "export_memory_timeline",
}
# The private names a candidate may import, each where kernel-zoo's own templates import it.
ALLOWED_PRIVATE_IMPORTS = {("triton", "language", "core", "_aggregate")}
# dunder names a candidate may read (its own module's name and file, a docstring)
ALLOWED_DUNDER_NAMES = {"__name__", "__file__", "__doc__", "__qualname__", "__module__"}
CUDA_EXT = ("kernel_zoo", "cuda_ext")
CUDA_EXT_API = {"load"}  # all a candidate may use of kernel_zoo.cuda_ext
CUDA_LOAD = CUDA_EXT + ("load",)
SLOTS = ("kernel_zoo", "slots")
SLOTS_API = {"epoch_words"}  # all a candidate may use of kernel_zoo.slots
SLOTS_CALL = SLOTS + ("epoch_words",)
# the kernel_zoo modules a candidate may import, each with all it may use of it
TRUSTED_MODULES = {CUDA_EXT: CUDA_EXT_API, SLOTS: SLOTS_API}
JIT_DECORATORS = {"jit", "autotune", "heuristics"}


@dataclass(frozen=True)
class Finding:
    exploit: str  # an exploit class name from verifier.exploits
    line: int
    message: str

    def text(self) -> str:
        # line 0: the module as a whole (no ModelNew, say), not a line of it
        return f"line {self.line}: {self.message}" if self.line else self.message


def _chain(node: ast.AST) -> tuple[str, ...] | None:
    """`torch.cuda.Stream` -> ('torch', 'cuda', 'Stream'); None when the base is not a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return None


def _is_jit(fn: ast.FunctionDef, aliases: dict[str, tuple[str, ...]]) -> bool:
    """A Triton kernel: decorated with triton.jit (autotune, heuristics), or with Gluon's jit
    (triton.experimental.gluon), however the module was imported. Kernels compile to device
    code, which cannot call PyTorch, so the output path's rules do not apply inside them."""
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        chain = _chain(target)
        if chain and chain[0] in aliases:
            chain = aliases[chain[0]] + chain[1:]
        if chain and chain[-1] in JIT_DECORATORS and chain[0] == "triton":
            return True
    return False


class _Checker(ast.NodeVisitor):
    def __init__(self, allowed_calls: frozenset[tuple[str, ...]] = frozenset()) -> None:
        # library calls (a convolution, say) the reference makes itself; a candidate may make
        # exactly these, by exactly these paths (verifier.capture.library_call_paths)
        self.allowed_calls = allowed_calls
        self._allowed_nodes: set[int] = set()
        self.findings: list[Finding] = []
        # local name -> module path it is bound to (imports and rebindings: _assigned_aliases)
        self.aliases: dict[str, tuple[str, ...]] = {}
        self._function_stack: list[ast.FunctionDef] = []
        self._class_stack: list[ast.ClassDef] = []
        self._sanctioned: set[int] = set()  # ids of cuda_ext / load references used as allowed
        self.cuda_sources: list[ast.expr] = []  # first arguments of cuda_ext.load calls
        # every name the module binds itself (a parameter called `input`, say), which then is no
        # builtin where it is read; filled by check_source before the visit
        self.bound_names: set[str] = set()

    def add(self, exploit: str, node: ast.AST, message: str) -> None:
        self.findings.append(Finding(exploit, getattr(node, "lineno", 0), message))

    # -- resolving names to modules --------------------------------------------------------
    def _resolve(self, node: ast.AST) -> tuple[str, ...] | None:
        chain = _chain(node)
        if not chain or chain[0] not in self.aliases:
            return None
        path = self.aliases[chain[0]] + chain[1:]
        # torch.torch.load and triton.runtime.jit.torch.load are torch.load: a module that
        # imported torch holds it, so the rules on torch's paths start from its last mention
        if "torch" in path[1:]:
            return path[len(path) - 1 - path[::-1].index("torch"):]
        return path

    def _check_module_path(self, path: tuple[str, ...], node: ast.AST) -> None:
        api = TRUSTED_MODULES.get(path[:2])
        if api is not None and len(path) > 2 and path[2] not in api:
            self.add("forbidden-api", node, f"uses kernel_zoo.{path[1]}.{path[2]}; a candidate "
                     f"may use only {', '.join(sorted(api))}")
            return
        for forbidden in FORBIDDEN_TORCH_HOST:
            if path[: len(forbidden)] == forbidden:
                self.add("forbidden-api", node, f"uses {'.'.join(forbidden)}: files, pickles, "
                         "processes and the network are not a kernel's")
                return
        for forbidden in FORBIDDEN_TORCH_MODULES:
            if path[: len(forbidden)] == forbidden:
                self.add("pytorch-fallback", node,
                         f"uses {'.'.join(forbidden)}: PyTorch compute or its internals")
                return
        if path[:2] == ("torch", "cuda") and len(path) > 2 and path[2] not in ALLOWED_TORCH_CUDA:
            exploit = "side-stream" if "stream" in path[2].lower() else "forbidden-api"
            self.add(exploit, node, f"uses torch.cuda.{path[2]}: streams, events and graphs "
                     "belong to the verifier")

    # -- visitors (what the imports bind, _import_aliases found before the visit) -----------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root == "kernel_zoo":
                if tuple(alias.name.split(".")) not in TRUSTED_MODULES or not alias.asname:
                    self.add("forbidden-import", node, f"imports {alias.name}; of kernel_zoo a "
                             "candidate may import only cuda_ext and slots, as `from "
                             "kernel_zoo import cuda_ext`")
                continue
            if root not in ALLOWED_IMPORTS:
                self.add(_import_exploit(root), node, f"imports {alias.name}; allowed: "
                         f"{', '.join(sorted(ALLOWED_IMPORTS))}")
                continue
            path = tuple(alias.name.split("."))
            for i in range(1, len(path)):
                self._check_imported_name(path[:i], path[i], node)
            self._check_module_path(path, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        root = module.split(".")[0]
        if root == "kernel_zoo" and not node.level:
            self._import_from_kernel_zoo(node, tuple(module.split(".")))
            return
        if node.level or root not in ALLOWED_IMPORTS:
            self.add(_import_exploit(root), node, f"imports from {module or '.'}; allowed: "
                     f"{', '.join(sorted(ALLOWED_IMPORTS))}")
            return
        for alias in node.names:
            if alias.name == "*":
                self.add("forbidden-import", node, f"imports * from {module}: name what the "
                         "candidate uses, so the guards can see it")
                continue
            self._check_imported_name(tuple(module.split(".")), alias.name, node)
            self._check_module_path(tuple(module.split(".")) + (alias.name,), node)

    def _check_name_of(self, holder: str, name: str, node: ast.AST, verb: str,
                       private: bool = True) -> None:
        """The rules on a name reached through a module or object, one set for `x.name` (verb
        "reaches") and for imports (`from typing import sys`, `import torch._numpy`: verb
        "imports"), which reach the same thing: a process or thread module, a private name (when
        `private`), a name that runs code from strings or maps files."""
        if name in PROCESS_MODULE_ATTRS | THREAD_MODULE_ATTRS:
            exploit = "deferred-work" if name in THREAD_MODULE_ATTRS else "forbidden-import"
            self.add(exploit, node, f"{verb} the module {name} through {holder}: as good as "
                     "importing it")
        if private and name.startswith("_") and not name.startswith("__"):
            self.add("forbidden-api", node, f"{verb} the private {name} of {holder}: a "
                     "module's internals hold other modules (typing.collections._sys)")
        if name in CODE_AND_FILE_NAMES:
            self.add("module-patching", node, f"{verb} {name} through {holder}: it runs code "
                     "from strings or maps files")

    def _check_imported_name(self, module: tuple[str, ...], name: str, node: ast.AST) -> None:
        self._check_name_of(".".join(module), name, node, "imports",
                            private=module + (name,) not in ALLOWED_PRIVATE_IMPORTS)

    def _import_from_kernel_zoo(self, node: ast.ImportFrom, module: tuple[str, ...]) -> None:
        for alias in node.names:
            path = module + (alias.name,)
            if path not in TRUSTED_MODULES and \
                    alias.name not in TRUSTED_MODULES.get(module, ()):
                self.add("forbidden-import", node, f"imports {'.'.join(path)}; of kernel_zoo a "
                         f"candidate may import only cuda_ext "
                         f"({', '.join(sorted(CUDA_EXT_API))}) and slots "
                         f"({', '.join(sorted(SLOTS_API))})")

    def _check_trusted_use(self, node: ast.AST) -> None:
        """The cuda_ext module only as the base of `.load`, and `load` only as a callee; the
        slots module only as the base of `.epoch_words`, and that only as a callee."""
        path = self._resolve(node)
        if path in (CUDA_EXT, CUDA_LOAD) and id(node) not in self._sanctioned:
            what = "the cuda_ext module" if path == CUDA_EXT else "cuda_ext.load"
            self.add("forbidden-api", node, f"uses {what} other than as `cuda_ext.load(SOURCE, "
                     "signatures)`: the guards must see the source it builds")
        if path in (SLOTS, SLOTS_CALL) and id(node) not in self._sanctioned:
            what = "the slots module" if path == SLOTS else "slots.epoch_words"
            self.add("forbidden-api", node, f"uses {what} other than as "
                     "`slots.epoch_words(n, device)`, called where it is named")

    def visit_Try(self, node: ast.AST) -> None:
        self.add("hidden-fallback", node, "try/except: a failing kernel must fail the candidate, "
                 "not fall back to something else")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            path = self._resolve(base)
            if path and path[-1] == "Tensor":
                self.add("lazy-output", node, f"class {node.name} subclasses torch.Tensor")
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name in (
                "__torch_function__", "__torch_dispatch__"
            ):
                self.add("lazy-output", item, f"defines {item.name}: intercepting PyTorch")
        self._class_stack.append(node)
        self.generic_visit(node)
        self._class_stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function_stack.append(node)
        self.generic_visit(node)
        self._function_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        # a lambda's body runs wherever it is called: a module-level one, a grid, a hook
        self._function_stack.append(node)
        self.generic_visit(node)
        self._function_stack.pop()

    def _in_output_path(self) -> bool:
        """Plain Python functions other than a module's __init__: forward, launchers, helpers.
        A module's constructor may prepare its parameters with PyTorch; any other class's
        __init__ runs wherever the class is called, the forward path too."""
        if not self._function_stack:
            return False
        if any(not isinstance(f, ast.Lambda) and _is_jit(f, self.aliases)
               for f in self._function_stack):
            return False
        return not (getattr(self._function_stack[-1], "name", "") == "__init__" and
                    self._class_stack
                    and any((_chain(base) or ("",))[-1] == "Module"
                            for base in self._class_stack[-1].bases))

    def visit_Name(self, node: ast.Name) -> None:
        self._check_trusted_use(node)
        if node.id == "Model":
            self.add("reference-call", node, "refers to Model, the reference implementation")
        if isinstance(node.ctx, ast.Load) and node.id not in self.bound_names:
            # a builtin taken as a value is as good as called: `e = eval; e(...)`,
            # functools.reduce(getattr, ...), __builtins__['exec']
            if node.id in FORBIDDEN_BUILTINS:
                self.add("module-patching", node, f"refers to {node.id}: dynamic code and "
                         "attribute access can rewrite what judges the candidate")
            elif node.id.startswith("__") and node.id.endswith("__") and \
                    node.id not in ALLOWED_DUNDER_NAMES:
                self.add("module-patching", node, f"reaches into {node.id}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if id(node) in self._allowed_nodes:
            return  # the function of an allowed library call: torch.nn.functional.max_pool2d
        if node.attr.startswith("__") and node.attr.endswith("__") and \
                node.attr not in ALLOWED_DUNDERS:
            self.add("module-patching", node, f"reaches into {node.attr}")
        if "stream" in node.attr.lower():
            self.add("side-stream", node, f"uses .{node.attr}: kernels run on the current stream")
        if "hook" in node.attr.lower() and "state_dict" not in node.attr:
            # a state-dict hook runs when parameters load, not around a call (composed
            # candidates share parameters through one)
            self.add("forbidden-api", node, f"uses .{node.attr}: a hook runs code where the "
                     "verifier does not look (around the reference, inside a launch)")
        path = self._resolve(node)
        # a private name only on a path from a module (_resolve): self._cache is the
        # candidate's own
        self._check_name_of(ast.unparse(node.value), node.attr, node, "reaches",
                            private=path is not None)
        if path:
            self._check_module_path(path, node)
        if path == CUDA_LOAD and self._resolve(node.value) == CUDA_EXT:
            self._sanctioned.add(id(node.value))
        if path == SLOTS_CALL and self._resolve(node.value) == SLOTS:
            self._sanctioned.add(id(node.value))
        self._check_trusted_use(node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and self.allowed_calls and \
                self._resolve(func) in self.allowed_calls and _chain(func)[0] == "torch":
            self._allowed_nodes.add(id(func))
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                self.visit(arg)
            return
        if self._resolve(func) == SLOTS_CALL:
            self._sanctioned.add(id(func))
        if self._resolve(func) == CUDA_LOAD:
            self._sanctioned.add(id(func))
            if node.args:
                self.cuda_sources.append(node.args[0])
            else:
                self.add("forbidden-api", node, "cuda_ext.load without its source as the first "
                         "argument")
        if isinstance(func, ast.Name) and func.id in FORBIDDEN_BUILTINS:
            self.add("module-patching", node, f"calls {func.id}(): dynamic code and attribute "
                     "access can rewrite what judges the candidate")
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
            self.add("module-patching", node, "creates a class with type(name, bases, dict)")
        if self._in_output_path():
            path = self._resolve(func)
            if path and path[0] == "torch" and len(path) == 2 and path[1] not in ALLOWED_TORCH_CALLS:
                self.add("pytorch-fallback", node, f"calls torch.{path[1]} in the forward path "
                         "(allowed there: allocation, views, shape queries)")
            elif path and path[0] == "torch" and path[-1] in COMPUTE_METHODS:
                # torch.Tensor.tolist(x): a method called through its class
                self.add("pytorch-fallback", node, f"calls {'.'.join(path)} in the forward path "
                         "(allowed there: allocation, views, shape queries)")
            elif isinstance(func, ast.Attribute) and path is None and func.attr in COMPUTE_METHODS:
                self.add("pytorch-fallback", node, f"calls .{func.attr}() in the forward path "
                         "(allowed there: allocation, views, shape queries)")
        self.generic_visit(node)

    def _check_targets(self, targets: list[ast.AST]) -> None:
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, (ast.Attribute, ast.Subscript)):
                    base = sub.value
                    while isinstance(base, (ast.Attribute, ast.Subscript)):
                        base = base.value
                    if isinstance(base, ast.Name) and base.id in self.aliases:
                        self.add("module-patching", sub, f"assigns into the imported module "
                                 f"{base.id}")
                        break

    def visit_Assign(self, node: ast.Assign) -> None:
        self._check_targets(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._check_targets(node.targets)
        self.generic_visit(node)


def _import_exploit(root: str) -> str:
    if root in ("threading", "concurrent", "multiprocessing", "asyncio", "_thread"):
        return "deferred-work"
    if root in ("time", "timeit"):
        return "timer-patching"
    return "forbidden-import"


def _module_strings(tree: ast.Module) -> dict[str, tuple[ast.Constant | None, int]]:
    """name -> (its string literal when bound once, at module level, to one; how often bound)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, (ast.For, ast.With, ast.comprehension)):
            targets = [getattr(node, "target", None)] + [
                item.optional_vars for item in getattr(node, "items", [])]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                counts[name] = counts.get(name, 0) + 1
        for target in targets:
            for sub in ast.walk(target) if target is not None else ():
                if isinstance(sub, ast.Name):
                    counts[sub.id] = counts.get(sub.id, 0) + 1
    strings: dict[str, tuple[ast.Constant | None, int]] = {}
    for node in tree.body:
        value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if value is not None and isinstance(target, ast.Name) and \
                isinstance(value, ast.Constant) and isinstance(value.value, str):
            strings[target.id] = (value, counts.get(target.id, 0))
    return strings


def _check_cuda_argument(tree: ast.Module, node: ast.expr) -> list[Finding]:
    """The CUDA source given to cuda_ext.load: a literal the guards can read, and clean."""
    literal = node if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        bound, count = _module_strings(tree).get(node.id, (None, 0))
        literal = bound if count == 1 else None
    if literal is None:
        return [Finding("forbidden-api", getattr(node, "lineno", 0), "cuda_ext.load's source must "
                        "be a string literal, or a module-level name bound once to one, so the "
                        "guards read what nvcc builds")]
    return [
        Finding(f.exploit, literal.lineno + f.line - 1, f.text())
        for f in check_cuda_source(literal.value)
    ]


def _import_aliases(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Names the imports bind, to the module paths they stand for (as the visitor binds them)."""
    aliases: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                path = tuple(alias.name.split("."))
                aliases[alias.asname or path[0]] = path if alias.asname else path[:1]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = \
                        tuple(node.module.split(".")) + (alias.name,)
    return aliases


def _assigned_aliases(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """The import aliases, and every name bound (anywhere) to a path from one: `T = torch`,
    `SOFTMAX = torch.softmax`, `F = T.nn.functional`, so the rules on torch's paths see through
    the rebinding. Found before the visit, to a fixed point, so a use above the binding counts."""
    aliases = _import_aliases(tree)
    assigns = [node for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
               and node.value is not None]
    changed = True
    while changed:
        changed = False
        for node in assigns:
            chain = _chain(node.value)
            if not chain or chain[0] not in aliases:
                continue
            path = aliases[chain[0]] + chain[1:]
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if not isinstance(target, ast.Name):
                    continue
                # a name bound twice keeps its first path, or torch's where one binding is
                # torch's, so that the loop ends and the stricter rules apply
                known = aliases.get(target.id)
                if known is None or (path[0] == "torch" and known[0] != "torch"):
                    aliases[target.id] = path
                    changed = True
    return aliases


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the source binds anywhere: assignments and loop targets, parameters,
    definitions, imports, `except ... as`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


# the expression forms a module-level name used in a kernel may be bound to: constants and
# choices among Triton's own functions (`_load = tma.async_load if ... else ...`), no containers
_VALUE_NODES = (ast.Constant, ast.Name, ast.Attribute, ast.Call, ast.IfExp, ast.Compare,
                ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Tuple, ast.keyword, ast.expr_context,
                ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
_VALUE_BUILTINS = {"hasattr", "float", "int", "bool"}


def _kernel_findings(tree: ast.Module, aliases: dict[str, tuple[str, ...]]) -> list[Finding]:
    """What a Triton (or Gluon) kernel body refers to outside itself must be device-side: Triton's
    modules (and math), other kernels, Triton's aggregate classes, constants. On a GPU anything
    else fails to compile; in the interpreter a kernel body is plain Python, where a call to a
    helper class or to torch would compute the output out of sight of the launch counting."""
    # name -> what the module binds it to, each binding (an `if` at module level may bind a name
    # in both branches: `_load = tma.async_load` or the older name); None: no constant
    bound: dict[str, list[ast.AST | None]] = {}

    def bind(statements: list[ast.stmt]) -> None:
        for stmt in statements:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.setdefault(stmt.name, []).append(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            bound.setdefault(sub.id, []).append(
                                stmt.value if isinstance(target, ast.Name) else None)
            elif isinstance(stmt, ast.If):
                bind(stmt.body)
                bind(stmt.orelse)
            elif not isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Expr)):
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        bound.setdefault(sub.id, []).append(None)  # a loop, a with: no constant

    bind(tree.body)

    def device_name(name: str, seen: frozenset[str]) -> bool:
        if name in aliases:
            return aliases[name][0] in ("triton", "math")
        if name not in bound:
            return True  # a builtin (range, float), or a NameError when it runs
        if name in seen:
            return False
        return all(device_binding(what, seen | {name}) for what in bound[name])

    def device_binding(what: ast.AST | None, seen: frozenset[str]) -> bool:
        if isinstance(what, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # kernels; and what a decorator of Triton's own makes device-side: Gluon's
            # aggregates, constexpr_function (whose body the forward path's rules still read)
            if not isinstance(what, ast.ClassDef) and _is_jit(what, aliases):
                return True
            return bool(what.decorator_list) and all(
                device_value(d, seen) for d in what.decorator_list)
        return what is not None and device_value(what, seen)

    def device_value(expr: ast.AST, seen: frozenset[str]) -> bool:
        for sub in ast.walk(expr):
            if not isinstance(sub, _VALUE_NODES):
                return False
            if isinstance(sub, ast.Name) and sub.id not in _VALUE_BUILTINS and \
                    not device_name(sub.id, seen):
                return False
        return True

    findings = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _is_jit(fn, aliases):
            continue
        args = fn.args
        arg_names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                     *filter(None, [args.vararg, args.kwarg])]}
        # the body and the defaults; the decorators run on the host (autotune's configs)
        inside = [*fn.body, *args.defaults, *filter(None, args.kw_defaults)]
        nodes = [n for part in inside for n in ast.walk(part)]
        stored = {n.id for n in nodes if isinstance(n, ast.Name)
                  and isinstance(n.ctx, (ast.Store, ast.Del))}
        local = arg_names | stored
        params = arg_names - stored  # arguments the body never rebinds
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in params:
                # the interpreter hands a constexpr argument over as it is: a host function
                findings.append(Finding("kernel-escape", node.lineno, f"kernel {fn.name} calls "
                                        f"its argument {node.func.id}: a kernel calls Triton "
                                        "and other kernels by name only"))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                    node.id not in local and not device_name(node.id, frozenset()):
                findings.append(Finding("kernel-escape", node.lineno, f"kernel {fn.name} refers to "
                                        f"{node.id}, which is host Python (torch, a plain function "
                                        "or class, a mutable global): a kernel body can use "
                                        "Triton, other kernels and constants only"))
    return findings


def check_source(source: str,
                 allowed_calls: frozenset[tuple[str, ...]] = frozenset()) -> list[Finding]:
    """Every rule the source breaks; an empty list means it may be imported and run.

    `allowed_calls`: library calls the task's reference makes (verifier.capture), which a
    composed candidate may make too, called by their full path from `import torch`."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [Finding("syntax-error", exc.lineno or 0, f"syntax error: {exc.msg}")]
    checker = _Checker(allowed_calls)
    checker.bound_names = _bound_names(tree)
    checker.aliases = _assigned_aliases(tree)
    checker.visit(tree)
    checker.findings.extend(_kernel_findings(tree, checker.aliases))
    for source_node in checker.cuda_sources:
        checker.findings.extend(_check_cuda_argument(tree, source_node))
    has_model_new = any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body)
    if not has_model_new:
        checker.findings.append(Finding("no-model", 0, "defines no class ModelNew"))
    return checker.findings
