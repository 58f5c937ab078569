#!/usr/bin/env bash
# GPU round 443 (H200; 2026-11-30): SKINNY_NARROW_PAIR (SKINNY_NARROW's 32x64 swapped tiles with
# the second tile row shifted back in bounds) takes the calls of 33-63 rows where its two tile rows
# fit one wave (round 442: 14.1-14.3 us at 40 and 48 x 4096->4096 against SKINNY_POINTER's
# 15.0-16.6). Its GPU test, then the matmul and linear entries re-rendered with it
# (bench/rerender_entries.sh) and `kzoo zoo verify --newest` for each op re-rendered. What
# ops.matmul and ops.linear serve at 1-128 rows after them, 40 and 48 rows now among them, is
# round 444's (bench/gpu_round444.sh). The zoo's blobs are xz-compressed since this round (schema
# 3), and tests/test_zoo_blobs.py runs here too: a schema-3 kernel's source reaching Triton 3.6's
# @jit on the GPU. The smaller tree lets Ray's archive travel whole again. Calls on one held
# machine, each right after the one before:
#     call 1, carry [".gpu-ray"]:     bash bench/gpu_round443.sh tests
#     call 2, carry [".gpu-wheels"]:
#         bash bench/gpu_round443.sh rerender "matmul bfloat16 matmul_skinny" ...
# Outcome (50 + 256 + 276 + 475 s; three rerender calls: matmul and GELU, SiLU and ReLU, GELU-tanh,
# sigmoid and tanh): SKINNY_NARROW's three GPU tests passed (SKINNY_NARROW_PAIR's among them: its
# outputs bit for bit the unshifted tile's at 48, 100 and 300 rows in both layouts), and
# test_zoo_blobs's 31 (a schema-3 kernel's source through Triton 3.6's @jit). Promoted, each with
# its previous params (by the verifier over the task's shapes): matmul 1.10.0 (bfloat16) and
# 1.11.0 (float16), 1.07x and 1.13x eager; linear_bias_gelu 1.14.0/1.15.0, 1.48x; linear_bias_silu
# 1.12.0/1.13.0, 1.15x; linear_bias_relu 1.4.0/1.5.0, 1.15x; linear_bias_gelu_tanh 1.4.0/1.5.0,
# 1.12x/1.13x; linear_bias_sigmoid 1.4.0/1.5.0, 1.15x; linear_bias_tanh 1.4.0/1.5.0, 1.11x/1.10x.
# `kzoo zoo verify --newest` passed for all seven ops (16-27 s each). The first rerender call's
# archive failed (the mode was read after `shift`; fixed), so matmul's optimize JSONs and logs and
# GELU float16's log did not come back (a run returns 8 files); their manifests hold the verdicts.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round443
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round443
mkdir -p $R
mode=${1:-}
case $mode in
tests)
    split_bundle_stage_ray
    timeout 240 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider -rf \
        --tb=short -k "skinny_tiles_are_right and SKINNY_NARROW" \
        > $R/test_gemm.txt 2>&1
    echo "test_gemm rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_gemm.txt)"
    # the zoo's xz blobs (schema 3, this round): their kernels' source reaches Triton 3.6's @jit
    # from the loader, compiled for the GPU
    timeout 200 python3 -m pytest -q tests/test_zoo_blobs.py -p no:cacheprovider -rf \
        --tb=short > $R/test_zoo_blobs.txt 2>&1
    echo "test_zoo_blobs rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_zoo_blobs.txt)"
    ;;
rerender)
    shift
    rerender_and_verify 560 $R "$@" || exit 1
    ;;
*) echo "usage: bash bench/gpu_round443.sh tests | rerender \"OP DTYPE [TASK]\"..." >&2; exit 2 ;;
esac
# a run returns at most 8 files: the logs and JSONs in one archive (entries.tgz and
# new-entries.txt beside it)
tar czf $OUT/round443-$mode.tgz -C $OUT round443 && rm -rf $R
exit 0
