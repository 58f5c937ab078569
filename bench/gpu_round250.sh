#!/usr/bin/env bash
# GPU round 250 (H100): tests/test_gemm_ws.py's gelu_tanh cases after round 249's fix (the test
# called F.gelu(y, "tanh"), whose approximate is keyword-only), then bench/probe_gluon_gemm.py
# --timers: eager, the template's DEFAULT and its ws_pingpong path, and the probe's kernel, each
# timed as graph replays and by the verifier's host_ahead timer in one run. Round 249's composed
# search timed the ws path level with eager (0.992x, 1.005x) where graph replays had it at
# 1.05-1.09x in rounds 243-245.
# Outcome (2026-11-24, runs/probe-gluon-gemm-timers-h100-round250.json): gelu_tanh 2 passed.
# Graph replays: template ws path 1.055x and 1.044x eager (DEFAULT 1.003x, 0.994x). The
# verifier's host_ahead timer, same run, same callables: 1.016x and 1.003x (DEFAULT 0.988x,
# 0.996x); eager itself ran 8% faster under it (0.819 against 0.887 ms).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py -k gelu_tanh 2>&1 \
    | grep -E "passed|failed|Error" | head -4
mkdir -p /tmp/probe250
timeout 400 python3 bench/probe_gluon_gemm.py --timers --out /tmp/probe250 2>&1 \
    | grep -v -i warn | tail -12
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/probe250/*.json "$OUT/" 2>/dev/null
exit 0
