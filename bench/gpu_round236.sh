#!/usr/bin/env bash
# GPU round 236 (H100): bench/probe_glu.py again with torch.compile's kernel at six more launch
# shapes and the launch configs torch.compile's autotuner chose, recorded.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round236
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/probe_glu.py 2>&1 | grep -v -i warn | tail -80
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp bench/results/probe-glu-*.json "$OUT/" 2>/dev/null
exit 0
