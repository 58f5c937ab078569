#!/usr/bin/env bash
# GPU round 8: odd GEMM rows routed to descriptor loads under every config (the GEMM GPU tests
# and the odd-size bench), and attention's polynomial share of the softmax exponentials (a
# poly_exp2 knob, 0/2/4/8, timed together, interleaved, beside SDPA and FlexAttention, and its GPU
# tests; the knob lost everywhere and was taken out of the template again).
# Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py \
    tests/test_attention.py 2>&1 | tee "$OUT/gpu-tests-round8.txt" | tail -3
timeout 90 python3 bench/gemm_odd.py "$OUT" 2>&1 | grep -v -i warn | tail -6
timeout 300 python3 bench/attention.py --out "$OUT" \
    --variants '[{"poly_exp2": 0}, {"poly_exp2": 2}, {"poly_exp2": 4}, {"poly_exp2": 8}]' \
    2>&1 | grep -v -i warn | tail -22
ls "$OUT"
