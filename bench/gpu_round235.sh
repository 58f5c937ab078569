#!/usr/bin/env bash
# GPU round 235 (H100): bench/probe_glu.py, the zoo's SwiGLU and GeGLU kernels against
# torch.compile's and against probe kernels that differ from torch.compile's one thing at a time.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round235
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/probe_glu.py 2>&1 | grep -v -i warn | tail -45
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp bench/results/probe-glu-*.json "$OUT/" 2>/dev/null
exit 0
