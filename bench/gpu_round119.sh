#!/usr/bin/env bash
# GPU round 119: the reductions' 4097- and 8192-wide row bucket (cols_le_16384) re-tuned on the
# metric the table reads, CUDA-graph replays (bench/tune_buckets.py --graphs), with each
# bucket's stored kernel file timed beside the candidates and a per-shape guard against it.
# Round 104's table: amax, amin 0.94x, mean 0.96x/0.98x, sum 0.99x/0.98x torch.compile there,
# while the verifier timer that chose those configs read them at parity (46-47 us at 8192x8192).
# Outcome: (filled in after the run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/tune_buckets.py --ops amax,amin,mean,sum --dtypes bfloat16 \
    --buckets cols_le_16384 --graphs --samples 4 --jobs 14 --zoo kernel_zoo/entries \
    --out "$OUT" 2>&1 | grep -v -i warn | grep -v "^  [0-9]* of" | tail -24
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/amax entries/amin entries/mean entries/sum
exit 0
