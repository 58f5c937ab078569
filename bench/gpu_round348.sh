#!/usr/bin/env bash
# GPU round 348 (H200; written 2026-11-28): verifier.timing.bench now rotates each round's order.
# Round 347 timed one kernel 9% apart by its place in a fixed round, and every table so far ran
# its variants in one fixed order, our kernel first in bench/gemm.py's. First
# bench/probe_bench_order.py (identical GEMMs and softmaxes in a fixed order, then rotated, then
# fixed again), then #4's GEMM table again under rotated rounds with what the zoo serves the H200
# (bench/gemm-configs-h200.json: gemm-configs.json with the H200's pingpong params for bias+GELU),
# default timer and graph replays, then bench/attention.py with what time is left.
#     device run, no carry:  bash bench/gpu_round348.sh
# Outcome (98 s; run with the working tree's bench of that hour, which rotated each round's
# order (round_orders) and was replaced before any commit by round 350's interleaved calls):
# identical GEMMs 12-15% apart, identical softmaxes 10-18%, rotated as in a fixed order
# (runs/probe-bench-order-h200-round348.json). The GEMM table under it (runs/gemm-h200{,-graphs}-
# round348-rotated.json): bias+GELU 1.066x/1.077x eager; attention 1.09x/1.10x SDPA
# (runs/attention-h200-round348-rotated.json). Superseded by round 350.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round348
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/g348/default /tmp/g348/graphs /tmp/a348
timeout 120 python3 bench/probe_bench_order.py --out "$OUT" 2>&1 | grep -v -i warn
echo "order probe after $(( $(date +%s) - start )) s"
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --out /tmp/g348/default \
    2>&1 | grep -v -i warn | tail -9
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --graphs \
    --out /tmp/g348/graphs 2>&1 | grep -v -i warn | tail -9
echo "gemm after $(( $(date +%s) - start )) s"
tar czf "$OUT/gemm.tgz" -C /tmp g348
left=$(( 570 - ($(date +%s) - start) ))
[ $left -gt 60 ] && timeout $left python3 bench/attention.py --out /tmp/a348 2>&1 \
    | grep -v -i warn | tail -7
echo "attention after $(( $(date +%s) - start )) s"
tar czf "$OUT/attention.tgz" -C /tmp a348
exit 0
