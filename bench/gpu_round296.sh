#!/usr/bin/env bash
# GPU round 296 (H100): bench/linear_skinny.py --matmul after the matmul entries 1.2.0/1.3.0
# (round 294: 1.1.0's winners with today's skinny companions): ops.matmul at 1-128 rows against
# the 1.1.0 entry (the CTA-pair companion), torch.matmul (cuBLAS) and torch.compile, both 16-bit
# dtypes.
# Outcome (2026-11-25): every row served by the entry; bf16 16x4096->4096 was flagged wrong for
# both entries (so not timed): their relative error tied eager's own (0.001652) to six digits,
# and the bench then gated on at most eager's error. It now checks as the verifier does (round
# 297 repeats this run). Over the other 41 rows 1.152x the 1.1.0 entry (24-128 rows of 4096->14336:
# 43.6-45.3 us against 55.0-86.5), 0.962x cuBLAS: behind it at 100x4096->4096 (19.6 against
# 17.3) and at 16-128 rows of 1000->3000 (9.5-11.0 against 8.4-9.4).
# runs/matmul-skinny-h100-round296-strict-check.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.1.0 \
    --out "$OUT" 2>&1 | grep -v -i "warn" | tail -60
exit 0
