"""Parse a model's answer into a full candidate module or a template with its parameter space.

The answer formats (the README and the system prompt describe the same):

- **Module**: a fenced ```python block whose code defines `class ModelNew`. It goes to the verifier
  as it is. Where several python blocks define ModelNew, the last one counts.
- **Template**: a fenced ```jinja block (Jinja2 source of a candidate module) and a fenced ```json
  block declaring its space:

      {"params": {"BLOCK": [256, 512, 1024], "WARPS": [4, 8]},
       "default": {"BLOCK": 1024, "WARPS": 4},
       "constraints": ["BLOCK // (32 * WARPS) <= 64"]}

  `params` maps each name (a Python identifier) to its choices (numbers, booleans or strings);
  `default` (optional; else the first choice of each) is tried first; each constraint (optional) is
  an expression over the names (arithmetic, comparisons, and/or/not, min/max/abs) that must hold,
  and configs breaking one are pruned before rendering. The source is rendered with each parameter
  as a variable of its own name, `params` (the dict), and the plan's context (softmax: `dim`,
  `dim_is_last`), under StrictUndefined: a name the template uses but nobody defines fails loudly.

A ```jinja block makes the answer a template answer. Anything else is unparseable, with a reason
that goes back to the model.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import jinja2

from templates.base import InvalidConfig, Param, Template

MAX_PARAMS = 8
MAX_CHOICES = 16
RESERVED_NAMES = {"params", "cfg", "params_json", "params_repr"}
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_SAFE_CALLS = {"min": min, "max": max, "abs": abs}


class AnswerError(ValueError):
    """The answer cannot be used; the message is the feedback the model gets."""


@dataclass(frozen=True)
class ModuleAnswer:
    source: str
    kind: str = "module"


@dataclass(frozen=True)
class TemplateAnswer:
    template: "SourceTemplate"
    kind: str = "template"


@dataclass(frozen=True)
class Unparseable:
    reason: str
    kind: str = "unparseable"


Answer = ModuleAnswer | TemplateAnswer | Unparseable


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of every fenced block, reasoning models' <think> sections removed."""
    visible = _THINK.sub("", text)
    return [(lang.lower(), body) for lang, body in _FENCE.findall(visible)]


def _defines_model_new(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "class ModelNew" in source  # the verifier reports the syntax error with its line
    return any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body)


def gist(text: str, limit: int = 160) -> str:
    """The answer's first line of prose and its kernels' names: how a later prompt refers to it."""
    visible = _THINK.sub("", text)
    prose = next((line.strip() for line in _FENCE.sub("", visible).splitlines() if line.strip()),
                 "")
    if len(prose) > limit:
        prose = prose[: limit - 3] + "..."
    kernels = re.findall(r"@triton\.jit[^\n]*\n\s*def (\w+)", visible)
    parts = [f'"{prose}"'] if prose else []
    if kernels:
        parts.append("kernels " + ", ".join(dict.fromkeys(kernels)))
    return "; ".join(parts)


def _missing_launcher(source: str, launcher: str | None) -> str | None:
    """Why the module lacks the zoo's entry point, or None (a syntax error is the verifier's)."""
    if not launcher:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if any(isinstance(n, ast.FunctionDef) and n.name == launcher for n in tree.body):
        return None
    return (f"the module defines no top-level function {launcher}(...), the launcher the zoo "
            "calls (ModelNew.forward should call it)")


def parse_answer(text: str, context: dict[str, Any], launcher: str | None = None) -> Answer:
    """The answer's module or template; Unparseable with the reason otherwise. Never raises.

    `launcher` (e.g. launch_softmax) must be defined at the top level of the module (of a
    template's render at its default), so a winner can go into the zoo."""
    if not text.strip():
        return Unparseable("the answer was empty")
    blocks = _blocks(text)
    jinja_blocks = [body for lang, body in blocks if lang in ("jinja", "jinja2", "j2")]
    if jinja_blocks:
        json_blocks = [body for lang, body in blocks if lang == "json"]
        if not json_blocks:
            return Unparseable("a ```jinja block came without the ```json block that declares its "
                               "parameter space")
        try:
            template = build_template(jinja_blocks[-1], json_blocks[-1], context)
        except AnswerError as exc:
            return Unparseable(str(exc))
        missing = _missing_launcher(template.render(template.default, **context), launcher)
        return Unparseable(f"rendered at its default, {missing}") if missing else \
            TemplateAnswer(template)
    modules = [body for lang, body in blocks if lang in ("python", "py", "")
               and _defines_model_new(body)]
    if modules:
        missing = _missing_launcher(modules[-1], launcher)
        return Unparseable(missing) if missing else ModuleAnswer(modules[-1])
    found = ", ".join(sorted({lang or "untagged" for lang, _ in blocks})) or "none"
    return Unparseable(
        "no ```python block defining class ModelNew and no ```jinja + ```json template pair "
        f"(fenced blocks found: {found})"
    )


# ---- templates from answers --------------------------------------------------------------------

@dataclass(frozen=True)
class SourceTemplate(Template):
    """A Template whose Jinja2 source is a string (an LLM's answer), not a file under templates/."""

    source: str = ""

    def render(self, cfg: Any, **context: Any) -> str:
        problems = self.violations(cfg)
        if problems:
            raise InvalidConfig(f"template {self.name}: " + "; ".join(problems))
        params = dataclasses.asdict(cfg)
        # In an LLM template `params` is the dict of its own tunables (as the prompt says); the
        # plan's list of Model parameters (context `params`) is passed as `model_params`.
        context = dict(context)
        model_params = context.pop("params", [])
        return _compiled(self.source).render(
            **context, **params, cfg=cfg, params=params, model_params=model_params,
            params_json=json.dumps(params, sort_keys=True), params_repr=repr(params),
        )


@dataclass(frozen=True)
class FixedTemplate(Template):
    """A full-module answer seen as a Template with nothing to tune: it renders its own source."""

    source: str = ""

    def render(self, cfg: Any, **context: Any) -> str:
        return self.source


_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True, autoescape=False,
)
_COMPILED: dict[str, jinja2.Template] = {}


def _compiled(source: str) -> jinja2.Template:
    if source not in _COMPILED:
        _COMPILED[source] = _ENV.from_string(source)
    return _COMPILED[source]


def _check_space(spec: Any) -> tuple[tuple[Param, ...], dict[str, Any], list[str]]:
    if not isinstance(spec, dict) or not isinstance(spec.get("params"), dict) or not spec["params"]:
        raise AnswerError('the ```json block must be an object with a non-empty "params" object '
                          'mapping each parameter to its list of choices')
    unknown = set(spec) - {"params", "default", "constraints"}
    if unknown:
        raise AnswerError(f"the ```json block has unknown keys {sorted(unknown)}; allowed: "
                          "params, default, constraints")
    params = spec["params"]
    if len(params) > MAX_PARAMS:
        raise AnswerError(f"{len(params)} parameters; at most {MAX_PARAMS}")
    space = []
    for name, choices in params.items():
        if not name.isidentifier() or name in RESERVED_NAMES or name.startswith("_"):
            raise AnswerError(f"parameter name {name!r} must be a Python identifier, not starting "
                              f"with '_' and none of {sorted(RESERVED_NAMES)}")
        if not isinstance(choices, list) or not 1 <= len(choices) <= MAX_CHOICES:
            raise AnswerError(f"parameter {name}: choices must be a list of 1 to {MAX_CHOICES} "
                              "values")
        if any(not isinstance(c, (int, float, bool, str)) for c in choices):
            raise AnswerError(f"parameter {name}: choices must be numbers, booleans or strings")
        if len(set(map(repr, choices))) != len(choices):
            raise AnswerError(f"parameter {name}: choices repeat")
        space.append(Param(name, tuple(choices)))
    default = spec.get("default") or {p.name: p.choices[0] for p in space}
    if not isinstance(default, dict) or set(default) != set(params):
        raise AnswerError(f'"default" must give a value to each of {sorted(params)}')
    constraints = spec.get("constraints") or []
    if not isinstance(constraints, list) or not all(isinstance(c, str) for c in constraints):
        raise AnswerError('"constraints" must be a list of expression strings')
    for text in constraints:
        _check_expression(text, set(params))
    return tuple(space), default, constraints


def _check_expression(text: str, names: set[str]) -> ast.Expression:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise AnswerError(f"constraint {text!r} does not parse: {exc.msg}") from None
    allowed = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name,
               ast.Load, ast.Constant, ast.Call, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
               ast.IfExp)
    for node in ast.walk(tree):
        if not isinstance(node, allowed) or isinstance(node, ast.Pow):
            raise AnswerError(f"constraint {text!r}: {type(node).__name__} is not allowed "
                              "(arithmetic, comparisons, and/or/not, min/max/abs only)")
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _SAFE_CALLS and not node.keywords
        ):
            raise AnswerError(f"constraint {text!r}: only min(), max() and abs() may be called")
        if isinstance(node, ast.Name) and node.id not in names and node.id not in _SAFE_CALLS:
            raise AnswerError(f"constraint {text!r} names {node.id!r}, which is not a parameter")
    return tree


def _evaluate(tree: ast.AST, values: dict[str, Any]) -> Any:
    """Evaluate a checked constraint tree; only the node kinds _check_expression lets through."""
    if isinstance(tree, ast.Expression):
        return _evaluate(tree.body, values)
    if isinstance(tree, ast.Constant):
        return tree.value
    if isinstance(tree, ast.Name):
        return values[tree.id]
    if isinstance(tree, ast.BoolOp):
        results = [_evaluate(v, values) for v in tree.values]
        return all(results) if isinstance(tree.op, ast.And) else any(results)
    if isinstance(tree, ast.UnaryOp):
        operand = _evaluate(tree.operand, values)
        return {ast.Not: lambda v: not v, ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                ast.Invert: lambda v: ~v}[type(tree.op)](operand)
    if isinstance(tree, ast.BinOp):
        left, right = _evaluate(tree.left, values), _evaluate(tree.right, values)
        ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
               ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
               ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
               ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
               ast.LShift: lambda a, b: a << min(b, 64), ast.RShift: lambda a, b: a >> b}
        if type(tree.op) not in ops:
            raise AnswerError(f"operator {type(tree.op).__name__} is not allowed")
        return ops[type(tree.op)](left, right)
    if isinstance(tree, ast.Compare):
        left = _evaluate(tree.left, values)
        ops = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
               ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
               ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
        for op, comparator in zip(tree.ops, tree.comparators):
            right = _evaluate(comparator, values)
            if type(op) not in ops or not ops[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(tree, ast.IfExp):
        return _evaluate(tree.body if _evaluate(tree.test, values) else tree.orelse, values)
    if isinstance(tree, ast.Call):
        return _SAFE_CALLS[tree.func.id](*(_evaluate(a, values) for a in tree.args))
    raise AnswerError(f"{type(tree).__name__} is not allowed in a constraint")


def _constraint_checker(constraints: list[str], names: set[str]):
    trees = [(text, _check_expression(text, names)) for text in constraints]

    def violations(cfg: Any) -> list[str]:
        values = dataclasses.asdict(cfg)
        problems = []
        for text, tree in trees:
            try:
                holds = bool(_evaluate(tree, values))
            except (ArithmeticError, TypeError, ValueError) as exc:
                problems.append(f"constraint {text!r} cannot be evaluated: {exc}")
                continue
            if not holds:
                problems.append(f"breaks constraint {text!r}")
        return problems

    return violations


def _unknown_bytes(*args: Any, **kwargs: Any) -> int:
    raise NotImplementedError("an LLM template declares no byte count; the task's formula is used")


def build_template(source: str, space_json: str, context: dict[str, Any]) -> Template:
    """A Template from an answer's Jinja2 source and JSON space; AnswerError says what is wrong.

    Its name is `llm-` plus a hash of source and space, so the same answer always maps to the same
    Optuna study and never to the built-in template's.
    """
    try:
        spec = json.loads(space_json)
    except json.JSONDecodeError as exc:
        raise AnswerError(f"the ```json block is not JSON: {exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno}") from None
    space, default, constraints = _check_space(spec)
    clash = sorted({p.name for p in space} & set(context))
    if clash:
        raise AnswerError(f"parameter name(s) {clash} clash with the render context "
                          f"{sorted(context)}; rename them")
    try:
        _compiled(source)
    except jinja2.TemplateSyntaxError as exc:
        raise AnswerError(f"the ```jinja block is not valid Jinja2: {exc.message} at line "
                          f"{exc.lineno} of the template") from None
    digest = hashlib.sha256((source + "\0" + json.dumps(spec, sort_keys=True)).encode())
    config_type = dataclasses.make_dataclass(
        "LLMTemplateConfig", [(p.name, Any) for p in space], frozen=True,
    )
    template = SourceTemplate(
        name=f"llm-{digest.hexdigest()[:12]}", family="llm", jinja_file="", config_type=config_type,
        space=space, default=None,
        constraints=_constraint_checker(constraints, {p.name for p in space}),
        bytes_moved=_unknown_bytes, launcher="", doc="written by an LLM", source=source,
    )
    try:
        default_cfg = template.config(default)
    except InvalidConfig as exc:
        raise AnswerError(f'"default": {exc}') from None
    problems = template.violations(default_cfg)
    if problems:
        raise AnswerError(f'"default" {default} ' + "; ".join(problems))
    try:
        template.render(default_cfg, **context)
    except jinja2.TemplateError as exc:
        line = getattr(exc, "lineno", None)
        raise AnswerError(f"rendering the template at its default failed: {type(exc).__name__}: "
                          f"{exc}" + (f" (template line {line})" if line else "")) from None
    return dataclasses.replace(template, default=default_cfg)


@dataclass(frozen=True)
class _NoParams:
    """The config of a fixed module: nothing to tune."""


def module_template(source: str) -> Template:
    """A full-module answer as a Template with an empty space, so the loop's winner, re-timing and
    promotion treat it like any template's best."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    return FixedTemplate(
        name=f"llm-module-{digest}", family="llm", jinja_file="", config_type=_NoParams,
        space=(), default=_NoParams(), constraints=lambda cfg: [], bytes_moved=_unknown_bytes,
        launcher="", doc="a full module written by an LLM", source=source,
    )
