#!/usr/bin/env bash
# GPU round 355 (H200): does a 4097-wide float32 row's broken 16-byte alignment cost residual add +
# RMSNorm its bandwidth (0.78 of copy at 4096x4097 against 0.98 at 8192x4096), and does an aligned
# body with its edges apart win it back? bench/probe_norm_align.py at 4096 rows of 4096, 4097 and
# 4100 columns: the zoo, torch.compile, a copy of the same bytes, the body-and-edges kernel.
#     device run, no carry:  bash bench/gpu_round355.sh
# Outcome: bench/results/runs/probe-norm-align-h200-round355.json. At 4096x4097 float32
# the body-and-edges kernel took 68.3 us (8 warps; 0.92 of the copy bandwidth) against the served
# kernel's 80.9 (0.78) and torch.compile's 83.4; at 4096x4096 66.8 against the zoo's 66.4; at
# 4096x4100 68.5 against the zoo's 78.8 (its 8192-wide two-row tile) and compile's 72.5. So the
# template gained `align_edges` (templates/norm.py).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round355
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 python3 bench/probe_norm_align.py "$OUT" 2>&1 | grep -v -i warn | head -40
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
