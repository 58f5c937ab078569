"""Verdicts are data, never exceptions: what a person, Optuna and an LLM all read."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Mismatch:
    index: list[int]
    got: float
    expected: float
    abs_err: float
    kind: str  # "value", "nan" (got NaN where a number was expected), "inf" (wrong infinity)


@dataclass
class Comparison:
    """One output compared against the float64 reference."""

    ok: bool
    max_abs_err: float
    max_rel_err: float
    rel_l2_err: float
    rel_l2_bound: float
    n_bad: int
    n_nan: int
    numel: int
    mismatches: list[Mismatch] = field(default_factory=list)
    # where the candidate failed: at how many elements PyTorch's own same-dtype result is outside
    # the element-wise bound too (None: not judged); a dtype too short for the op shows here
    same_dtype_bad: int | None = None


@dataclass
class Timing:
    median_ms: float
    p20_ms: float
    p80_ms: float
    n: int


NEEDS_A_GPU = "CUDA C++: it runs only on a GPU, and this machine has none"


def needs_a_gpu(verdict: dict[str, Any]) -> bool:
    """A verdict (Verdict.to_dict or .summary) that refused to run a CUDA C++ kernel for want of
    a GPU: nothing was found wrong with it, so re-verification reports it skipped, not wrong."""
    return not verdict.get("accepted") and "needs-gpu" in (verdict.get("exploits") or [])


def geomean(values: list[float | None]) -> float | None:
    """The geometric mean of positive values; None when there are none or one is missing or not
    positive (a ratio that was never measured)."""
    if not values or any(v is None or v <= 0 for v in values):
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def is_host_bound(host_us: float | None, ms: float | None) -> bool | None:
    """Whether a call's host time per call (us) exceeds its timed GPU time (ms); None untimed."""
    if host_us is None or ms is None:
        return None
    return host_us > ms * 1e3


@dataclass
class ShapeResult:
    shape: dict[str, Any]
    correct: bool
    reasons: list[str] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    ms: float | None = None
    spread_ms: float | None = None  # p80 - p20
    eager_ms: float | None = None
    compile_ms: float | None = None
    bytes: int | None = None
    gbps: float | None = None
    roofline_fraction: float | None = None
    # host microseconds per call, calls back to back (the GPU left to run behind them): the
    # candidate's and eager PyTorch's. Where a call's host time exceeds its GPU time the GPU
    # waits on the host, and the timings measure the host.
    host_us: float | None = None
    eager_host_us: float | None = None

    @property
    def host_bound(self) -> bool | None:
        """Whether the candidate's host time per call exceeds its timed GPU time (None untimed)."""
        return is_host_bound(self.host_us, self.ms)

    @property
    def best_baseline_ms(self) -> float | None:
        times = [t for t in (self.eager_ms, self.compile_ms) if t is not None]
        return min(times) if times else None


@dataclass
class Verdict:
    accepted: bool
    stage: str  # where it ended: load, correctness, timing, done, crash, timeout
    mode: str  # "gpu" or "interpreter"
    dtype: str
    reasons: list[str] = field(default_factory=list)
    exploits: list[str] = field(default_factory=list)  # class of each rejection (verifier.exploits)
    shapes: list[ShapeResult] = field(default_factory=list)
    device: str | None = None
    copy_gbps: float | None = None
    # how the shapes' ms were timed (verifier.timing.bench): "host_ahead", the GPU's work with the
    # host kept ahead of it, since GPU round 184; None in a verdict from before (the host's time
    # counted where it outlasted the L2 flush)
    timer: str | None = None

    def reject(self, exploit: str, reason: str) -> None:
        self.accepted = False
        if exploit not in self.exploits:
            self.exploits.append(exploit)
        self.reasons.append(f"[{exploit}] {reason}")

    # Aggregates over shapes: geometric means of per-shape ratios; total of per-shape times.
    @property
    def timed(self) -> bool:
        return bool(self.shapes) and all(s.ms is not None for s in self.shapes)

    @property
    def ms(self) -> float | None:
        return sum(s.ms for s in self.shapes) if self.timed else None

    @property
    def speedup_vs_eager(self) -> float | None:
        if not self.timed:
            return None
        return geomean([s.eager_ms / s.ms if s.eager_ms else None for s in self.shapes])

    @property
    def speedup_vs_compile(self) -> float | None:
        if not self.timed:
            return None
        return geomean([s.compile_ms / s.ms if s.compile_ms else None for s in self.shapes])

    @property
    def speedup_vs_best_baseline(self) -> float | None:
        if not self.timed:
            return None
        return geomean(
            [s.best_baseline_ms / s.ms if s.best_baseline_ms else None for s in self.shapes]
        )

    @property
    def roofline_fraction(self) -> float | None:
        if not self.timed:
            return None
        return geomean([s.roofline_fraction for s in self.shapes])

    def summary(self) -> dict[str, Any]:
        """The compact form kept in studies, manifests and --json output."""
        return {
            "accepted": self.accepted,
            "stage": self.stage,
            "mode": self.mode,
            "dtype": self.dtype,
            "reasons": self.reasons[:5],
            "exploits": self.exploits,
            "ms": self.ms,
            "speedup_vs_eager": self.speedup_vs_eager,
            "speedup_vs_compile": self.speedup_vs_compile,
            "speedup_vs_best_baseline": self.speedup_vs_best_baseline,
            "roofline_fraction": self.roofline_fraction,
            "device": self.device,
            "copy_gbps": self.copy_gbps,
            "timer": self.timer,
            "shapes": [
                {
                    "shape": s.shape, "correct": s.correct, "ms": s.ms, "spread_ms": s.spread_ms,
                    "eager_ms": s.eager_ms, "compile_ms": s.compile_ms, "gbps": s.gbps,
                    "roofline_fraction": s.roofline_fraction, "host_us": s.host_us,
                    "eager_host_us": s.eager_host_us,
                    "max_rel_l2_err": max((c.rel_l2_err for c in s.comparisons), default=None),
                }
                for s in self.shapes
            ],
        }

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(
            ms=self.ms, speedup_vs_eager=self.speedup_vs_eager,
            speedup_vs_compile=self.speedup_vs_compile,
            speedup_vs_best_baseline=self.speedup_vs_best_baseline,
            roofline_fraction=self.roofline_fraction,
        )
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Verdict":
        shapes = []
        for s in data.get("shapes", []):
            comps = [
                Comparison(**{**c, "mismatches": [Mismatch(**m) for m in c["mismatches"]]})
                for c in s.get("comparisons", [])
            ]
            fields = {k: v for k, v in s.items() if k in ShapeResult.__dataclass_fields__}
            shapes.append(ShapeResult(**{**fields, "comparisons": comps}))
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**{**fields, "shapes": shapes})

    @classmethod
    def failure(cls, stage: str, mode: str, dtype: str, reason: str) -> "Verdict":
        """A verdict for a candidate that never reached judgement: it crashed or timed out."""
        verdict = cls(accepted=False, stage=stage, mode=mode, dtype=dtype)
        verdict.reject(stage if stage in ("crash", "timeout") else "error", reason)
        return verdict
