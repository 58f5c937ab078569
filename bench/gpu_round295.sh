#!/usr/bin/env bash
# GPU round 295 (H100): bench/linear_skinny.py after the linear entries 1.6.0/1.7.0 (round 293,
# SKINNY_NARROW's 32x32 tiles for 17-32 rows): ops.linear at 1-128 rows (24 rows added) in both
# 16-bit dtypes against the 1.5.0 entries (the 64x64 tiles at 17-32 rows), eager, torch.compile
# and cuBLAS.
# Outcome (2026-11-25): bench/results/linear-skinny-h100.json: none wrong, every call served
# by the entry; over 84 rows 1.018x the 1.5.0 entries, 1.064x eager, 1.109x torch.compile. At 24
# and 32 rows of 4096->4096 18.2-18.6 us against 1.5.0's 21.0-22.0 and eager's 19.3-20.0 (now
# ahead of eager); at 24-32 x 1000->3000 10.4-10.8 against 10.7-11.5. Behind eager: 100 rows
# of 4096->4096 (0.97-1.00x) and GELU at 64-128 rows of 1000->3000 (0.95-0.99x).
# runs/linear-skinny-h100-round295-not-kept.json (its entries were not committed).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 bench/linear_skinny.py --previous 1.5.0 --out "$OUT" 2>&1 | grep -v -i "warn" \
    | tail -100
exit 0
