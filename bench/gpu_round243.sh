#!/usr/bin/env bash
# GPU round 243 (H100): round 242's cases again with the consumers' turn barrier, then
# bench/probe_gluon_gemm.py's smoke shapes and its timed run (round 241's plan).
# Outcome (2026-11-24): every case and smoke shape right (rel. error 1.66e-3, eager's 2.42e-3).
# Timed (graph replays, L2 flushed): 8192x4096->8192 eager 0.892 ms, the Gluon kernel 0.843
# (1.059x eager; 5 stages 0.853, GROUP_M 16 0.871), its bare GEMM + bias 0.820 against cuBLAS's
# F.linear 0.762; 4096x4096->14336 eager 0.805, Gluon 0.748 (1.076x), bare 0.739 against 0.684.
# The run's "zoo_fused" column was eager again (no linear entry ships: kernel_zoo.ops.linear fell
# back), so round 244 times the template's fused kernel itself.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
for c in 1024,1024,1024,4 1024,1024,1024,32 1000,1024,3000,96 1000,1024,3000,132,5; do
    timeout 60 python3 bench/probe_gluon_gemm.py --case $c 2>&1 | grep -E "^case|Error" | head -2
done
timeout 90 python3 bench/probe_gluon_gemm.py --smoke 2>&1 | grep -v -i warn | tail -14
smoke=${PIPESTATUS[0]}
echo "smoke: exit $smoke after $(( $(date +%s) - start )) s"
[ "$smoke" = 0 ] || exit 0
mkdir -p /tmp/probe243
timeout 400 python3 bench/probe_gluon_gemm.py --out /tmp/probe243 2>&1 | grep -v -i warn | tail -20
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe243/*.json "$OUT/" 2>/dev/null
exit 0
