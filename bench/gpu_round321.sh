#!/usr/bin/env bash
# GPU round 321 (H100): issue #5's composed Linear+bias+activation tasks with the gemm template's
# cooperative warp-specialized start (ws_coop, the fourth start, round 320): bench/compose.py on
# linear_bias_gelu and the four activations' tasks (relu, gelu_tanh, sigmoid, tanh, which the
# table never held), 4 trials each so the search reaches ws_coop, merged into compose-h100.json.
# Outcome (2026-11-25): every winner ws_coop (trial 3); every row ahead of eager: gelu(linear)
# 1.030x and 1.032x at its large shapes (round 185: 1.001x, 0.996x), 3.23x at 4099x1000->3073;
# relu, gelu_tanh, sigmoid, tanh 1.045-1.113x at 4x2048x4096->4096, 1.21-1.23x at 16 rows.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round321
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/c321 && cp bench/results/compose-h100.json /tmp/c321/
timeout 540 python3 bench/compose.py --merge --trials 4 --budget 100 --out /tmp/c321 \
    --tasks linear_bias_gelu,linear_bias_relu,linear_bias_gelu_tanh,linear_bias_sigmoid,linear_bias_tanh \
    2>&1 | grep -v -i -E "warn|token auth|logging.cc" | tail -16
echo "after $(( $(date +%s) - start )) s"
cp /tmp/c321/compose-h100.json "$OUT/compose-h100.json"
exit 0
