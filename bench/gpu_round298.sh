#!/usr/bin/env bash
# GPU round 298 (H100): where ops.matmul trails cuBLAS (round 297, bench/linear_skinny.py
# --matmul): 16-128 rows of a 1000 -> 3000 weight (0.80-0.90x; a latency-bound GEMM of 8 K steps
# of 128) and 100 rows of 4096 -> 4096 (19.5 us against 17.2, while 64 and 128 rows, the same
# 64x64 tiles and grid, take 16.8-16.9). Eight tiles by graph replays
# (bench/gemm-skinny-latency-candidates.json): 64x64 (the default), K steps of 64 eight and
# twelve deep, 32x32, 64x32, and tiles of 128 rows (one tile row for 65-128 rows: 128x32 and
# 128x64) at 16, 64 and 128 x 1000->3000, 64 x 1024->3072 (K and N whole tiles), and 96, 100
# and 112 x 4096->4096.
# Outcome (2026-11-25): no tile beat the 64x64 default anywhere but at the aligned 64 x
# 1024->3072, where 64x32 took 8.3 us (64x64 8.4, cuBLAS 8.7: both ahead). At 1000 -> 3000
# 64x64 took 9.6, 9.5, 10.9 us at 16, 64, 128 rows (cuBLAS 8.7, 9.0, 9.3): the unaligned K and
# N cost it 1.1 us at 64 rows against the aligned shape, cuBLAS 0.3. At 4096 -> 4096 64x64 took
# 19.1 and 19.9 us at 96 and 100 rows but 17.2 at 112 (cuBLAS 17.4 at all three): the last tile
# row's 32-36 rows of 64 are slow where 48 are not (as 32 rows against 48 in round 288). K
# steps of 64 lost or tied; 128-row tiles at six stages do not fit shared memory (the
# constraint), 128x32x64 eight deep took 13.6-25.9. Nothing changed.
# runs/gemm-configs-h100-skinny-latency-graphs-round298.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/gemm.py --configs --graphs \
    --cases skinny_16x3000x1000,skinny_64x3000x1000,skinny_128x3000x1000,skinny_64x3072x1024,skinny_96x4096x4096,skinny_100x4096x4096,skinny_112x4096x4096 \
    --candidates bench/gemm-skinny-latency-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -90
exit 0
