#!/usr/bin/env bash
# GPU round 358 (H200): the sweep of round 356 timed layer_norm 1.18.0's stored bfloat16 file at
# 67.6 us at 4096x4097 where round 351's table had it at 47.1; bench/probe_norm_paths.py times the
# old and new stored files at that shape through their launchers and their ModelNew.
#     device run, no carry:  bash bench/gpu_round358.sh
# Outcome: bench/results/runs/probe-norm-paths-h200-round358.json (us, launcher / ModelNew):
# layer_norm bfloat16 1.18.0 68.0 / 68.1 (grid 1056 x 256 threads, 180 registers), 1.21.0
# 58.0 / 58.0; add_rms_norm bfloat16 1.22.0 78.0 / 78.0, 1.25.0 42.7 / 42.8; layer_norm float32
# 1.18.0 88.2 / 88.4, 1.21.0 55.8 / 55.7. Both paths agree with the sweep, not with the table.
set -uo pipefail
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/probe_norm_paths.py "$OUT" 2>&1 | grep -v -i warn | head -60
exit 0
