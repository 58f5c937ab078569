#!/usr/bin/env bash
# GPU round 437 (H200; 2026-11-29): the skinny rows ops.matmul still trails cuBLAS on after round
# 436 (bench/results/runs/matmul-skinny-h200-round436.json): 100 rows of 4096 -> 4096 and
# 4096 -> 14336, where the last 64- or 128-row tile row runs partly past the rows (at
# 100x4096->4096 64x64 descriptor tiles took 19.0 us in round 435, and the same tiles 14.5 at
# 128 rows), and 1-16 rows of 4096 -> 14336, where the decode tiles take 1.7 waves. Candidates
# (bench/gemm-shift-tail-candidates.json): the skinny tiles with and without shift_tail (the last
# tile row moved back to end at row M), 64x256 tiles (one wave at 14336 columns), and swapped
# 16x128 decode tiles (one wave there) beside DECODE_WIDE and SKINNY_NARROW_WIDE; the 128-row
# and 16x8192x8192 cases are controls. bench/gemm.py --configs --graphs. Nothing is promoted.
#     device run, no carry:  bash bench/gpu_round437.sh
# Outcome (69 s; runs/gemm-configs-h200-graphs-round437-shift-tail.json, all 156 candidates
# correct): shift_tail took 64x64 descriptor tiles from 21.9 / 19.3 / 19.0 / 15.3 us to 14.6 /
# 15.0 / 14.7 / 14.8 at 80 / 96 / 100 / 112 rows of 4096->4096 (cuBLAS 18.4 / 18.8 / 15.6 / 18.3;
# 128 rows 14.7 against 14.8 unshifted), silu(linear) at 100 rows from 20.3 to 16.3 (cuBLAS's
# bare GEMM 15.7, eager 18.6). At 100x4096->14336 64x256 tiles, shifted, took 36.4 against
# 128x128's 39.3 (cuBLAS 34.4); at 128 rows 36.6 against 36.5 (34.3). Swapped 16x128 tiles (one
# wave at 14336 columns) took 31.6 at 1 and 16 rows of 4096->14336 (DECODE_WIDE 34.9 and 33.6,
# cuBLAS 34.5 and 32.8) and lost at 16x8192x8192 (37.5 against 35.2: half a wave).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round437
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round437
mkdir -p $R
cases=skinny_80x4096x4096,skinny_96x4096x4096,skinny_100x4096x4096,skinny_112x4096x4096
cases=$cases,skinny_128x4096x4096,skinny_100x14336x4096,skinny_128x14336x4096
cases=$cases,skinny_1x14336x4096,skinny_16x14336x4096,skinny_16x8192x8192
cases=$cases,linear_bias_silu_100x4096x4096,linear_bias_silu_100x14336x4096
timeout 450 python3 bench/gemm.py --configs --graphs --cases $cases \
    --candidates bench/gemm-shift-tail-candidates.json --out $R 2>&1 | grep -v -i warn | tail -60
echo "configs after $(( $(date +%s) - start )) s"
exit 0
