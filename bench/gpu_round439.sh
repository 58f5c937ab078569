#!/usr/bin/env bash
# GPU round 439 (H200; 2026-11-29): round 438's re-render again, both dtypes, with SKINNY_WIDER
# at five stages (round 438: 33.2 us against four stages' 36.1 at 100x4096->14336, cuBLAS 34.0)
# and bench/rerender_entries.sh starting from each entry's params completed by the template
# (round 438's float16 start took SKINNY_DEFAULT's shift_tail beside its SPLIT_K of 8 and was
# refused; its bfloat16 promotion, which had taken shift_tail into its own config that way, was
# not kept): the five-stage tile's GPU tests, the matmul entries re-rendered, `kzoo zoo verify
# --newest`, and what ops.matmul serves at 1-128 rows beside matmul 1.7.0 and cuBLAS
# (bench/linear_skinny.py --matmul). Four calls on one held machine, each right after the one
# before (bench/gpu_lib.sh, split_bundle_stage_ray_part):
#     call 1, carry [".gpu-ray-a"]:  bash bench/gpu_round439.sh stage a
#     call 2, carry [".gpu-ray-b"]:  bash bench/gpu_round439.sh stage b
#     call 3, carry [".gpu-ray-c"]:  bash bench/gpu_round439.sh tests
#     call 4, carry [".gpu-wheels"]: bash bench/gpu_round439.sh rerender
# Outcome (0.3 + 0.2 + 55 + 200 s): SKINNY_WIDER's GPU test passed at five stages; matmul 1.8.0
# (bfloat16) and 1.9.0 (float16) promoted (0.0645 and 0.0644 ms over the task's shapes, 1.07x and
# 1.13x eager by the verifier; the H200 configs keep shift_tail off, as their params were);
# `kzoo zoo verify --newest` passed (23 s). matmul-skinny-h200.json (runs/matmul-skinny-h200-round439.json since round 444): every one of the 28 served
# rows at or above cuBLAS, 1.068x over them (1.013x at 64x4096->4096 the least; round 436 1.027x
# with 10 behind); 100 rows 14.6-14.7 us at 4096->4096 (1.7.0 17.4-17.7, cuBLAS 15.4-15.5) and
# 33.2-33.4 at 4096->14336 (1.7.0 39.3-39.5, cuBLAS 34.0-34.3), 128 rows there 33.4 (36.2-36.3,
# 34.2-34.3), 1 and 16 rows there 31.4-31.7 (33.6-35.4, 32.4-34.3); over all 42 rows 1.045x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round439
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round439
mkdir -p $R
case ${1:-} in
stage)
    split_bundle_stage_ray_part "${2:-}"
    ;;
tests)
    split_bundle_stage_ray_part c last
    timeout 120 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider -rf \
        --tb=short -k "skinny_tiles_are_right and SKINNY_WIDER" > $R/test_gemm.txt 2>&1
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
    zoo_verify_ops 300 $R matmul
    left=$(( 450 - ($(date +%s) - start) ))
    timeout $left python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous 1.7.0 --out $R/skinny 2>&1 | grep -v -i warn | tail -46
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    ;;
*) echo "usage: bash bench/gpu_round439.sh stage a|b | tests | rerender" >&2; exit 2 ;;
esac
exit 0
