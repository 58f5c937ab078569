#!/usr/bin/env bash
# GPU round 433 (H200; 2026-11-29): round 432's re-renders again, with the slim bundle carried
# in three calls on one held machine, each right after the one before (the tree is 52.5 MiB:
# with .gpu-ray's 16 beside it, over the 64 MiB carry), and the GPU tests of tests/test_gemm.py,
# which ran past round 431's 200 s. The Ray archive split in two halves here (bench/gpu_lib.sh,
# split_bundle_stage_ray_part, says how):
#     call 1, carry [".gpu-ray-a"]:  bash bench/gpu_round433.sh stage
#     call 2, carry [".gpu-ray-b"]:  bash bench/gpu_round433.sh tests
#     call 3, carry [".gpu-wheels"]: bash bench/gpu_round433.sh rerender
# Outcome (0.3 + 284 + 142 s): test_gemm's 16 GPU tests passed (272 s); matmul 1.4.0 (bfloat16)
# and 1.5.0 (float16) promoted, the H200's own configs (the H100's params, today's companions),
# 16x8192x8192 at 35.2 us bfloat16 (eager 35.5) and 34.8 float16 (eager 38.8) by the verifier;
# `kzoo zoo verify --newest` passed for matmul 1.5.0 (21 s). runs/gpu-tests-h200-round433/,
# runs/rerender-h200-round433/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round433
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round433
mkdir -p $R
case ${1:-} in
stage)
    split_bundle_stage_ray_part a
    ;;
tests)
    split_bundle_stage_ray_part b last
    timeout 420 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider -rf \
        --tb=short > $R/test_gemm.txt 2>&1
    echo "test_gemm rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_gemm.txt)"
    ;;
rerender)
    split_bundle_install || exit 1
    mkdir -p $R/rerender
    entries_snapshot
    OUT=$R/rerender bash bench/rerender_entries.sh "matmul bfloat16 matmul_skinny" \
        "matmul float16 matmul_skinny"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    zoo_verify_ops 400 $R matmul
    ;;
*) echo "usage: bash bench/gpu_round433.sh stage|tests|rerender" >&2; exit 2 ;;
esac
exit 0
