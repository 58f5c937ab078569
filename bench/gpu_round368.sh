#!/usr/bin/env bash
# GPU round 368 (H200, 2026-11-28): #4's tables with every zoo kernel assembled by torch's ptxas
# (kernel_zoo.toolchain; before, the first kernels a run compiled were assembled by Triton's own
# ptxas and the rest, once torch.compile had run, by torch's): bench/gemm.py as graph replays,
# bench/attention.py, then bias+GELU against torch.compile's max-autotune.
#     device run, no carry:  bash bench/gpu_round368.sh
# Outcome (103 s; gemm-h200-graphs-round368.json, attention-h200-round368.json,
# gemm-h200-graphs-max-autotune-round368.json): the GEMM kernels took what they took in round 350 (bias+GELU 654.0 against
# 654.8 TFLOP/s, 16x8192x8192 60.4 against 59.7), while this run's baselines were faster (eager
# bias+GELU 634 against 620): 0.985x/1.013x/0.984x cuBLAS at 4096^3/8192^3/8192x4096x14336,
# 1.130x at 128x4096x4096, 0.994x at 16x8192x8192; bias+GELU 1.032x eager, 1.042x compile,
# 1.143x max-autotune. Attention 0.99x SDPA (causal 0.99x), relative position 1.33x
# FlexAttention, softcap 1.80x. (A GPU-test call after it ran past its 320 s limit with no
# summary line; nothing from it.)
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
