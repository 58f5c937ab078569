#!/usr/bin/env bash
# GPU round 165 (H100): linear + LayerNorm as one GEMM with a row-norm epilogue
# (bench/probe_gemm_norm.py): the fused single-wave kernel (a cooperative launch whose tiles meet
# in a barrier) and the two-kernel path by config, beside eager, torch.compile and the composed
# plan's kernels; then the verifier (correctness only) on three configs in every dtype.
# Outcome (runs: not kept; the zoo baseline called a missing launcher): all configs correct (verifier,
# 3 dtypes); fused 30.6-30.8 us at 1000x1024->3000 against eager 24.6: slower. 255 registers.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round165
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
tail -60 "$OUT/probe-gemm-norm.txt"
exit 0
