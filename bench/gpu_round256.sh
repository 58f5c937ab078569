#!/usr/bin/env bash
# GPU round 256 (H100): the attention template's ws path (the Gluon kernel of round 255, now
# templates/_attention_ws.jinja, on in DEFAULT with the consumers' turns): its GPU tests and the
# tl path's, then bench/attention.py's table with the new default, and the default beside ws
# without turns and without ws (the tl kernel), interleaved.
# Outcome (2026-11-25): the pytest step ran past its 240 s limit (a cold machine compiling every
# modifier x dtype x turns; round 257 again with fewer cases); bench/attention.py: DEFAULT 1.11x
# SDPA, causal 1.07x, relative position 1.39x FlexAttention, soft cap 1.80x (the tl kernel);
# variants (turns / no turns / tl): 1.02/1.03/0.90x SDPA, causal the same, relative position
# 1.28/1.26/1.09x FlexAttention.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_attention_ws.py \
    tests/test_attention.py 2>&1 | grep -E "passed|failed|FAILED|Error|assert" | tail -12
timeout 200 python3 bench/attention.py --out "$OUT" 2>&1 | grep -v Warning | tail -8
timeout 200 python3 bench/attention.py --out "$OUT" --cases sdpa,sdpa_causal,relative_position \
    --variants '[{}, {"ws_pingpong": false}, {"ws": false}]' 2>&1 | grep -v Warning | tail -12
exit 0
