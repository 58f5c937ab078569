#!/usr/bin/env bash
# GPU round 144 (H100): cross-entropy's flat spans again, now as many programs an SM as the flat
# kernel's registers let run at once (round 143's 4 an SM of 8 warps ran in two waves).
# Round 143 (runs/probe-ce-rows-h100-round143.json): at 4099x50257 the row kernel took 151 us and
# its single-program mean 5 us; aligned 4096x50256 rows 146; 1024x201028 182 (1024 programs for
# 1056 slots), where flat spans took 144.
# Outcome (runs/probe-ce-rows-h100-round144.json): 4099x50257 153.1 us with 2048-wide flat tiles of
# 4 warps against the row kernel's 160.4, but 158.8 against 153.8 at 4096x50256 and 176.0 against
# 160.4 at 8192x25128; 1024x201028 153.6 against 191.4; 1024x32000 34.2 (1024-wide tiles of 4
# warps, 8 an SM) against 38.5.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 bench/probe_ce_rows.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
