#!/usr/bin/env bash
# GPU round 160 (H100): linear + LayerNorm composed again with a longer search (bench/compose.py,
# 16 trials where round 105 ran 3, --profile), and the GEMM table again (bench/gemm.py with
# bench/gemm-configs.json, the default timer and graph replays): its skinny row dates from round
# 98, before round 140's SKINNY_DEFAULT.
# Outcome (runs/compose-h100-round160-linear-layer-norm.json, bench/results/gemm-h100.json,
# gemm-h100-graphs.json): linear + LayerNorm 1.02x eager at 8192x4096->4096, 0.983x at
# 1000x1024->3000. GEMM: 128x4096x4096 0.979x cuBLAS (graphs 0.993x), 16x8192x8192 0.999x
# (1.004x), the large cases 0.983-1.014x, gelu(linear) 1.008x eager.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round160
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -8
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
exit 0
