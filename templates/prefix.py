"""One rendered module's top-level names prefixed, so several rendered modules live in one file:
a composite's groups (agent/compose.py), a GEMM's skinny companion (templates/gemm.py), the
Triton kernels a CUDA C++ Linear carries (templates/gemm_cuda.py)."""

from __future__ import annotations

import ast


def _top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return names


def _locals_of(fn: ast.AST) -> set[str]:
    args = fn.args
    names = {a.arg for a in args.args + args.kwonlyargs + args.posonlyargs}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


class _Renamer(ast.NodeTransformer):
    def __init__(self, names: set[str], prefix: str):
        self.names, self.prefix = names, prefix
        self.shadowed: list[set[str]] = []

    def _fn(self, node):
        if not self.shadowed and node.name in self.names:
            node.name = self.prefix + node.name
        self.shadowed.append(_locals_of(node))
        self.generic_visit(node)
        self.shadowed.pop()
        return node

    visit_FunctionDef = _fn
    visit_AsyncFunctionDef = _fn

    def visit_ClassDef(self, node):
        if not self.shadowed and node.name in self.names:
            node.name = self.prefix + node.name
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.names and not (self.shadowed and node.id in self.shadowed[-1]):
            node.id = self.prefix + node.id
        return node


def prefix_module(source: str, prefix: str) -> tuple[list[str], str]:
    """(the module's import lines, its body with every top-level name prefixed)."""
    tree = ast.parse(source)
    imports, body = [], []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(ast.unparse(stmt))
        elif isinstance(stmt, ast.Expr) and isinstance(getattr(stmt, "value", None), ast.Constant) \
                and isinstance(stmt.value.value, str) and not body:
            continue  # the module docstring
        else:
            body.append(stmt)
    module = ast.Module(body=body, type_ignores=[])
    _Renamer(_top_level_names(module), prefix).visit(module)
    return imports, ast.unparse(module)


def append_companion(parts: list[str], lines: set[str], companion: str, prefix: str,
                     note: str) -> None:
    """Append a rendered companion module to a module's `parts` (joined by blank lines): `note`
    (a comment line), the companion's imports that `lines` (the module's lines so far, updated)
    lacks, then its body with every top-level name prefixed."""
    imports, body = prefix_module(companion, prefix)
    parts.append(note)
    parts += [line for line in imports if line not in lines]
    lines.update(imports)
    parts.append(body)
