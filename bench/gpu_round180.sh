#!/usr/bin/env bash
# GPU round 180 (H100): where the host's microseconds go in a call of the composed linear +
# LayerNorm candidate (bench/probe_host_parts.py), beside the whole-call host times of
# bench/host_overhead.py --composed in the same run.
# Outcome (runs/probe-host-parts-h100-round180.json,
# runs/host-overhead-h100-composed-round180.json):
# a call 73 us (descriptors) and 61 (pointers), eager's Model 51-65 in the same run; of it the
# GEMM's recorded launch 25 (descriptors) / 17 (pointers), the row norm's 10-13, each output
# allocation 7-9, the two descriptors 6, the signature 4-6. Host timings moved by 10-15 us
# between layers measured back to back (the launch function timed above the forward that calls
# it): read them as sizes, not differences. The norm's allocation is gone since (in place).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round180
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc; cat /proc/cpuinfo | grep "model name" | head -1
mkdir -p "$OUT"
timeout 240 python3 bench/probe_host_parts.py 2>&1 | tail -40
cp bench/results/probe-host-parts-*.json "$OUT/" 2>/dev/null
timeout 240 python3 bench/host_overhead.py --composed 2>&1 | grep "host us/call"
cp bench/results/host-overhead-*-composed.json "$OUT/" 2>/dev/null
exit 0
