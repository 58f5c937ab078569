#!/usr/bin/env bash
# (qk_ahead and bench/attention.py --unconstrained were removed after round 63: no gain; see templates/attention.py)
# GPU round 62: attention with the next key block's scores computed before this block's softmax
# (`qk_ahead`), so that matmul can run while the softmax does. Timed interleaved beside the
# default and SDPA / compiled FlexAttention: 128x128 tiles (two score tiles: over the register
# heuristic, --unconstrained) and 128x64 tiles, with and without it.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/a62
timeout 500 python3 bench/attention.py --cases sdpa,sdpa_causal,relative_position --unconstrained \
    --variants '[{}, {"qk_ahead": true}, {"block_n": 64}, {"block_n": 64, "qk_ahead": true}, {"block_n": 64, "qk_ahead": true, "num_stages": 4}]' \
    --out /tmp/a62 2>&1 | grep -v -i -E "warn" | tail -22
cp /tmp/a62/*.json "$OUT/" 2>/dev/null
exit 0
