#!/usr/bin/env bash
# GPU round 299 (H100): the two slow spots of round 298, taken apart. (1) Which of K = 1000 and
# N = 3000 costs the 64x64 tiles 1.1 us at 64 rows (64 x 1024->3000 and 64 x 1000->3072 beside
# round 298's 64 x 1000->3000 and 64 x 1024->3072). (2) Whether the slow 96 and 100 rows of
# 4096 -> 4096 (a last tile row of 32-36 rows of 64) are the descriptor loads' out-of-bounds
# rows: 64x64 tiles through descriptors (the default; and ordered by columns, GROUP_M 1) against
# pointer loads (K steps of 128 six deep, of 64 eight deep), with 128 rows as the control
# (bench/gemm-skinny-tail-candidates.json).
# Outcome (2026-11-25): (1) K = 1000 is the cost: 64 x 1000->3072 9.7 us against cuBLAS's 8.7,
# 64 x 1024->3000 8.8 against 8.8 (64 x 1024->3072 8.5 against 8.8). (2) The descriptor loads
# are: at 96 and 100 rows of 4096 -> 4096 pointer loads took 17.5 us (cuBLAS 17.5) against the
# descriptors' 20.5 and 19.9, while at 112 and 128 rows the descriptors stayed ahead (17.4 and
# 17.2 against 17.6 and 17.5). Column order (GROUP_M 1) was slower everywhere at 4096 (20.1-23.6).
# runs/gemm-configs-h100-skinny-tail-graphs-round299.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/gemm.py --configs --graphs \
    --cases skinny_64x3000x1000,skinny_64x3072x1024,skinny_64x3000x1024,skinny_64x3072x1000,skinny_96x4096x4096,skinny_100x4096x4096,skinny_112x4096x4096,skinny_128x4096x4096 \
    --candidates bench/gemm-skinny-tail-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -70
exit 0
