#!/usr/bin/env bash
# GPU round 120: round 119 again with the reduce template's one_pass_min_fill knob among the
# candidates (rows filling under 3/4 of their one-pass tile loop: 4097 wide does, 8192 does not),
# then the norms' cols_le_16384 bucket (4097 and 8192 wide; RMSNorm and LayerNorm at 0.94x and
# 0.96x torch.compile at 16384x8192 in round 104) the same way, by CUDA-graph replays.
# Round 119's promotions (amax 1.3.0, mean 1.3.0) were not kept: the stored 1.2.0 files compete.
# Outcome: (filled in after the run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 python3 bench/tune_buckets.py --ops amax,amin,mean,sum --dtypes bfloat16 \
    --buckets cols_le_16384 --graphs --samples 4 --jobs 14 --zoo kernel_zoo/entries \
    --out "$OUT" 2>&1 | grep -v -i warn | grep -v "^  [0-9]* of" | tail -24
timeout 290 python3 bench/tune_buckets.py --ops rms_norm,layer_norm,add_rms_norm \
    --dtypes bfloat16 --buckets cols_le_16384 --graphs --samples 4 --jobs 14 \
    --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | grep -v "^  [0-9]* of" \
    | tail -18
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/amax entries/amin entries/mean entries/sum \
    entries/rms_norm entries/layer_norm entries/add_rms_norm
exit 0
