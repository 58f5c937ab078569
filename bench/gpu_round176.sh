#!/usr/bin/env bash
# GPU round 176 (H100): a two-kernel row-norm call keeps a recipe of its norm launch by the call's
# signature (`_NORM_RECIPES`: a repeat skips the views, checks and unit arithmetic and launches
# through the compiled kernel's own launcher; 20 -> 11 us of launcher Python a call on the CPU
# machine, kernels stubbed). The row norm's GPU tests, then host time a call
# (bench/host_overhead.py --composed; round 175: 88-171 us against eager's 40-58) and linear +
# LayerNorm composed again (bench/compose.py, 16 trials; round 174: 0.444x eager at
# 1000x1024->3000 by the verifier's timer, host-bound).
# Outcome (bench/results/host-overhead-h100-composed.json, runs/compose-h100-round176-linear-layer-
# norm.json, runs/gpu-tests-gemm-norm-h100-round176.txt): 4 GPU tests passed; host us a call 103
# (DEFAULT, descriptors), 44.5 (pointers), 46.1 (with the companions) against 130, 88 and 171 in
# round 175; composed linear + LayerNorm 0.994x eager at 1000x1024->3000 (25.2 us against 25.1),
# 1.022x at 8192x4096->4096.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round176
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 170 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py -k "layer_norm" \
    > "$OUT/gpu-tests-gemm-norm.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-gemm-norm.txt"
timeout 120 python3 bench/host_overhead.py --composed > "$OUT/host-overhead.txt" 2>&1
echo "host exit $?"
cp bench/results/host-overhead-*-composed.json "$OUT/" 2>/dev/null
grep "host us/call" "$OUT/host-overhead.txt"
timeout 280 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
exit 0
