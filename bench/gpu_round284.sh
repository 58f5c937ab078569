#!/usr/bin/env bash
# GPU round 284 (H100): (1) bench/linear_skinny.py in bfloat16 (round 283's run stopped where
# torch.compile's output was over eager's error bound and went untimed; now timed either way):
# ops.linear at 1-128 rows, linear entries 1.3.0 against 1.1.0, eager, torch.compile, cuBLAS;
# (2) where 1.3.0's skinny companion trailed eager in round 283 (32 rows; 14336 columns at 32-128
# rows), nine tiles by graph replays (bench/gemm-skinny-wide-candidates.json).
# Outcome (2026-11-25): none wrong, every call served by the entry. 1.3.0 against 1.1.0: 1.247x
# (geomean over 36 rows), against eager 1.022x, torch.compile 1.062x. Still behind eager: 32
# rows (20.4 against 20.2 us at 4096 wide; 50.1 against 48.8 at 14336) and 100-128 rows at 14336
# columns (71.4 and 59.7 against 50.4 and 51.1). There 128x128x128 tiles of 8 warps took 48.7 and
# 49.3 us, 64x128x128 took 46.8 at 32 rows. bench/results/runs/linear-skinny-h100-round284.json,
# runs/gemm-configs-h100-skinny-wide-graphs-round284.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/linear_skinny.py --dtypes bfloat16 --out "$OUT" 2>&1 \
    | grep -v -i "warn" | tail -45
timeout 270 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_silu_32x4096x4096,linear_bias_silu_32x14336x4096,linear_bias_silu_100x14336x4096,linear_bias_silu_128x14336x4096 \
    --candidates bench/gemm-skinny-wide-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -44
exit 0
