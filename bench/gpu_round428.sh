#!/usr/bin/env bash
# GPU round 428 (H200; 2026-11-29): bench/probe_ceilings.py, two ceilings before building more:
# how much of the float32 one-pass softmax's time at 1024x32768 is the last wave draining (time
# against rows over whole waves of 132), and how fast a plain read of the 16x8192x8192 GEMM's
# 128 MiB weight can be against cuBLAS (ops.matmul is at 0.99x there).
#     device run, no carry:  bash bench/gpu_round428.sh
# Outcome (15 s; runs/probe-ceilings-h200-round428.json): the one-pass kernel has no last-wave
# loss: 1024 rows sit on the line through whole waves (-0.1%); its fixed part is 7.0 us against
# the copy's 3.2, and a row costs 62.7 ns against the copy's 60.3 (softmax 0.915 of a copy of
# the same bytes at 1024x32768, 71.1 against 65.1 us; the bar's yardstick is the 1 GiB copy). A
# plain read of the 128 MiB weight took 33.6 us at best (8192 programs, 8 warps), cuBLAS 34.9 and
# ops.matmul 35.4: the read ceiling is 1.04x cuBLAS.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round428
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/round428"
timeout 400 python bench/probe_ceilings.py --out "$OUT/round428" 2>&1 | tee "$OUT/round428/probe.txt"
echo "probe rc ${PIPESTATUS[0]} at $(( $(date +%s) - start )) s"
exit 0
