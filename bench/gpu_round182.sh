#!/usr/bin/env bash
# GPU round 182 (H100): the composed table's Linear + epilogue rows again on today's code (their
# last runs were rounds 105 and 109, before the GEMM's store units, recipes and the row norm's
# changes), 3 trials a task as then; and linear + LayerNorm's 16-trial search again, to see
# whether round 181's 1.066x at 1000x1024->3000 repeats.
# Outcome (runs/compose-h100-round182-linear.json and -linear-layer-norm.json):
# gelu(linear) 0.964x and 0.955x eager at its two large shapes (1.008x and 1.029x in round 105),
# 3.24x at 4099x1000->3073; silu(linear) 1.030x and 1.253x; linear + residual 1.102x and 2.94x;
# linear + LayerNorm 1.021x at 8192x4096->4096 and 0.738x at 1000x1024->3000 (1.066x in round
# 181): its re-timing took 34.6 us with 94 us of host time a call, eager 25.5 us with 65.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round182
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT/linear" "$OUT/lln"
timeout 300 python3 bench/compose.py --tasks linear_bias_gelu,linear_bias_silu,linear_residual \
    --trials 3 --budget 90 --out "$OUT/linear" 2>&1 | grep -v -i warn | tail -9
timeout 200 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT/lln" 2>&1 | grep -v -i warn | tail -4
exit 0
