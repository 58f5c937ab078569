#!/usr/bin/env bash
# GPU round 354 (H200): what Inductor generates where the zoo still trails torch.compile after
# round 353's re-tune (argmax float32 4099x1000 0.947x, mean float32 4096x4097 0.987x, GeGLU
# float32 16x16384 0.988x), and where float32 rows stay under 90% of the 1 GiB copy (softmax
# 1024x32768 and 256x128256, residual add + RMSNorm 4096x4097), each beside a copy of the same
# bytes (bench/probe_inductor_rows.py).
#     device run, no carry:  bash bench/gpu_round354.sh
# Outcome: bench/results/runs/probe-inductor-rows-h200-round354.json. The zoo against
# torch.compile and a copy of the same bytes (us): argmax 4099x1000 10.08 / 10.18 / 10.21; mean
# 4096x4097 20.22 / 20.03 / 19.26; GeGLU 16x16384 5.25 / 5.31 / 5.02; softmax 1024x32768 71.2 /
# 105.2 / 66.0; softmax 256x128256 82.0 / 147.3 / 64.5; add + RMSNorm 4096x4097 80.7 / 83.8 /
# 65.4. Inductor's argmax is one 32-thread program per row (4099 programs). A 268 MB copy reads
# 0.96 of the 1 GiB copy's rate, so a large row at 0.90 of the yardstick is at 0.94 of a copy of
# its own bytes.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round354
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 400 python3 bench/probe_inductor_rows.py --out "$OUT" 2>&1 | grep -v -i warn \
    | grep -v -E "^\s*$" | head -80
echo "probe: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
