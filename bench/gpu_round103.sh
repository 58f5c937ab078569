#!/usr/bin/env bash
# GPU round 103: the pointwise launcher now halves a small call's tile until every SM has a
# program (GeGLU at 16x16384 was 0.82x torch.compile with 64 programs of 4096 elements). The
# shipped geglu and swiglu kernels against today's render of the same params at their smallest
# shape (bench/host_overhead.py --rerender=...), then both searched again with `kzoo optimize`
# (bench/tune_memory_bound.py, 16 trials, 60 s), promoted when faster than eager and torch.compile.
# Outcome: at 16 rows today's render took 6.0 us against the shipped 7.2 (GeGLU) and 5.6 against
# 6.0 (SwiGLU); promoted geglu 1.2.0 (DEFAULT's params, 1.34x torch.compile) and swiglu 1.1.0 (1.07x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round103
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 python3 bench/host_overhead.py --rerender=geglu,swiglu 2>&1 | grep -v -i warn \
    | grep -v "^    " | tail -6
cp bench/results/host-overhead-*-rerender-geglu-swiglu.json "$OUT/" 2>/dev/null
timeout 400 python3 bench/tune_memory_bound.py --tasks geglu,swiglu \
    --dtypes bfloat16 --trials 16 --budget 60 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -12
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/geglu entries/swiglu
exit 0
