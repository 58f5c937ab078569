#!/usr/bin/env bash
# GPU round 448 (H200; 2026-11-30): bench/probe_l2_prefetch.py, float32 softmax at 1024x32768
# (0.89 of copy, the bar 0.90): does a `prefetch.global.L2` of the row a later program takes,
# issued right after a program's own loads, keep DRAM busy through the gap between a row's last
# load and its first store?
#     device run, no carry:  bash bench/gpu_round448.sh
# Outcome (13 s, then 9 s after adding the evict_last and streaming-store variants; the second
# run's JSON is kept, runs/probe-l2-prefetch-h200-round448.json; none wrong): it lost in every
# form. Graph replays, us (fraction of a copy of the same bytes, 64.4 us): the served kernel 70.8
# (0.91), this file's plain one-pass kernel 70.3 (0.92), prefetching row + 132 84.9 (0.76), row
# + 264 88.1, with evict_last 84.4, with evict_last and streaming stores 82.6, row + 66 so 79.1
# (0.81); a persistent grid of one program an SM 76.1 without the prefetch and 89.8 with it;
# streaming stores alone 71.5.
# A third call (12 s) ran bench/probe_softmax_chunks.py (runs/probe-softmax-chunks-h200-round448.json;
# none wrong): the row loaded as 2 or 4 chunks, each chunk's max and exponentials computed while
# the later chunks load, lost too (71.5 and 79.4 us against one chunk's 70.3), and the probe's
# one-chunk kernel, the served one's form without masks, took 70.3 us against the served 71.6
# (1.8%; 70.3 against 70.8 in the prefetch probe's run), which round 449 tried in the template
# (`EVEN`) and did not confirm.
set -uo pipefail
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 bench/probe_l2_prefetch.py --out $OUT
timeout 300 python3 bench/probe_softmax_chunks.py --out $OUT
