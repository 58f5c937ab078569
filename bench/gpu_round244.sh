#!/usr/bin/env bash
# GPU round 244 (H100): bench/probe_gluon_gemm.py with the gemm template's fused kernel (DEFAULT,
# rendered as `kzoo optimize` renders it) beside the Gluon kernel, and stores straight from the
# accumulator's registers, which leave shared memory to more or longer stages.
# Outcome (2026-11-24, bench/results/runs/probe-gluon-gemm-h100-round244.json): every kernel
# right. 8192x4096->8192: eager 0.890 ms, the template's fused kernel 0.900 (0.989x), the Gluon
# kernel 0.848 (1.049x), its bare GEMM 0.829 against cuBLAS's 0.774. 4096x4096->14336: eager
# 0.800, template 0.778 (1.028x), Gluon 0.735 (1.088x), bare 0.723 against 0.704. Stores straight
# from the registers were slower (0.91-0.95 and 0.79-0.82 ms), with or without longer stages.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 bench/probe_gluon_gemm.py --smoke 2>&1 | grep -v -i warn | tail -24
smoke=${PIPESTATUS[0]}
echo "smoke: exit $smoke after $(( $(date +%s) - start )) s"
[ "$smoke" = 0 ] || exit 0
mkdir -p /tmp/probe244
timeout 420 python3 bench/probe_gluon_gemm.py --out /tmp/probe244 2>&1 | grep -v -i warn | tail -20
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe244/*.json "$OUT/" 2>/dev/null
exit 0
