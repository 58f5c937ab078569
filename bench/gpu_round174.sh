#!/usr/bin/env bash
# GPU round 174 (H100): after the GEMM store changes (C_UNIT, store_cols, _output_unit; rounds
# 170-173), the GEMM table as gemm-h100-graphs.json was made (bench/gemm.py with
# bench/gemm-configs.json, graph replays), to set beside it; then linear + LayerNorm composed
# (bench/compose.py, 16 trials, --profile) with its new plan, one gemm template with a row norm
# (round 173's probe: the two kernels 24.85 us against eager's 24.64).
# Outcome (runs/gemm-h100-graphs-round174.json, runs/compose-h100-round174-linear-layer-norm.json):
# the GEMM table's kernels as fast as in gemm-h100-graphs.json or faster (4096^3 181.1 us against
# 183.6, fp32 3.18 ms against 3.22; cuBLAS moved alike); linear +
# LayerNorm composed 1.024x eager at 8192x4096->4096 but 0.444x at 1000x1024->3000 (56.4 us
# against 25.1) with kernels of 15.4 + 5.4 us against eager's 15.8 + 9.8: host-bound.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round174
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 150 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
timeout 400 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -12
exit 0
