#!/usr/bin/env bash
# GPU round 253 (H100): round 252 again with the recorded launch's descriptors built without the
# descriptor's checks (_WsRecorded): tests/test_gemm_ws.py on the GPU, then
# bench/probe_gluon_gemm.py --timers with each call's host time.
# Outcome (2026-11-24, bench/results/probe-gluon-gemm-timers-h100.json): tests 32 passed. Host time
# a call: the ws path 38.7 and 38.9 us, DEFAULT 37.4 and 38.7, eager 34.8 and 43.5 (this host was
# faster than round 252's). Against eager, graph replays: ws 1.044x and 1.034x (DEFAULT 0.979x,
# 0.978x); the verifier's host_ahead timer: 1.010x and 1.021x (DEFAULT 0.992x, 1.003x).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | tail -6
mkdir -p /tmp/probe253
timeout 300 python3 bench/probe_gluon_gemm.py --timers --out /tmp/probe253 2>&1 \
    | grep -v -i warn | tail -8
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe253/*.json "$OUT/" 2>/dev/null
exit 0
