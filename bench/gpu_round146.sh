#!/usr/bin/env bash
# GPU round 146 (H100): the Triton source torch.compile writes for GeGLU and SwiGLU at 8192x16384
# bfloat16, beside the zoo kernels' times (GeGLU has trailed compile by 1-2% at its large shapes
# in every table since round 129).
# Outcome (runs/probe-inductor-glu-h100-round146.json): compile 260.0 / zoo 263.2 us (GeGLU),
# 259.7 / 261.7 (SwiGLU at 8192x16384). Inductor's kernel: 1024-element blocks, int32 offsets,
# the same fp32 math (libdevice erf).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/probe_inductor_glu.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
