#!/usr/bin/env bash
# GPU round 343 (H200; written 2026-11-28, run 2026-11-28 19:07 UTC): linear_bias_gelu's pingpong form for the H200 alone. In round 337 the pingpong kernel took
# bias+GELU at 8192x8192x4096 to 1.093x eager by graph replays (1.068x by the default timer) where
# the served cooperative form, the H100's pick (1.039x against pingpong's 1.008x there), took
# 1.01x. Since 2026-11-28 a bucket keeps one config per GPU model, so an H200 promotion leaves the
# H100's in place. `kzoo optimize` re-verifies and re-times the pingpong params at every shape of
# the task and promotes them where they beat the best baseline (bench/rerender_entries.sh).
# It needs Ray, which no longer fits the carry beside the tree in one call: two calls on one held
# machine (bench/gpu_lib.sh, split_bundle_*), the second right after the first:
#     device run 1, carry [".gpu-ray"]:     bash bench/gpu_round343.sh stage
#     device run 2, carry [".gpu-wheels"]:  bash bench/gpu_round343.sh
# Outcome (107 s after a 2 s staging call: the two-call bundle works): linear_bias_gelu 1.10.0
# (bfloat16) and 1.11.0 (float16) promoted, the pingpong form for the H200 beside the H100's
# cooperative one: 1.06x and 1.07x torch.compile over the task's shapes by the verifier's timer;
# 8192x8192x4096 bfloat16 0.801 ms against eager's 0.851 (1.063x) (runs/rerender-h200-round343/).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round343
. bench/gpu_lib.sh
if [ "${1:-}" = stage ]; then
    split_bundle_stage_ray
    exit $?
fi
split_bundle_install || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p "$OUT/rerender"
OUT="$OUT/rerender" KNOBS='{"ws_coop": false}' bash bench/rerender_entries.sh \
    "linear_bias_gelu bfloat16" "linear_bias_gelu float16"
entries_pack_new
echo "after $(( $(date +%s) - start )) s"
exit 0
