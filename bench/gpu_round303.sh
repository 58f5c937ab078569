#!/usr/bin/env bash
# GPU round 303 (H100): after the linear entries 1.6.0/1.7.0 (round 301) and the matmul entries
# 1.2.0/1.3.0 (round 302), re-rendered with SKINNY_NARROW and SKINNY_POINTER:
# bench/linear_skinny.py in both 16-bit dtypes, ops.linear at 1-128 rows against the 1.5.0
# entries (round 286's companions), eager, torch.compile and cuBLAS; then --matmul alone,
# ops.matmul against its 1.1.0 entry (the CTA pair), cuBLAS and torch.compile.
# Outcome (2026-11-25): none wrong, every call served by the entries. ops.linear
# (bench/results/linear-skinny-h100.json, 84 rows): 1.021x the 1.5.0 entries, 1.067x eager,
# 1.109x torch.compile; at 17-128 rows of 4096->4096 every row ahead of eager (1.03-1.11x; 100
# rows 19.1-20.1 us against 1.5.0's 21.1-21.9 and eager's 20.5-20.8); 10 rows behind eager, by
# 0.1-3.5% but GELU float16 at 100 x 1000->3000 (0.944x). ops.matmul
# (runs/matmul-skinny-h100-round303.json, 42 rows): 1.161x the 1.1.0 entry, 0.970x cuBLAS:
# 0.97-1.16x at 4096 and 14336 columns, 0.78-0.98x at 1000->3000 (K = 1000; round 304).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 bench/linear_skinny.py --previous 1.5.0 --out "$OUT" 2>&1 | grep -v -i "warn" \
    | tail -30
timeout 200 python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.1.0 \
    --out "$OUT" 2>&1 | grep -v -i "warn" | tail -30
exit 0
