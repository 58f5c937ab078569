#!/usr/bin/env bash
# GPU round 304 (H100): what in K = 1000 costs the skinny tiles 1 us (round 299: 64 x 1000->3072
# 9.7 us against cuBLAS's 8.7; 64 x 1024->3072 8.5 against 8.8). SKINNY_DEFAULT
# (bench/gemm-skinny-default-candidates.json) at 64 x K -> 3072 for K = 1000 (rows of 2000
# bytes, not 16-element aligned, a last K step of 104), 1008 (16-element rows of 2016 bytes, a
# last step of 112), 1024, 1040 (2080-byte rows, a last step of 16), 1088 (rows of 17 x 128
# bytes, a last step of 64) and 1096 (not 16-element aligned, a last step of 72).
# Outcome (2026-11-25): the cost follows K off 16 elements: K = 1000 and 1096 took 9.2 and 10.2
# us against cuBLAS's 8.1 and 9.1; K = 1008, 1024, 1040 and 1088 took 8.7, 8.4, 9.1 and 8.8
# against 8.8, 8.7, 8.9 and 8.9. ops.matmul now runs torch.matmul for a K off 16 elements
# (kernel_zoo/_ops_gemm.py, K_ALIGNMENT). runs/gemm-configs-h100-skinny-k-graphs-round304.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --graphs \
    --cases skinny_64x3072x1000,skinny_64x3072x1008,skinny_64x3072x1024,skinny_64x3072x1040,skinny_64x3072x1088,skinny_64x3072x1096 \
    --candidates bench/gemm-skinny-default-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -30
exit 0
