"""Verdicts as the model reads them: what was refused and why, with the offending source lines
quoted; mismatch reports; timings and the fraction of the roofline reached."""

from __future__ import annotations

import re
from typing import Any

from verifier.exploits import describe
from verifier.verdict import is_host_bound

# "line 12: ..." (static guards) and "(at cand_ab12.py:12)" (errors raised in the candidate's file)
_LINE_REFS = re.compile(r"\bline (\d+)\b|\.py:(\d+)\)")
MAX_QUOTED = 3


def quote_lines(reasons: list[str], source: str | None) -> list[str]:
    """The source lines the reasons point at, numbered as the verifier numbers them."""
    if not source:
        return []
    lines = source.splitlines()
    seen: list[int] = []
    for reason in reasons:
        for match in _LINE_REFS.finditer(reason):
            number = int(match.group(1) or match.group(2))
            if 1 <= number <= len(lines) and number not in seen:
                seen.append(number)
    return [f"{n:>5} | {lines[n - 1].rstrip()}" for n in seen[:MAX_QUOTED]]


def timing_text(verdict: dict[str, Any]) -> str:
    if verdict.get("ms") is None:
        if verdict.get("mode") == "interpreter":
            return "correct at every shape (Triton interpreter: correctness only, not timed)"
        return "correct at every shape (not timed)"
    parts = [f"{verdict['ms']:.4f} ms summed over the task's shapes"]
    for key, label in (("speedup_vs_eager", "eager PyTorch"),
                       ("speedup_vs_compile", "torch.compile")):
        if verdict.get(key):
            parts.append(f"{verdict[key]:.2f}x {label}")
    if verdict.get("roofline_fraction") is not None:
        parts.append(f"{verdict['roofline_fraction']:.0%} of the measured copy bandwidth")
    shapes = [s for s in verdict.get("shapes", []) if s.get("ms") is not None]
    per_shape = "; ".join(
        f"{_shape(s['shape'])}: {s['ms']:.4f} ms"
        + (f" ({s['roofline_fraction']:.0%} of copy bw)" if s.get("roofline_fraction") else "")
        + _host_note(s)
        for s in shapes
    )
    return ", ".join(parts) + (f". Per shape: {per_shape}" if per_shape else "")


def _host_note(shape: dict[str, Any]) -> str:
    """Where the host's time per call exceeds the GPU's: the call is host-bound, and fewer
    launches or less Python per call is what would make it faster."""
    host = shape.get("host_us")
    if not is_host_bound(host, shape.get("ms")):
        return ""
    eager = shape.get("eager_host_us")
    against = f", eager PyTorch {eager:.0f} us" if eager is not None else ""
    return (f" [host-bound: {host:.0f} us of host time per call{against}: fewer launches or less "
            "Python per call would help]")


def _shape(shape: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in shape.items())


def verdict_text(verdict: dict[str, Any], source: str | None = None) -> list[str]:
    """A few lines: accepted with timings, or where it was rejected and every reason given."""
    if verdict.get("accepted"):
        return [f"ACCEPTED: {timing_text(verdict)}"]
    stage = verdict.get("stage")
    head = {
        "guards": "REJECTED by the static guards before running",
        "load": "REJECTED: importing the module failed",
        "correctness": "REJECTED: wrong or refused while running",
        "timing": "REJECTED while timing",
        "crash": "REJECTED: the worker process died",
        "timeout": "REJECTED: it did not finish in time",
    }.get(stage, f"REJECTED at stage {stage}")
    exploits = verdict.get("exploits") or []
    lines = [head + (f" [{', '.join(exploits)}]" if exploits else "")]
    lines += [f"- {r}" for r in verdict.get("reasons") or []]
    lines += [f"  rule {e}: {describe(e)}" for e in exploits if stage == "guards"]
    quoted = quote_lines(verdict.get("reasons") or [], source)
    if quoted:
        lines.append("  the lines it points at:")
        lines += [f"  {q}" for q in quoted]
    return lines


def sample_text(sample: dict[str, Any]) -> list[str]:
    """One sample's feedback: its kind and its verdict (templates: their best and a rejected
    config)."""
    label = f"Sample {sample['sample']}"
    if sample.get("gist"):
        label += f" [{sample['gist']}]"
    kind = sample["kind"]
    if kind == "unparseable":
        return [f"{label}: could not parse the answer: {sample['reason']}"]
    if kind == "failed":
        return [f"{label}: no answer ({sample['reason']})"]
    if kind == "module":
        return [f"{label} (full module {sample['name']}):",
                *(f"  {line}" for line in verdict_text(sample["verdict"], sample.get("source")))]
    trials = sample.get("trials", [])
    accepted = [t for t in trials if t["verdict"].get("accepted")]
    lines = [f"{label} (template {sample['name']}): {len(trials)} config(s) verified, "
             f"{len(accepted)} accepted" + (f", {sample['pruned']} pruned by its constraints"
                                             if sample.get("pruned") else "")]
    if sample.get("stopped"):
        lines.append(f"  stopped early: {sample['stopped']}")
    if accepted:
        best = max(accepted, key=lambda t: t["score"])
        lines.append(f"  best config {best['params']}:")
        lines += [f"    {line}" for line in verdict_text(best["verdict"])]
    rejected = [t for t in trials if not t["verdict"].get("accepted")]
    if rejected:
        worst = rejected[0]
        lines.append(f"  rejected config {worst['params']} (line numbers are the rendered "
                     "module's):")
        lines += [f"    {line}" for line in verdict_text(worst["verdict"], worst.get("source"))]
    return lines
