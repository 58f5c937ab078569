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
    g = got.detach().to("cpu", torch.float64)
    r = ref64.detach().to("cpu", torch.float64)
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

    finite_g = torch.where(finite & torch.isfinite(g), g, r)
    rel_l2 = _rel_l2(torch.where(finite, finite_g - r, torch.zeros_like(r)), torch.where(finite, r, 0))
    bound = tol["rel_l2"]
    if same_dtype is not None:
        s = same_dtype.detach().to("cpu", torch.float64)
        s_diff = torch.where(finite & torch.isfinite(s), s - r, torch.zeros_like(r))
        bound = max(bound, SAME_DTYPE_FACTOR * _rel_l2(s_diff, torch.where(finite, r, 0)))

    rel = abs_err / r.abs().clamp_min(1e-30)
    mismatches = []
    for flat in torch.nonzero(bad.flatten()).flatten()[:MAX_REPORTED].tolist():
        idx = list(torch.unravel_index(torch.tensor(flat), r.shape)) if r.dim() else []
        gv, rv = g.flatten()[flat].item(), r.flatten()[flat].item()
        kind = "nan" if nan_bad.flatten()[flat] else ("inf" if inf_bad.flatten()[flat] else "value")
        mismatches.append(Mismatch([int(i) for i in idx], gv, rv, abs(gv - rv), kind))
    n_bad = int(bad.sum().item())
    return Comparison(
        ok=n_bad == 0 and rel_l2 <= bound,
        max_abs_err=float(abs_err[finite].max().item()) if finite.any() else 0.0,
        max_rel_err=float(rel[finite].max().item()) if finite.any() else 0.0,
        rel_l2_err=rel_l2,
        rel_l2_bound=bound,
        n_bad=n_bad,
        n_nan=int(nan_bad.sum().item()),
        numel=r.numel(),
        mismatches=mismatches,
    )


def _compare_exact(got: torch.Tensor, ref: torch.Tensor) -> Comparison:
    """Integer and boolean outputs (argmax, masks) must match exactly."""
    g, r = got.detach().cpu(), ref.detach().cpu().to(got.dtype)
    bad = g != r
    mismatches = []
    for flat in torch.nonzero(bad.flatten()).flatten()[:MAX_REPORTED].tolist():
        idx = list(torch.unravel_index(torch.tensor(flat), r.shape)) if r.dim() else []
        gv, rv = float(g.flatten()[flat].item()), float(r.flatten()[flat].item())
        mismatches.append(Mismatch([int(i) for i in idx], gv, rv, abs(gv - rv), "value"))
    n_bad = int(bad.sum().item())
    return Comparison(
        ok=n_bad == 0, max_abs_err=float(mismatches[0].abs_err) if mismatches else 0.0,
        max_rel_err=0.0, rel_l2_err=0.0, rel_l2_bound=0.0, n_bad=n_bad, n_nan=0,
        numel=r.numel(), mismatches=mismatches,
    )
