#!/usr/bin/env bash
# GPU round 235 (H100): bench/probe_glu.py, the zoo's SwiGLU and GeGLU kernels against
# torch.compile's and against probe kernels that differ from torch.compile's one thing at a time.
# Outcome (2026-11-24; runs/probe-glu-h100-round235.json): torch.compile's kernel, as written,
# run at 1024 x 4 warps, was as slow as the zoo's at float32 (459 against 451 us at SwiGLU
# 8192x14336); int64 offsets, a runtime count and the template's branch changed nothing.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round235
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/probe_glu.py 2>&1 | grep -v -i warn | tail -45
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp bench/results/probe-glu-*.json "$OUT/" 2>/dev/null
exit 0
