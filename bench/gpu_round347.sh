#!/usr/bin/env bash
# GPU round 347 (H200; written and run 2026-11-28 at commit 644da49, whose ws_tail was reverted
# after it): where ws_tail's time went in rounds 344 and 346 (the
# tail 6-23 us slower than none at bias+GELU 8192x8192x4096, where it was to save a tile's
# time): bench/probe_ws_tail.py times the pingpong kernel on all 4096 tiles, on the first 4092,
# and the tail kernel alone on the last 4.
#     device run, no carry:  bash bench/gpu_round347.sh
# Outcome (11 s each, two runs; runs/probe-ws-tail-h200-round347a.json the first, with 4 variants):
# run 1: the kernel on all 4096 tiles 782.0 us, on the first 4092 825.6, the tail alone 18.5,
# eager 812.1. Run 2 added 4080, 4088 and 3960 tiles and all tiles again: all 773.8, 4092 774.7,
# 4080 792.5, 4088 818.6, 3960 803.5, all again 842.9, the tail 18.5. Identical launches differed
# by 9% with what ran before them in the round (each block of calls slower after more GEMM
# blocks: the H200 at its power limit; rounds 348-349 took this apart), and leaving out the last
# round's 4 tiles saved nothing measurable. The tail's 18.5 us is a pure loss, so ws_tail was
# reverted (runs/probe-ws-tail-h200-round347.json).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/probe_ws_tail.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
