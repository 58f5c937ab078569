#!/usr/bin/env bash
# GPU round 4: attention through tensor descriptors (now the default), fp32 GEMM with its two-level
# sum, and launchers' host time after the triton.cdiv change: GPU tests of both families and their
# tasks' contract rows, then the attention, GEMM (fp32 at the config the configs run found, the
# other cases at the template's defaults), composed-kernel and host-overhead benches. Results go
# to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_attention.py tests/test_gemm.py \
    tests/test_contract.py -k "attention or sdpa or matmul or linear" 2>&1 | tee "$OUT/gpu-tests-round4.txt" | tail -4
timeout 60 python3 bench/attention.py --out "$OUT" 2>&1 | tail -6
python3 -c 'import json; print(json.dumps({"matmul_4096_fp32": json.load(open("bench/gemm-configs.json"))["matmul_4096_fp32"]}))' > /tmp/fp32.json
timeout 120 python3 bench/gemm.py --config-json /tmp/fp32.json --out "$OUT" 2>&1 | tail -10
KZOO_HOME=/tmp/kzc timeout 150 python3 bench/compose.py --tasks linear_bias_gelu,conv_relu_bias_mean --trials 4 \
    --budget 50 --out "$OUT" 2>&1 | grep -v Token | tail -12
timeout 60 python3 bench/host_overhead.py 2>&1 | grep "host us"; cp bench/results/host-overhead-*.json "$OUT"/
ls "$OUT"
