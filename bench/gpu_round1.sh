#!/usr/bin/env bash
# GPU round 1: tune the norm and softmax families in bfloat16, promote into kernel_zoo/entries,
# benchmark them; everything the call returns goes to $OUT.
set -uo pipefail
export KZOO_HOME=/tmp/kz PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 bench/tune_memory_bound.py --tasks "${TASKS:-rms_norm,layer_norm,add_rms_norm,softmax,log_softmax}" \
    --dtypes bfloat16 --trials "${TRIALS:-12}" --budget "${BUDGET:-40}" --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v "^\s*$" | tail -30
timeout 200 python3 bench/memory_bound.py --ops "${OPS:-rms_norm,layer_norm,add_rms_norm,softmax,log_softmax}" --dtypes bfloat16 --out "$OUT" 2>&1 | tail -40
tar czf "$OUT/entries.tgz" kernel_zoo/entries
