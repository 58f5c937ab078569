"""Map an Optuna trial to a template's frozen config; the space itself is the template's data."""

from __future__ import annotations

from typing import Any

from templates import Template


def suggest(trial, template: Template) -> Any:
    """Ask the trial for every parameter of the template's space and build the config."""
    params = {p.name: trial.suggest_categorical(p.name, list(p.choices)) for p in template.space}
    return template.config(params)


def space_size(template: Template) -> int:
    size = 1
    for p in template.space:
        size *= len(p.choices)
    return size
