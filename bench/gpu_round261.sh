#!/usr/bin/env bash
# GPU round 261 (H100): the ws attention path with recorded launches (ws_call) and unspecialized
# lengths (one build for every shape): its GPU tests (round 260's ran past 250 s compiling each
# length's specialization), then bench/probe_attention_shapes.py at the tasks' small shapes, the
# ws path forced, with host time a call.
# Outcome (2026-11-25): 6 passed in 78 s; the probe: host time a call 50-58 us (tl 51-59), the ws
# path ahead of the tl kernel at 777/2049 (1.08x SDPA against 0.80x), 16x32x512x64 (0.74x against
# 0.69x), causal 1000 (0.80x against 0.74x) and relative position 1000 (1.33x FlexAttention
# against 1.16x); the first shape, 4x16x1000x64, read with every callable's host time 2-3x the
# others' (left out). bench/results/probe-attention-shapes-h100.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 230 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=8 \
    tests/test_attention_ws.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert|s call" "$OUT/pytest.txt" | tail -20
timeout 200 python3 bench/probe_attention_shapes.py "$OUT" 2>&1 | grep -v -i warn | tail -8
exit 0
