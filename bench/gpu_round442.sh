#!/usr/bin/env bash
# GPU round 442 (H200; 2026-11-29): the calls of 33-63 rows, which bench/linear_skinny.py's row
# counts skip and no tile row of SKINNY_DEFAULT's covers whole (SKINNY_POINTER's at 4096 columns,
# SKINNY_WIDE's at 14336): those tiles beside the swapped 32-row tiles shifted (two tile rows, the
# second moved back in bounds) and SKINNY_WIDER, against cuBLAS (bench/gemm.py --configs --graphs
# with bench/gemm-skinny-33-63-candidates.json). Evidence for the next tuning; nothing promoted.
#     device run, no carry:  bash bench/gpu_round442.sh
# Outcome (21 s; runs/gemm-configs-h200-graphs-round442-skinny-33-63.json, all 24 candidates
# correct): the tiles these calls are served (SKINNY_POINTER at 4096 columns, SKINNY_WIDE at
# 14336) are level with cuBLAS or ahead: 16.6 / 15.0 us at 40 / 48 x 4096->4096 (cuBLAS 16.6 /
# 16.9), 32.6 / 32.9 at 48 / 56 x 4096->14336 (33.0 / 33.2). Swapped 32x64 tiles, shifted (two
# tile rows), were faster at 4096 columns, 14.1 and 14.3 us, and slower at 14336 (44.0-44.1:
# 3.4 waves); not taken into the template this session (no device time left to re-render).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round442
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round442
mkdir -p $R
cases=skinny_40x4096x4096,skinny_48x4096x4096,skinny_48x14336x4096,skinny_56x14336x4096
timeout 150 python3 bench/gemm.py --configs --graphs --cases $cases \
    --candidates bench/gemm-skinny-33-63-candidates.json --out $R 2>&1 | grep -v -i warn \
    | grep -v "^  " | tail -20
echo "configs after $(( $(date +%s) - start )) s"
exit 0
