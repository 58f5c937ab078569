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
    split_bundle_install || exit 1
    mkdir -p $R/rerender
    entries_snapshot
    OUT=$R/rerender bash bench/rerender_entries.sh "$@"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    ops=$(for job in "$@"; do set -- $job; echo $1; done | sort -u)
    zoo_verify_ops 570 $R $ops
    ;;
sweep)
    mkdir -p $R/matmul
    timeout 200 python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous 1.11.0 --out $R/matmul 2>&1 | grep -v -i warn | tail -60
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    for pair in gelu:1.15.0 silu:1.13.0; do
        act=${pair%%:*}
        mkdir -p $R/$act
        timeout 280 python3 bench/linear_skinny.py --activations $act --previous ${pair##*:} \
            --out $R/$act 2>&1 | grep -v -i warn | tail -60
        echo "linear-skinny $act rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    done
    ;;
*) echo "usage: bash bench/gpu_round446.sh stage | rerender \"OP DTYPE [TASK]\"... | sweep" >&2
   exit 2 ;;
esac
# a run returns at most 8 files: the logs and JSONs in one archive (entries.tgz and
# new-entries.txt beside it)
tar czf $OUT/round446-$mode.tgz -C $OUT round446 && rm -rf $R
exit 0
