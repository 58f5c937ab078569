#!/usr/bin/env bash
# GPU round 306 (H100): bench/linear_skinny.py as in rounds 303 and 305, now judging a call
# served by the zoo when kernel_zoo.ops's dispatch chose the entry and its output is the
# entry's bits (bits alone passed the K = 1000 matmul calls that ran cuBLAS, round 305):
# ops.linear against the 1.5.0 entries, then ops.matmul against its 1.1.0 entry.
# Outcome (2026-11-25): none wrong. ops.linear (bench/results/linear-skinny-h100.json, 84
# rows, every call served): 1.021x the 1.5.0 entries, 1.066x eager, 1.109x torch.compile; at
# 17-128 rows of 4096 -> 4096 1.02-1.10x eager (24 and 32 rows 18.5-19.0 us against 1.5.0's
# 20.4-22.2, 100 rows 19.3-20.2 against 21.2-21.8); 10 rows behind eager, GELU at 24-32 x
# 4096->14336 (0.991-0.998x) and at 64-128 x 1000->3000 (0.956-0.992x). ops.matmul
# (bench/results/matmul-skinny-h100.json, 42 rows): 1.210x the 1.1.0 entry, 1.016x cuBLAS, each
# row 0.97x or more; the 14 rows of 1000 -> 3000 ran cuBLAS (not_served, as the dispatch says).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 bench/linear_skinny.py --previous 1.5.0 --out "$OUT" 2>&1 | grep -v -i "warn" \
    | tail -24
timeout 200 python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.1.0 \
    --out "$OUT" 2>&1 | grep -v -i "warn" | tail -24
exit 0
