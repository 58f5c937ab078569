"""A candidate that hangs or crashes its worker does not stop the loop: its trial is recorded as
failed with the cause, the worker is replaced, and the search finishes."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import ROOT

HANG = "        while True:\n            pass\n"
WILD_LOAD = "x = tl.load(x_ptr + x_off + (1 << 40),"


class FaultyTemplate:
    """The softmax template, rendering its 2nd candidate as a hang and its 3rd as a wild load."""

    def __init__(self, base):
        self._base = base
        self.renders = -1  # render 0: the loop's check of the plan's context, before any trial

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


def test_a_ctrl_c_that_a_library_swallows_still_stops_the_search():
    """agent.loop._CtrlC: the SIGINT handler raises KeyboardInterrupt and remembers it, so the
    loop's next check raises it again when the first was caught on its way up."""
    import os
    import signal
    import time

    from agent.loop import _CtrlC

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal
    try:
        ctrl_c = _CtrlC()
        ctrl_c.install()
        try:
            ctrl_c.check()  # nothing yet
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)  # the handler runs here, in the main thread
            # ... and a library that caught it went on: the loop's next check stops the search
            with pytest.raises(KeyboardInterrupt):
                ctrl_c.check()
        finally:
            ctrl_c.restore()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_the_parent_ignores_stays_ignored():
    import signal

    from agent.loop import _CtrlC

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctrl_c = _CtrlC()
        ctrl_c.install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        ctrl_c.restore()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_plan_context_its_template_refuses_is_a_plan_error_before_any_search(kzoo_home,
                                                                              monkeypatch):
    """A planner bug (here a context naming an op the expression language lacks) is told plainly,
    before a study or Ray starts, not as a traceback from inside the search."""
    import agent.loop as loop
    from agent.errors import PlanError
    from agent.plan import plan as real_plan

    def broken_plan(task):
        found = real_plan(task)
        context = dict(found.context, expr=["cosh", ["input", 0]])
        return dataclasses.replace(found, context=context)

    monkeypatch.setattr(loop, "make_plan", broken_plan)
    with pytest.raises(PlanError, match="render context it refuses: .*unknown op 'cosh'"):
        loop.optimize(loop.OptimizeOptions(task=str(ROOT / "tasks" / "swiglu.py"), trials=1,
                                           quiet=True))
    assert not list((kzoo_home).rglob("studies.db")), "no study was opened"
