#!/usr/bin/env bash
# GPU round 446 (H200; 2026-11-30): SKINNY_NARROW_PAIR takes the 64-row calls where its two tile
# rows fit one wave (rounds 444-445), so the matmul, GELU and SiLU entries are re-rendered with it
# (bench/rerender_entries.sh, params unchanged) and `kzoo zoo verify --newest` runs for each; then
# bench/linear_skinny.py times what ops.matmul and ops.linear serve at 1-128 rows beside the
# previous entries (matmul 1.11.0, linear_bias_gelu 1.15.0, linear_bias_silu 1.13.0), eager,
# torch.compile and cuBLAS. Calls on one held machine, each right after the one before (the
# sweep's after the re-rendered entries are extracted into the tree):
#     call 1, carry [".gpu-ray"]:     bash bench/gpu_round446.sh stage
#     call 2, carry [".gpu-wheels"]:  bash bench/gpu_round446.sh rerender \
#         "matmul bfloat16 matmul_skinny" "matmul float16 matmul_skinny" ...
#     call 3, no carry:               bash bench/gpu_round446.sh sweep
# Outcome (2 + 433 + 293 + 527 + 130 s; the second rerender call, ReLU, GELU-tanh, sigmoid and
# tanh, ran before the sweep's results were read, and its zoo verify, which it had no time left
# for, ran in a call of its own: `. bench/gpu_lib.sh; zoo_verify_ops 250 $OUT linear_bias_relu
# ...`): promoted with their params unchanged, matmul 1.12.0/1.13.0 (1.08x/1.12x eager over the
# task's shapes), linear_bias_gelu 1.16.0/1.17.0 (1.47x), linear_bias_silu 1.14.0/1.15.0
# (1.14x/1.16x), linear_bias_relu, _gelu_tanh, _sigmoid and _tanh 1.6.0/1.7.0 (1.09-1.16x); `kzoo
# zoo verify --newest` passed for all seven ops. The sweep (bench/results/matmul-skinny-h200.json,
# linear-skinny-h200-gelu.json, -silu.json; none wrong): ops.matmul 1.078x cuBLAS over its 36
# served rows, none behind (40x4096->14336 level: 32.64 us against 32.64, 32.32 against 32.32),
# 64 rows of 4096->4096 13.8-13.9 against 1.11.0's 13.9-14.1; ops.linear 1.005x the previous
# entries, 1.113x eager, 1.166x torch.compile over 108 rows, 64 rows of 4096->4096 and
# 1000->3000 1.030-1.085x them; behind eager 2 rows (GELU 128x1000->3000, 0.979x and 0.987x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round446
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round446
mkdir -p $R
mode=${1:-}
case $mode in
stage)
    split_bundle_stage_ray
    ;;
rerender)
    shift
    rerender_and_verify 570 $R "$@" || exit 1
    ;;
sweep)
    skinny_sweep $R 1.11.0 1.15.0 1.13.0
    ;;
*) echo "usage: bash bench/gpu_round446.sh stage | rerender \"OP DTYPE [TASK]\"... | sweep" >&2
   exit 2 ;;
esac
# a run returns at most 8 files: the logs and JSONs in one archive (entries.tgz and
# new-entries.txt beside it)
tar czf $OUT/round446-$mode.tgz -C $OUT round446 && rm -rf $R
exit 0
