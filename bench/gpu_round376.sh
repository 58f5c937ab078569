#!/usr/bin/env bash
# GPU round 376 (H200, 2026-11-29): bench/probe_split_lag.py, split-row float32 softmax programs
# that write a row LAG rows after they read it, re-reading its slice from L2 then, so no slice is
# held across a step and nothing waits for partners (rounds 373-375: a third slice in registers,
# TMA loads in Triton and a CUDA C++ thread-block cluster all lost to the served kernel).
#     device run, no carry:  bash bench/gpu_round376.sh
# Outcome (ran 2026-11-29 02:04): every variant correct; the second read late with maxnreg 80
#   (three programs an SM) took 78.1 us against the served 82.7 at 256x128256 (0.81 against
#   0.77 of copy); without the cap 87.8, two rows of lag 89.1, 32-way splits 134-168 (Triton 3.6
#   gave them 211-218 registers). At 1024x32768 75.1 at best against the one-pass kernel's 71.1.
#   runs/probe-split-lag-h200-round376.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round376
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/r376
timeout 240 python3 bench/probe_split_lag.py --out /tmp/r376 2>&1 | grep -v -i warn | tail -32
tar czf "$OUT/round376.tgz" -C /tmp r376
exit 0
