#!/usr/bin/env bash
# GPU round 349 (H200; written 2026-11-28): round 348's bench/probe_bench_order.py found identical
# callables 12-18% apart in rotated rounds as in fixed ones, each keeping its place in the
# ranking: not their place in the round, something of each callable's own. The probe now also
# times one captured graph under two names and four separate captures of one callable.
#     device run, no carry:  bash bench/gpu_round349.sh
# Outcome (13 s; runs/probe-bench-order-h200-round349.json): one capture under two names, the
# second right after the first: matmul 721.7 and 721.3 us, softmax 623.1 (after the GEMM blocks)
# and 569.6; four captures of the matmul 721.7-836.8, the later in a row of GEMM blocks the
# slower. What ran before a block set its time, not the callable nor its capture: in blocks the
# GPU's clocks at its power limit follow the work before.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 bench/probe_bench_order.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
