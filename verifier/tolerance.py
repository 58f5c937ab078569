"""Tolerance is a table keyed by dtype, judged against a float64 reference.

Two checks must both hold:
- element-wise: |got - ref| <= rtol * |ref| + atol_scale * max|ref|. The absolute slack scales with the
  output's own magnitude, so a tiny absolute error on tiny values (say, all zeros for a softmax over
  32768 columns, whose values are ~3e-5) is not a pass.
- norm-wise: ||got - ref|| / ||ref|| <= max(rel_l2, K * error of PyTorch's own same-dtype op), so an op
  whose honest error is large in every implementation is not held to an impossible bar.
NaN never passes where the reference is a number; an infinity must match in sign and place.
"""

from __future__ import annotations

import torch

from verifier.verdict import Comparison, Mismatch

# rtol allows 2 ulp of the output dtype: round-to-nearest costs 1/2 ulp on the GPU, and Triton's
# interpreter truncates fp32 -> bf16/fp16 (1 ulp).
TOLERANCES: dict[str, dict[str, float]] = {
    "float32": {"rtol": 1e-4, "atol_scale": 1e-6, "rel_l2": 1e-5},
    "bfloat16": {"rtol": 1.6e-2, "atol_scale": 1e-3, "rel_l2": 1e-2},
    "float16": {"rtol": 2e-3, "atol_scale": 1e-4, "rel_l2": 2e-3},
}
SAME_DTYPE_FACTOR = 4.0  # K: how much worse than PyTorch's own same-dtype error we accept
MAX_REPORTED = 8


def tolerance_for(dtype: str, overrides: dict[str, float] | None = None) -> dict[str, float]:
    tol = dict(TOLERANCES[dtype])
    tol.update(overrides or {})
    return tol


def _rel_l2(diff: torch.Tensor, ref: torch.Tensor) -> float:
    denom = torch.linalg.vector_norm(ref).item()
    num = torch.linalg.vector_norm(diff).item()
    if denom == 0.0:
        return 0.0 if num == 0.0 else float("inf")
    return num / denom


def compare(
    got: torch.Tensor, ref64: torch.Tensor, same_dtype: torch.Tensor | None, tol: dict[str, float]
) -> Comparison:
    """Compare one output against the float64 reference; `same_dtype` is PyTorch's own result."""
    if not got.dtype.is_floating_point:
        return _compare_exact(got, ref64)
    # Judge on the reference's device: moving 10^8 float64 values to the host would dominate a trial.
    r = ref64.detach().to(torch.float64)
    g = got.detach().to(r.device, torch.float64)
    ref_nan = torch.isnan(r)
    ref_inf = torch.isinf(r)
    finite = ~(ref_nan | ref_inf)
    scale = r[finite].abs().max().item() if finite.any() else 0.0
    diff = torch.where(finite, g - r, torch.zeros_like(g))
    abs_err = diff.abs()
    allowed = tol["rtol"] * r.abs() + tol["atol_scale"] * scale

    nan_bad = torch.isnan(g) & ~ref_nan
    value_bad = finite & ~nan_bad & ~(abs_err <= allowed)  # NaN/inf in got fail this test too
    inf_bad = ref_inf & ~(g == r)
    missing_nan = ref_nan & ~torch.isnan(g)
    bad = nan_bad | value_bad | inf_bad | missing_nan

    # NaN or an infinity where the reference is a number: the error is unbounded, and every error
    # measure says so (inf) rather than being taken over the finite elements alone
    unbounded = bool((finite & ~torch.isfinite(g)).any().item())
    rel_l2 = float("inf") if unbounded else _rel_l2(diff, torch.where(finite, r, 0))
    bound = tol["rel_l2"]
    n_bad = int(bad.sum().item())
    same_bad = None
    if same_dtype is not None:
        s = same_dtype.detach().to(r.device, torch.float64)
        s_diff = torch.where(finite & torch.isfinite(s), s - r, torch.zeros_like(r))
        bound = max(bound, SAME_DTYPE_FACTOR * _rel_l2(s_diff, torch.where(finite, r, 0)))
        if n_bad:  # for the report only: it never loosens the element-wise bound
            same_bad = int((finite & ~(s_diff.abs() <= allowed)).sum().item())

    rel = abs_err / r.abs().clamp_min(1e-30)
    mismatches = _report(bad, g, r, nan_bad, inf_bad) if n_bad else []
    return Comparison(
        ok=n_bad == 0 and rel_l2 <= bound,
        max_abs_err=_max_err(abs_err, finite, unbounded),
        max_rel_err=_max_err(rel, finite, unbounded),
        rel_l2_err=rel_l2,
        rel_l2_bound=bound,
        n_bad=n_bad,
        n_nan=int(nan_bad.sum().item()),
        numel=r.numel(),
        mismatches=mismatches,
        same_dtype_bad=same_bad,
    )


def _max_err(err: torch.Tensor, finite: torch.Tensor, unbounded: bool) -> float:
    """The largest error where the reference is a number: inf where the candidate is not one
    there (a NaN would otherwise make the max NaN)."""
    if unbounded:
        return float("inf")
    return float(err[finite].max().item()) if bool(finite.any().item()) else 0.0


def _report(bad, g, r, nan_bad, inf_bad) -> list[Mismatch]:
    """The first few mismatches, each with its index, value, expected value and kind."""
    flat_idx = torch.nonzero(bad.flatten()).flatten()[:MAX_REPORTED]
    got = g.flatten()[flat_idx].tolist()
    exp = r.flatten()[flat_idx].tolist()
    nan = nan_bad.flatten()[flat_idx].tolist()
    inf = inf_bad.flatten()[flat_idx].tolist()
    out = []
    for k, flat in enumerate(flat_idx.tolist()):
        idx = [int(i) for i in torch.unravel_index(torch.tensor(flat), r.shape)] if r.dim() else []
        kind = "nan" if nan[k] else ("inf" if inf[k] else "value")
        out.append(Mismatch(idx, got[k], exp[k], abs(got[k] - exp[k]), kind))
    return out


def _compare_exact(got: torch.Tensor, ref: torch.Tensor) -> Comparison:
    """Integer and boolean outputs (argmax, masks) must match exactly."""
    r = ref.detach()
    g = got.detach().to(r.device)
    bad = g != r.to(g.dtype)
    n_bad = int(bad.sum().item())
    none = torch.zeros_like(bad)
    mismatches = _report(bad, g.double(), r.double(), none, none) if n_bad else []
    return Comparison(
        ok=n_bad == 0, max_abs_err=float(mismatches[0].abs_err) if mismatches else 0.0,
        max_rel_err=0.0, rel_l2_err=0.0, rel_l2_bound=0.0, n_bad=n_bad, n_nan=0,
        numel=r.numel(), mismatches=mismatches,
    )
