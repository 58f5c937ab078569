#!/usr/bin/env bash
# GPU round 324 (H100): (1) Linear + LayerNorm through the warp-specialized kernel (ws_pingpong
# and ws_coop now serve a row norm run as a second kernel: the Gluon kernel writes y, the
# row-norm kernel normalizes it in place): test_gemm_ws's GPU test of it and test_gemm's row-norm
# GPU tests; (2) bench/compose.py on linear_layer_norm (4 trials) and, on today's code, the
# convolution+tail tasks and LayerNorm+GELU (3 trials each, as round 185), merged into
# compose-h100.json (rounds 321-322's Linear rows stay).
# Outcome (2026-11-25): 8 passed (runs/gpu-tests-h100-ws-row-norm-round324.txt); linear_layer_norm
# 1.039x eager at 8192x4096->4096 (ws_coop, trial 3), 1.052x at 1000x1024->3000; the conv rows
# within 0.5% of round 185 but conv_groupnorm_swish (1.408x against 1.500x), LayerNorm + GELU 1.61x
# and 1.46x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round324
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm_ws.py tests/test_gemm.py \
    -k "layer_norm or norm" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
mkdir -p /tmp/c324 && cp bench/results/compose-h100.json /tmp/c324/
timeout 120 python3 bench/compose.py --merge --trials 4 --budget 80 --out /tmp/c324 \
    --tasks linear_layer_norm 2>&1 | grep -v -i -E "warn|token auth|logging.cc" | tail -4
cp /tmp/c324/compose-h100.json "$OUT/compose-h100.json"
echo "after $(( $(date +%s) - start )) s"
timeout 330 python3 bench/compose.py --merge --trials 3 --budget 45 --out /tmp/c324 \
    --tasks conv_relu_bias_mean,conv_bn_relu,conv_groupnorm_swish,conv_pool_sigmoid_sum,conv_transpose_tanh_mean,conv_gelu_channel_sum,layer_norm_gelu \
    2>&1 | grep -v -i -E "warn|token auth|logging.cc" | tail -12
cp /tmp/c324/compose-h100.json "$OUT/compose-h100.json"
echo "after $(( $(date +%s) - start )) s"
exit 0
