#!/usr/bin/env bash
# GPU round 440 (H200; 2026-11-29): the linear entries re-rendered with round 437-438's skinny
# and decode tiles (shift_tail, SKINNY_WIDER, DECODE_WIDER) as matmul's were in round 439: the
# newest linear_bias_gelu and linear_bias_silu params for each dtype (bfloat16 GELU's and float16
# GELU's the H200's own, SiLU's the H100's, which the H200 runs) through bench/rerender_entries.sh,
# then `kzoo zoo verify --newest` for both ops. What ops.linear serves at 1-128 rows after them is
# round 441's (bench/gpu_round441.sh). Four calls on one held machine, each right after the one
# before (bench/gpu_lib.sh, split_bundle_stage_ray_part):
#     call 1, carry [".gpu-ray-a"]:  bash bench/gpu_round440.sh stage a
#     call 2, carry [".gpu-ray-b"]:  bash bench/gpu_round440.sh stage b
#     call 3, carry [".gpu-ray-c"]:  bash bench/gpu_round440.sh stage c last
#     call 4, carry [".gpu-wheels"]: bash bench/gpu_round440.sh rerender
# Outcome (0.4 + 0.2 + 1.9 + 343 s): linear_bias_gelu 1.12.0 (bfloat16) and 1.13.0 (float16),
# linear_bias_silu 1.10.0 and 1.11.0 promoted (by the verifier over the task's shapes: GELU 1.48x
# eager in both dtypes, SiLU 1.15x and 1.16x), their params unchanged (shift_tail off in their own
# configs); `kzoo zoo verify --newest` passed for both ops (31 and 24 s). SiLU's optimize JSONs
# and logs did not come back (the run returns 8 files at most); their manifests hold the verdicts.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round440
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round440
mkdir -p $R
case ${1:-} in
stage)
    split_bundle_stage_ray_part "${2:-}" ${3:-}
    ;;
rerender)
    split_bundle_install || exit 1
    mkdir -p $R/rerender
    entries_snapshot
    OUT=$R/rerender bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" \
        "linear_bias_gelu float16" "linear_bias_silu bfloat16" "linear_bias_silu float16"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    zoo_verify_ops 560 $R linear_bias_gelu linear_bias_silu
    ;;
*) echo "usage: bash bench/gpu_round440.sh stage a|b|c [last] | rerender" >&2; exit 2 ;;
esac
exit 0
