#!/usr/bin/env bash
# GPU round 140 (H100): the skinny GEMM's new start (SKINNY_DEFAULT: 128x32 tiles, K steps of 128,
# five deep, tensor descriptors; rounds 138-139: 18.0-18.2 us against cuBLAS's 17.5-18.1 by graph
# replays, the previous start 19.4-19.6). The GEMM GPU tests (split-K, the skinny start through the
# verifier in bfloat16, float16 and float32), then bench/gemm.py's skinny cases with
# bench/gemm-configs.json by both timers, baselines in the same run.
# Outcome (runs/gemm-h100-round140-skinny.json, runs/gemm-h100-graphs-round140-skinny.json): 6 GEMM
# GPU tests passed. 128x4096x4096: 0.981x cuBLAS by the default timer, 0.995x by graph replays
# (round 98 with the previous start: 0.921x both); 16x8192x8192 (its own config) 1.003x and 1.017x.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py 2>&1 \
    | grep -E "FAILED|ERROR|passed|failed" | tail -6
for mode in "" "--graphs"; do
    timeout 200 python3 bench/gemm.py --config-json bench/gemm-configs.json \
        --cases skinny_128x4096x4096,skinny_16x8192x8192 $mode --out "$OUT" 2>&1 \
        | grep -v -i warn | tail -4
done
exit 0
