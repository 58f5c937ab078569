#!/usr/bin/env bash
# GPU round 260 (H100): the ws attention kernel now takes any length (a partial last key block
# masked, a partial query tile stored through a masked store): its GPU tests with odd lengths,
# then bench/probe_attention_shapes.py (the ws path forced at every task shape, beside the tl
# kernel and SDPA or FlexAttention, with host time a call) to choose its work threshold.
# Outcome (2026-11-25): the pytest step ran past 250 s (each length's specialization compiled;
# round 261 unspecializes them); the probe (--all): every kernel correct at every shape, odd
# lengths included; the ws path 1.07x SDPA at 8x16x4000x128 (tl 0.83x), 0.91-0.96x at 1000-long
# and GQA shapes (tl 0.74-0.81x), but 0.36-0.76x where its host time (114-333 us a call, no
# recorded launch) decided; runs/probe-attention-shapes-h100-round260.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 250 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=8 \
    tests/test_attention_ws.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -20
timeout 320 python3 bench/probe_attention_shapes.py "$OUT" 2>&1 | grep -v -i warn | tail -16
exit 0
