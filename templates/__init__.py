"""Jinja2 kernel templates, each with its parameter space, constraints and cost model."""

from __future__ import annotations

from templates.base import InvalidConfig, Param, Template, params_of


def get_template(name: str) -> Template:
    """The template registered under `name`."""
    if name == "softmax":
        from templates.softmax import TEMPLATE

        return TEMPLATE
    raise KeyError(f"no template named {name!r}; known: {sorted(TEMPLATE_NAMES)}")


TEMPLATE_NAMES = ("softmax",)

__all__ = ["InvalidConfig", "Param", "Template", "get_template", "params_of", "TEMPLATE_NAMES"]
