#!/usr/bin/env bash
# GPU round 436 (H200; 2026-11-29): SKINNY_NARROW as 32x64 tiles with swap_ab and the new
# SKINNY_NARROW_WIDE (32x128, swap_ab) past one wave of those (round 435): the GPU tests of the
# skinny tiles, the matmul entries re-rendered with them (bench/rerender_entries.sh; the task's
# shapes do not route to them, so the promotion re-times 16 and 128 rows only), the newest checked
# by `kzoo zoo verify --newest`, then what ops.matmul serves at 1-128 rows beside matmul 1.5.0
# and cuBLAS (bench/linear_skinny.py --matmul). Three calls on one held machine, each right
# after the one before, the slim bundle's Ray archive in two halves (as round 433):
#     call 1, carry [".gpu-ray-a"]:  bash bench/gpu_round436.sh stage
#     call 2, carry [".gpu-ray-b"]:  bash bench/gpu_round436.sh tests
#     call 3, carry [".gpu-wheels"]: bash bench/gpu_round436.sh rerender
# Outcome (0.4 + 66 + 146 s): the skinny tiles' 6 GPU tests passed; matmul 1.6.0 (bfloat16) and
# 1.7.0 (float16) promoted (16x8192x8192 35.1 and 35.0 us by the verifier, eager 35.5 and 40.6);
# `kzoo zoo verify --newest` passed (16 s). runs/matmul-skinny-h200-round436.json: 24 and 32
# rows 13.9-14.0 us at 4096->4096 (1.5.0 16.6-16.8, cuBLAS 16.2-16.6) and 31.6-32.1 at
# 4096->14336 (1.5.0 35.4-38.5, cuBLAS 32.6-32.9); every other row within 1% of 1.5.0. Over
# the 28 served rows 1.027x cuBLAS (round 434: 0.977x), 10 of them behind it (18 then): 100 rows
# of both weights (0.86-0.89x), 128 rows of 4096->14336 (0.95x), 1 and 16 rows there
# (0.95-0.99x); over all 42 rows (the 14 of 1000->3000 run cuBLAS) 1.017x (round 434: 0.985x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round436
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round436
mkdir -p $R
case ${1:-} in
stage)
    split_bundle_stage_ray_part a
    ;;
tests)
    split_bundle_stage_ray_part b last
    timeout 150 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider -rf \
        --tb=short -k "skinny_tiles_are_right or skinny_companion_serves" > $R/test_gemm.txt 2>&1
    echo "test_gemm rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_gemm.txt)"
    ;;
rerender)
    split_bundle_install || exit 1
    mkdir -p $R/rerender $R/skinny
    entries_snapshot
    OUT=$R/rerender bash bench/rerender_entries.sh "matmul bfloat16 matmul_skinny" \
        "matmul float16 matmul_skinny"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    zoo_verify_ops 200 $R matmul
    left=$(( 290 - ($(date +%s) - start) ))
    timeout $left python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous 1.5.0 --out $R/skinny 2>&1 | grep -v -i warn | tail -46
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    ;;
*) echo "usage: bash bench/gpu_round436.sh stage|tests|rerender" >&2; exit 2 ;;
esac
exit 0
