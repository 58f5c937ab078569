#!/usr/bin/env bash
# GPU round 3: the LLM loopback flow and the prepare-stage cache test on the GPU; the norm family
# tuned and promoted, then benchmarked; the prepare stage on and off. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
KZOO_HOME=/tmp/kz5 KZOO_LLM_RESULT=$OUT/llm-loopback-h100.json timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/test_llm.py tests/test_pipeline.py 2>&1 | tee "$OUT/gpu-tests-round3.txt" | grep -v "^\s*$" | tail -6
KZOO_HOME=/tmp/kz6 timeout 170 python3 bench/tune_memory_bound.py --tasks rms_norm,add_rms_norm,layer_norm \
    --dtypes bfloat16 --trials 8 --budget 30 --timeout 60 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v "^\s*$" | grep -v Token | tail -8
tar czf "$OUT/entries.tgz" kernel_zoo/entries
KZOO_HOME=/tmp/kz7 timeout 60 python3 bench/memory_bound.py --ops rms_norm,add_rms_norm,layer_norm --dtypes bfloat16 --out "$OUT" 2>&1 | tail -4
KZOO_HOME=/tmp/kz8 timeout 150 python3 bench/pipeline.py --budget 55 --out "$OUT" 2>&1 | grep -v Token | tail -8
ls "$OUT"
