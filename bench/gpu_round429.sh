#!/usr/bin/env bash
# GPU round 429 (H200; 2026-11-29): bench/probe_decode_splitk.py, the 16x8192x8192 bfloat16
# decode GEMM split along K in one launch with self-cleaning counters (two CTAs an SM where the
# stages allow), against cuBLAS, ops.matmul (DECODE_WIDE, 0.99x cuBLAS) and round 428's plain read
# of B (1.04x cuBLAS).
#     device run, no carry:  bash bench/gpu_round429.sh
# Outcome (15 s; runs/probe-decode-splitk-h200-round429.json): every split lost, 0.74-0.97x
# cuBLAS (35.6 us); the unsplit control 0.999x, four stages 1.005x, the read of B 1.05x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round429
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/round429"
timeout 300 python bench/probe_decode_splitk.py --out "$OUT/round429" 2>&1 | tee "$OUT/round429/probe.txt"
echo "probe rc ${PIPESTATUS[0]} at $(( $(date +%s) - start )) s"
exit 0
