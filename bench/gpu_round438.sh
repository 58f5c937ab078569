#!/usr/bin/env bash
# GPU round 438 (H200; 2026-11-29): round 437's tiles in the template (SKINNY_DEFAULT and
# SKINNY_WIDE with shift_tail, SKINNY_WIDER's 64x256 before SKINNY_LARGE, DECODE_WIDER's swapped
# 16x128 past one wave of DECODE_WIDE's): the GPU tests of every skinny and decode tile (a shifted
# tile's output bit for bit the unshifted one's), SKINNY_WIDE shifted or not at 100x4096->8192 and
# 64x256 variants at 100-128 rows of 4096->14336 (bench/gemm.py --configs --graphs with
# bench/gemm-skinny-wider-candidates.json), then the matmul entries re-rendered with them
# (bench/rerender_entries.sh), the newest checked by `kzoo zoo verify --newest`, and what
# ops.matmul serves at 1-128 rows beside matmul 1.7.0 and cuBLAS (bench/linear_skinny.py
# --matmul). Four calls on one held machine, each right after the one before, the slim bundle's
# Ray archive in three parts (bench/gpu_lib.sh, split_bundle_stage_ray_part: the device refused
# the tree with round 436's 8 MiB halves beside it):
#     call 1, carry [".gpu-ray-a"]:  bash bench/gpu_round438.sh stage a
#     call 2, carry [".gpu-ray-b"]:  bash bench/gpu_round438.sh stage b
#     call 3, carry [".gpu-ray-c"]:  bash bench/gpu_round438.sh tests
#     call 4, carry [".gpu-wheels"]: bash bench/gpu_round438.sh rerender
# Outcome (0.3 + 0.3 + 223 + 142 s): the 10 GPU tests of the skinny and decode tiles passed
# (gpu-tests-h200-round438/), each shifted tile's output bit for bit the unshifted one's.
# runs/gemm-configs-h200-graphs-round438-skinny-wider.json: 64x256 tiles at five stages took 33.2
# and 33.1 us at 100 and 128 x 4096->14336 (four stages 36.1 and 36.3, 128x128 39.5 and 36.3,
# cuBLAS 34.0 and 34.0), silu(linear) at 100 rows 37.2 (eager 39.1); SKINNY_WIDE at
# 100x4096->8192 22.0 shifted against 24.4 unshifted (cuBLAS 23.0). The re-render: the float16
# start was refused (`--start` fills a knob the entry's params lack from the bucket's start,
# SKINNY_DEFAULT's shift_tail, beside the entry's SPLIT_K of 8), and the bfloat16 entry promoted
# (matmul 1.8.0, zoo verify passed) had taken shift_tail into its own config that way, so it was
# not kept; bench/rerender_entries.sh now completes the params through the template (round 439).
# Its sweep (runs/matmul-skinny-h200-round438-not-kept.json, bfloat16 served by that entry with
# four-stage 64x256 tiles): every one of the 14 served rows at or above cuBLAS (1.007x at
# 64x4096->4096 the least; 100x4096->4096 14.3 us against 15.1, 1x4096->14336 31.3 against 34.1).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round438
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round438
mkdir -p $R
case ${1:-} in
stage)
    split_bundle_stage_ray_part "${2:-}"
    ;;
tests)
    split_bundle_stage_ray_part c last
    timeout 300 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider -rf \
        --tb=short -k "skinny_tiles_are_right or skinny_default_is_correct" \
        > $R/test_gemm.txt 2>&1
    echo "test_gemm rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_gemm.txt)"
    cases=skinny_100x8192x4096,skinny_100x14336x4096,skinny_128x14336x4096
    cases=$cases,linear_bias_silu_100x14336x4096
    timeout 200 python3 bench/gemm.py --configs --graphs --cases $cases \
        --candidates bench/gemm-skinny-wider-candidates.json --out $R 2>&1 | grep -v -i warn \
        | tail -40
    echo "configs after $(( $(date +%s) - start )) s"
    ;;
rerender)
    split_bundle_install || exit 1
    mkdir -p $R/rerender $R/skinny
    entries_snapshot
    OUT=$R/rerender bash bench/rerender_entries.sh "matmul bfloat16 matmul_skinny" \
        "matmul float16 matmul_skinny"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    zoo_verify_ops 250 $R matmul
    left=$(( 420 - ($(date +%s) - start) ))
    timeout $left python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous 1.7.0 --out $R/skinny 2>&1 | grep -v -i warn | tail -46
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    ;;
*) echo "usage: bash bench/gpu_round438.sh stage|tests|rerender" >&2; exit 2 ;;
esac
exit 0
