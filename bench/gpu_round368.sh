#!/usr/bin/env bash
# GPU round 368 (H200, 2026-11-28): #4's tables with every zoo kernel assembled by torch's ptxas
# (kernel_zoo.toolchain; before, the first kernels a run compiled were assembled by Triton's own
# ptxas and the rest, once torch.compile had run, by torch's): bench/gemm.py as graph replays,
# bench/attention.py, then bias+GELU against torch.compile's max-autotune.
#     device run, no carry:  bash bench/gpu_round368.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round368
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r368/graphs /tmp/r368/attention /tmp/r368/max-autotune
timeout 150 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --graphs \
    --out /tmp/r368/graphs 2>&1 | grep -v -i warn | tail -9
echo "gemm after $(( $(date +%s) - start )) s"; tar czf "$OUT/r368.tgz" -C /tmp r368
timeout 150 python3 bench/attention.py --out /tmp/r368/attention 2>&1 | grep -v -i warn | tail -7
echo "attention after $(( $(date +%s) - start )) s"; tar czf "$OUT/r368.tgz" -C /tmp r368
left=$(( 420 - ($(date +%s) - start) ))
case=linear_bias_gelu_8192x8192x4096
[ $left -gt 90 ] && timeout $left python3 bench/gemm.py --config-json bench/gemm-configs-h200.json \
    --graphs --cases $case --max-autotune --max-autotune-cases $case \
    --out /tmp/r368/max-autotune 2>&1 | grep -v -i warn | tail -3
echo "max-autotune after $(( $(date +%s) - start )) s"; tar czf "$OUT/r368.tgz" -C /tmp r368
exit 0
