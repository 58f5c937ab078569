#!/usr/bin/env bash
# GPU round 72: why the timer and the profiler disagree on the fused gelu(linear) GEMM
# (bench/probe_timer_clocks.py: the timer, back-to-back calls, the profiler, and a sustained
# flushed loop with the SM clock and board power sampled).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
timeout 300 python3 bench/probe_timer_clocks.py 2>&1 | grep -v -i warn | tail -14
cp bench/results/runs/timer-clocks-h100.json "$OUT/" 2>/dev/null
exit 0
