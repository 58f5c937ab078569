#!/usr/bin/env bash
# GPU round 236 (H100): bench/probe_glu.py again with torch.compile's kernel at six more launch
# shapes and the launch configs torch.compile's autotuner chose, recorded.
# Outcome (2026-11-24; runs/probe-glu-h100-round236.json, after two tries that failed reading
# torch.compile's autotuner): it chose 512 x 8 warps (2 float32 elements a thread) for the float32
# gated units and SwiGLU's 16 bfloat16 rows, 1024 x 4 for GeGLU bfloat16; at 4 a thread (512 x 4,
# 1024 x 8) its kernel took 456 us, at 8 459. The template could not launch fewer than 8 a thread:
# min_per_thread (round 237).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round236
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/probe_glu.py 2>&1 | grep -v -i warn | tail -80
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp bench/results/probe-glu-*.json "$OUT/" 2>/dev/null
exit 0
