#!/usr/bin/env bash
# GPU round 241 (H100): bench/probe_gluon_gemm.py, a warp-specialized Gluon GEMM (two consumer
# warp groups on their own 128x128 tiles, one TMA producer warp) against eager, cuBLAS's
# F.linear, and the gemm template's fused gelu(linear) at the composed table's two large shapes.
# Outcome: (filled in after the run)
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round241
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/probe241
timeout 90 python3 bench/probe_gluon_gemm.py --smoke 2>&1 | grep -v -i warn | tail -30
smoke=${PIPESTATUS[0]}
echo "smoke: exit $smoke after $(( $(date +%s) - start )) s"
[ "$smoke" = 0 ] || exit 0
timeout 420 python3 bench/probe_gluon_gemm.py --out /tmp/probe241 2>&1 | grep -v -i warn | tail -60
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe241/*.json "$OUT/" 2>/dev/null
exit 0
