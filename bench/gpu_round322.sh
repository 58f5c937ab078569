#!/usr/bin/env bash
# GPU round 322 (H100): (1) the rest of issue #5's Linear+epilogue tasks in bench/compose.py
# (linear_bias_silu, linear_residual, linear_layer_norm; 4 trials, so ws_coop is tried), merged
# into round 321's compose-h100.json (copied in as bench/results/compose-h100.json); (2) the
# bfloat16 entries of linear_bias_relu, _gelu_tanh, _sigmoid and _tanh (round 307's ws_pingpong
# kernels) re-rendered with ws_coop on (`KNOBS`, as round 320), promoted where they beat the entry.
# Outcome (2026-11-25): silu 1.093x/1.242x eager, linear_residual 1.100x/2.913x, linear_layer_norm
# 1.009x/1.058x (its winner ws_pingpong's params, served by the tl kernel: a row norm was not the
# warp-specialized kernel's then); relu, gelu_tanh, sigmoid, tanh 1.2.0 promoted (1.052-1.112x eager
# at 4x2048x4096->4096, runs/optimize-linear-bias-*-bfloat16-h100-round322.json).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round322
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/c322 /tmp/rr322 && cp bench/results/compose-h100.json /tmp/c322/
timeout 250 python3 bench/compose.py --merge --trials 4 --budget 80 --out /tmp/c322 \
    --tasks linear_bias_silu,linear_residual,linear_layer_norm \
    2>&1 | grep -v -i -E "warn|token auth|logging.cc" | tail -9
cp /tmp/c322/compose-h100.json "$OUT/compose-h100.json"
echo "after $(( $(date +%s) - start )) s"
for op in linear_bias_relu linear_bias_gelu_tanh linear_bias_sigmoid linear_bias_tanh; do
    KNOBS='{"ws_coop": true}' OUT=/tmp/rr322 bash bench/rerender_entries.sh "$op bfloat16"
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_relu entries/linear_bias_gelu_tanh \
        entries/linear_bias_sigmoid entries/linear_bias_tanh
    tar czf "$OUT/rerender.tgz" -C /tmp rr322
    echo "after $(( $(date +%s) - start )) s"
done
exit 0
