"""Optuna over template spaces: the space mapping, studies and their storage, scoring."""

from search.space import pruned_budget, reject, space_size, suggest
from search.study import (
    TrialRecord, best_accepted, completed_trials, connect_storage, count_completed,
    default_storage, open_study,
    reclaim_stale_trials, score, study_name, this_driver,
)

__all__ = [
    "TrialRecord", "best_accepted", "completed_trials", "connect_storage", "count_completed",
    "default_storage",
    "open_study",
    "pruned_budget", "reclaim_stale_trials", "reject", "score", "space_size", "study_name",
    "suggest", "this_driver",
]
