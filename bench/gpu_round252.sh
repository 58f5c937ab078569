#!/usr/bin/env bash
# GPU round 252 (H100): the ws_pingpong path with launch recipes (ws_call: a repeat call launches
# through the compiled kernel's own launcher, skipping ws_plan and the JIT's binding):
# tests/test_gemm_ws.py on the GPU (now calling twice), then bench/probe_gluon_gemm.py --timers
# with each call's host time.
# Outcome (2026-11-24, runs/probe-gluon-gemm-timers-h100-round252.json): tests 32 passed. Host time
# a call: the ws path 79 and 71 us (the probe's JIT launch 129 and 94, DEFAULT 52-54, eager
# 50-51). Against eager, graph replays: ws 1.050x and 1.051x (DEFAULT 1.002x, 0.950x); the
# verifier's host_ahead timer: 1.023x and 1.016x (DEFAULT 0.987x, 1.004x).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | tail -6
mkdir -p /tmp/probe252
timeout 300 python3 bench/probe_gluon_gemm.py --timers --out /tmp/probe252 2>&1 \
    | grep -v -i warn | tail -8
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe252/*.json "$OUT/" 2>/dev/null
exit 0
