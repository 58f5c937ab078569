#!/usr/bin/env bash
# GPU round 245 (H100): bench/probe_gluon_gemm.py again: its tile order (GROUP_M 2, 4, 8) and
# its register split (232/232/40 against 240/240/24 for the two consumers and the producer),
# beside eager, cuBLAS and the template.
# Outcome (2026-11-24, bench/results/probe-gluon-gemm-h100.json): every kernel right. GROUP_M 8
# and 232/232/40 (the defaults) stay the fastest. 8192x4096->8192: eager 0.878 ms, the template's
# fused kernel 0.883 (0.994x), the Gluon kernel 0.830 (1.058x; GROUP_M 4 0.890, GROUP_M 2 1.035,
# 240/240/24 0.877), its bare GEMM 0.820 against cuBLAS's 0.745. 4096x4096->14336: eager 0.783,
# template 0.781 (1.003x), Gluon 0.724 (1.081x), bare 0.710 against 0.675.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 bench/probe_gluon_gemm.py --smoke 2>&1 | grep -v -i warn | tail -24
smoke=${PIPESTATUS[0]}
echo "smoke: exit $smoke after $(( $(date +%s) - start )) s"
[ "$smoke" = 0 ] || exit 0
mkdir -p /tmp/probe245
timeout 420 python3 bench/probe_gluon_gemm.py --out /tmp/probe245 2>&1 | grep -v -i warn | tail -20
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe245/*.json "$OUT/" 2>/dev/null
exit 0
