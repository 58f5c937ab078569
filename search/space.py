"""Map an Optuna trial to a template's frozen config; the space itself is the template's data."""

from __future__ import annotations

import random
from typing import Any

from templates import Template

PRUNED_PER_TRIAL = 20  # the fewest constraint-rejected configs the loop allows a trial


def suggest(trial, template: Template) -> Any:
    """Ask the trial for every parameter of the template's space and build the config."""
    params = {p.name: trial.suggest_categorical(p.name, list(p.choices)) for p in template.space}
    return template.config(params)


def reject(study, trial, problems: list[str]) -> None:
    """Close a trial whose config breaks the template's constraints: never compiled, so no result.

    Told FAIL, which samplers skip, not PRUNED. TPE takes PRUNED trials for results: while a
    study holds fewer completed trials than its "good" set wants, PRUNED ones fill that set, TPE
    samples near them, draws more invalid configs, and the rejections feed on themselves (two
    drivers sharing a softmax study gave up after 100 rejections for 5 trials). The user
    attribute `constraints` names what broke."""
    from optuna.trial import TrialState

    trial.set_user_attr("constraints", problems)
    study.tell(trial, state=TrialState.FAIL)


def space_size(template: Template) -> int:
    size = 1
    for p in template.space:
        size *= len(p.choices)
    return size


def pruned_budget(template: Template, trials: int, samples: int = 2000, seed: int = 0) -> int:
    """How many configs the template's constraints may reject before the loop gives up on
    `trials` trials: PRUNED_PER_TRIAL a trial, or four times the rejections a valid config costs
    when the space is drawn at random (`samples` draws), whichever is more. Spaces differ by two
    orders: a random GEMM config passes about 1 time in 90, a softmax one 1 in 3, and TPE asks at
    random first, so a fixed 20 a trial gave up on GEMM at some seeds. A space with no valid
    draw keeps the floor, and the loop says the space may be mostly invalid."""
    rng = random.Random(seed)
    valid = 0
    for _ in range(samples):
        valid += not template.violations(template.draw(rng))
    per_valid = samples / valid if valid else 0.0
    return int(trials * max(PRUNED_PER_TRIAL, 4 * per_valid))
