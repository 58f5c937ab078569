#!/usr/bin/env bash
# GPU round 143 (H100): round 142's flat spans lost (202-1072 us at 4099x50257 against the row
# kernel's 149): what limits the row kernel there, by row length and alignment, beside flat spans
# whose tiles without a row end take the plain online step (no per-lane row mask).
# Outcome (runs/probe-ce-rows-h100-round143.json): at 4099x50257 the row kernel took 151.2 us and
# its mean kernel 5.1 (the call 160.0 on this machine, 149 in round 142's); aligned 4096x50256
# 145.8; 1024x201028 181.9, where the flat spans took 143.7. The flat kernel's 73 registers fit
# 3 programs of 8 warps an SM: its 4 an SM ran in two waves.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 bench/probe_ce_rows.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
