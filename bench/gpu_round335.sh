#!/usr/bin/env bash
# GPU round 335 (H200): the float32 buckets whose large rows fell under 90% of the copy bandwidth
# in round 332's H200 table (every large row had reached it on the H100), re-tuned on the H200
# with bench/tune_buckets.py under the CUDA-graph timer, winners promoted: softmax and
# log-softmax at 1024x32768 (0.886, 0.887) and 256x128256 (0.755, 0.793), residual add + RMSNorm
# at 4096x4097 (0.779) and 256x65536 (0.862). The tuner's JSONs time eager PyTorch and
# torch.compile beside every config in the same run. The session's last device minutes: short
# samples, each op under its own timeout.
#     device run, carry [".gpu-slim"]:  bash bench/gpu_round335.sh
# Outcome (2026-11-28): softmax and log-softmax kept every config (the served ones the sweeps'
# best or within 0.5%); add_rms_norm 1.21.0 (float32 cols_le_65536: 256x65536 0.87 -> 0.89 of
# copy); cols_le_16384 kept. 150 s. runs/tune-buckets-h200-round335/. Two follow-up calls on the
# warm machine timed the rows:
#     python3 bench/memory_bound.py --graphs --dtypes float32 --ops add_rms_norm,softmax,log_softmax
#         (before add_rms_norm 1.21.0 was in the tree: -float32-softmax-add-rms-norm-round335.json)
#     python3 bench/memory_bound.py --graphs --dtypes float32 --ops add_rms_norm
#         (with it: -float32-add-rms-norm-round335b.json)
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round335
. bench/gpu_lib.sh
slim_bundle_install
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune335
tune_op 130 softmax float32 /tmp/tune335 --buckets cols_le_65536,cols_gt_65536 --samples 4 --jobs 14
entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune335
tune_op 120 log_softmax float32 /tmp/tune335 --buckets cols_le_65536,cols_gt_65536 --samples 4 --jobs 14
entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune335
left=$(( 400 - ($(date +%s) - start) ))
[ $left -gt 60 ] && tune_op $left add_rms_norm float32 /tmp/tune335 --buckets cols_le_16384,cols_le_65536 \
    --samples 4 --jobs 14
entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune335
exit 0
