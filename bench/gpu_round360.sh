#!/usr/bin/env bash
# GPU round 360 (H200, two calls): bench/diag_norm_ops_path.py with layer_norm's entries of round
# 356 moved away (the device's copy only): layer_norm 1.18.0's bfloat16 file at 4096x4097 through
# kernel_zoo.ops, alone and beside eager and torch.compile as bench/memory_bound.py times it.
#     device run, no carry:  bash bench/gpu_round360.sh
# Outcome (printed only; transcribed in bench/results/runs/diag-norm-ops-path-h200-round360.json): kernel_zoo.ops launches the same kernel as the probe
# (grid 1056 x 256 threads, 180 registers, 68.3 us in the profiler) and times 68.0 us (the first
# call, with the launcher called directly beside it: 68.1), 67.5 alone and 67.9 beside eager
# (89.0) and torch.compile (64.7). So only bench/memory_bound.py's run reads the file at 47 us
# (its rows before this one, or something else of that process: not found); left open. Round 356's LayerNorm 16-bit
# promotions (57.7-58.6 us by every harness) were kept: by three of four harnesses the file they
# replaced took 68 us, behind torch.compile.
set -uo pipefail
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kz360
mkdir -p /tmp/hide3
mv kernel_zoo/entries/layer_norm/1.19.0 kernel_zoo/entries/layer_norm/1.2[01].0 /tmp/hide3/
timeout 150 python3 bench/diag_norm_ops_path.py 2>&1 | grep -v -i warn | tail -6
exit 0
