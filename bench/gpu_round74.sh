#!/usr/bin/env bash
# GPU round 74: (1) bench/probe_read_bandwidth.py: is there room above torch.compile for the plain
# reductions (a flat-read ceiling beside eager, compile and the reduce template's configs), and
# what the verifier's write flush adds to each timed call; (2) the fused bias + GELU GEMM against
# torch.compile(mode="max-autotune"), #4's second bar for it, never timed so far: the default
# timer, then CUDA-graph replays.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 200 python3 bench/probe_read_bandwidth.py 2>&1 | grep -v -i warn
cp bench/results/runs/read-bandwidth-*.json "$OUT/" 2>/dev/null
mkdir -p /tmp/g74
C=linear_bias_gelu_8192x8192x4096
timeout 330 python3 bench/gemm.py --cases $C --config-json bench/gemm-configs.json --max-autotune \
    --max-autotune-cases $C --out /tmp/g74 2>&1 | grep -v -i -E "warn|autotune_process|SingleProcess" | tail -12
timeout 150 python3 bench/gemm.py --cases $C --config-json bench/gemm-configs.json --max-autotune \
    --max-autotune-cases $C --graphs --out /tmp/g74 2>&1 | grep -v -i -E "warn|autotune_process|SingleProcess" | tail -6
cp /tmp/g74/*.json "$OUT/" 2>/dev/null
exit 0
