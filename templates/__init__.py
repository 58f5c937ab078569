"""Jinja2 kernel templates, each with its parameter space, constraints and cost model.

A template is a module of this package that defines `TEMPLATE` (or `TEMPLATES`, a tuple) next to
its Jinja file; `get_template(name)` finds it by name. Modules are imported on first look-up, so
importing this package costs nothing.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

from templates.base import InvalidConfig, Param, Template, params_of

_NOT_TEMPLATES = {"base"}


@functools.lru_cache(maxsize=None)
def _registry() -> dict[str, Template]:
    found: dict[str, Template] = {}
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("_") or info.name in _NOT_TEMPLATES:
            continue
        module = importlib.import_module(f"templates.{info.name}")
        declared = getattr(module, "TEMPLATES", None) or (
            (module.TEMPLATE,) if hasattr(module, "TEMPLATE") else ()
        )
        for template in declared:
            if template.name in found:
                raise RuntimeError(f"two templates are named {template.name!r}")
            found[template.name] = template
    return found


def template_names() -> tuple[str, ...]:
    return tuple(sorted(_registry()))


def get_template(name: str) -> Template:
    """The template registered under `name`."""
    registry = _registry()
    if name not in registry:
        raise KeyError(f"no template named {name!r}; known: {sorted(registry)}")
    return registry[name]


__all__ = ["InvalidConfig", "Param", "Template", "get_template", "params_of", "template_names"]
