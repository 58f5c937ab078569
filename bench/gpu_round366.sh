#!/usr/bin/env bash
# GPU round 366 (H200, 2026-11-28): the zoo's kernels are now assembled by torch's ptxas
# (kernel_zoo.toolchain; probe-ptxas-h200-round365.json: Triton's own ptxas 12.8 gave
# layer_norm 1.18.0's bfloat16 file 180 registers and 68 us at 4096x4097, torch's 13.0 128 and
# 47). (1) the GPU test of that choice; (2) re-tuned under it where round 365 saw the two
# differ: LayerNorm's 16-bit `cols_le_16384` (the persistent-grid configs,
# `--knobs programs_per_sm`, with every config served now, the H100's 1.18.0 one among them)
# and softmax and log-softmax float32 over a non-last dim (`inner_dim`, 90.6 -> 73.0 us at
# 32x1000x1024; `--knobs one_pass_maxnreg_inner`), winners promoted.
#     device run, no carry:  bash bench/gpu_round366.sh
# Outcome (134 s): the GPU test passed. Promoted: layer_norm 1.22.0 (bfloat16) and 1.23.0
# (float16), the persistent-grid configs (8 programs per SM), 4096x4097 58.0 -> 47.7 and 59.2 ->
# 47.5 us, 16384x8192 level (runs/tune-buckets-h200-round366/). The two inner_dim runs timed
# nothing: the softmax and log_softmax tasks have no non-last-dim shape (those are the
# softmax_dim1 tasks'), so the bucket had no shape to time.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round366
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_toolchain.py 2>&1 | tail -2
mkdir -p /tmp/tune366
for job in "layer_norm bfloat16 cols_le_16384 programs_per_sm" \
           "layer_norm float16 cols_le_16384 programs_per_sm" \
           "softmax float32 inner_dim one_pass_maxnreg_inner" \
           "log_softmax float32 inner_dim one_pass_maxnreg_inner"; do
    set -- $job
    [ $(( $(date +%s) - start )) -gt 480 ] && break
    tune_op 100 $1 $2 /tmp/tune366 --buckets $3 --knobs $4 --samples 0 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune366
done
exit 0
