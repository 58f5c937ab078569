#!/usr/bin/env bash
# GPU round 359 (H200): bench/memory_bound.py's bfloat16 rows of LayerNorm and add + RMSNorm with
# the entries of round 356 moved away (on the device's copy of the tree only), so that the table
# times layer_norm 1.18.0's and add_rms_norm 1.22.0's files as round 351 did.
#     device run, no carry:  bash bench/gpu_round359.sh
# Outcome: bench/results/runs/memory-bound-h200-graphs-bfloat16-norms-old-entries-round359.json:
# the table again reads layer_norm 1.18.0 at 4096x4097 at 1438 GB/s (46.7 us; 1.38x
# torch.compile) and add_rms_norm 1.22.0 at 2434 GB/s (55.1 us), where round 358's probe timed
# the same files at 68.0 and 78.0 us. Round 360 timed the same call inside and outside the table's
# company.
set -uo pipefail
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kz358
mkdir -p /tmp/hide
mv kernel_zoo/entries/layer_norm/1.19.0 kernel_zoo/entries/layer_norm/1.2[01].0 /tmp/hide/
mv kernel_zoo/entries/add_rms_norm/1.2[345].0 /tmp/hide/
timeout 200 python3 bench/memory_bound.py --graphs --dtypes bfloat16 --ops layer_norm,add_rms_norm \
    --out "$OUT" 2>&1 | grep -v -i warn | grep -E "4097|wrote"
exit 0
