"""Static checks, sandboxed execution, correctness, timing and roofline for candidate kernels."""

from verifier.verdict import Comparison, Mismatch, ShapeResult, Timing, Verdict
from verifier.worker import VerifierWorker, VerifyRequest, detect_mode, verify_in_subprocess

__all__ = [
    "Comparison", "Mismatch", "ShapeResult", "Timing", "Verdict",
    "VerifierWorker", "VerifyRequest", "detect_mode", "verify_in_subprocess",
]
