"""A candidate that hangs or crashes its worker does not stop the loop: its trial is recorded as
failed with the cause, the worker is replaced, and the search finishes."""

from __future__ import annotations

import pytest

from conftest import ROOT

HANG = "        while True:\n            pass\n"
WILD_LOAD = "x = tl.load(x_ptr + x_off + (1 << 40),"


class FaultyTemplate:
    """The softmax template, rendering its 2nd candidate as a hang and its 3rd as a wild load."""

    def __init__(self, base):
        self._base = base
        self.renders = 0

    def __getattr__(self, name):
        return getattr(self._base, name)

    def render(self, cfg, **context):
        source = self._base.render(cfg, **context)
        self.renders += 1
        if self.renders == 2:
            return source.replace("        return launch_softmax(x, 1)\n", HANG)
        if self.renders == 3:
            return source.replace("x = tl.load(x_ptr + x_off,", WILD_LOAD)
        return source


@pytest.mark.timeout(600)
def test_hang_and_crash_are_failed_trials_and_the_loop_finishes(kzoo_home, monkeypatch):
    import ray

    import agent.loop as loop
    from templates import get_template

    faulty = FaultyTemplate(get_template("softmax"))
    from agent.plan import Plan

    monkeypatch.setattr(Plan, "template_object", lambda self, wanted=None: faulty)
    try:
        result = loop.optimize(loop.OptimizeOptions(
            task=str(ROOT / "tasks" / "softmax.py"), trials=5, workers=2, timeout_s=20.0,
            seed=3, quiet=True,
        ))
    finally:
        ray.shutdown()
    payload, table = result.payload, result.table
    assert payload["trials"] == 5
    assert payload["best"] is not None and payload["best"]["correct"]
    failed = {row["stage"]: row for row in table if not row["accepted"]}
    assert "timeout" in failed, table
    assert "did not finish within 20 s" in failed["timeout"]["reason"]
    crashed = [row for row in table if not row["accepted"] and row["stage"] != "timeout"]
    assert crashed and crashed[0]["stage"] in ("crash", "correctness"), table
    assert payload["worker_restarts"] >= 1
    assert sum(row["accepted"] for row in table) >= 2  # the loop kept verifying afterwards
