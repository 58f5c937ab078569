#!/usr/bin/env bash
# GPU round 255 (H100): the Gluon attention probe's first GPU run: small shapes against float64
# (every variant, non-causal, causal, relative position, GQA, head dims 64 and 128), then, if
# they pass, the timed run at 8x16x4096x128 beside SDPA, the template's DEFAULT and FlexAttention.
# Outcome (2026-11-25): every smoke case correct (168 registers, no spills); 8x16x4096x128 bf16:
# the ws kernel 1.063x SDPA (609 against 573 TFLOP/s), causal 1.093x (545 against 499), relative
# position 1.266x compiled FlexAttention, 1.309x with pingpong (602 against 460); the template's
# DEFAULT 0.94x, 0.99x and 1.10x. The probe ran at commit 806601a; its kernel is now the attention
# template's ws path (templates/_attention_ws.jinja), the probe removed, its JSON in
# bench/results/runs/probe-gluon-attention-h100-round255.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if timeout 150 python3 bench/probe_gluon_attention.py --smoke 2>&1 | grep -v Warning | tail -40; then
    timeout 400 python3 bench/probe_gluon_attention.py --out "$OUT" 2>&1 | tail -12
fi
exit 0
