#!/usr/bin/env bash
# GPU round 297 (H100): bench/linear_skinny.py --matmul after the matmul entries 1.2.0/1.3.0
# (round 294: 1.1.0's winners with today's skinny companions): ops.matmul at 1-128 rows against
# the 1.1.0 entry (the CTA-pair companion), torch.matmul (cuBLAS) and torch.compile, both 16-bit
# dtypes. Round 296 again, the outputs checked as the verifier checks them.
# Outcome (2026-11-25): bench/results/matmul-skinny-h100.json: none wrong, every call served;
# over 42 rows 1.151x the 1.1.0 entry (24-128 x 4096->14336: 43.6-45.3 us against 54.9-84.7;
# 24-64 x 4096->4096 16.8-17.3 against 20.0-26.7), 0.964x cuBLAS: ahead at 16 rows of 4096 and
# 24 and 128 rows of 14336, level at most 4096-wide rows, behind at 100x4096->4096 (19.5 against
# 17.2) and at 16-128 rows of 1000->3000 (9.8-11.2 against 8.2-9.4: 0.84-0.89x).
# runs/matmul-skinny-h100-round297-not-kept.json (its entries were not committed).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.1.0 \
    --out "$OUT" 2>&1 | grep -v -i "warn" | tail -60
exit 0
