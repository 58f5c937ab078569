#!/usr/bin/env bash
# GPU round 444 (H200; 2026-11-30): what ops.matmul and ops.linear serve at 1-128 rows after round
# 443's re-render (SKINNY_NARROW_PAIR at 33-63 rows), 40 and 48 rows now among bench/
# linear_skinny.py's row counts: matmul beside 1.9.0, GELU beside linear_bias_gelu 1.13.0, SiLU
# beside linear_bias_silu 1.11.0, each with eager, torch.compile and cuBLAS, both 16-bit dtypes;
# and 64-row calls beside SKINNY_NARROW_PAIR's tiles (bench/gemm.py --configs). Two calls, no
# carry, round 443's entries extracted into the tree first:
#     bash bench/gpu_round444.sh matmul
#     bash bench/gpu_round444.sh linear
# Outcome: (filled in after the run)
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round444
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round444
case ${1:-} in
matmul)
    mkdir -p $R/matmul $R/configs
    timeout 300 python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous 1.9.0 --out $R/matmul 2>&1 | grep -v -i warn | tail -60
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    # 64 rows of 4096 -> 4096 and 64-128 of 1000 -> 3000: SKINNY_NARROW_PAIR's two 32-row tile
    # rows (and 32x128 ones, shifted) beside SKINNY_DEFAULT's one, which serves them (evidence;
    # nothing promoted)
    cases=skinny_64x4096x4096,skinny_64x3000x1000,skinny_128x3000x1000
    cases=$cases,linear_bias_gelu_64x3000x1000,linear_bias_gelu_100x3000x1000
    cases=$cases,linear_bias_gelu_128x3000x1000,linear_bias_silu_64x4096x4096
    timeout 150 python3 bench/gemm.py --configs --graphs --cases $cases \
        --candidates bench/gemm-skinny-64-pair-candidates.json --out $R/configs 2>&1 \
        | grep -v -i warn | grep -v "^  " | tail -24
    echo "configs after $(( $(date +%s) - start )) s"
    ;;
linear)
    for pair in gelu:1.13.0 silu:1.11.0; do
        act=${pair%%:*}
        mkdir -p $R/$act
        timeout 280 python3 bench/linear_skinny.py --activations $act --previous ${pair##*:} \
            --out $R/$act 2>&1 | grep -v -i warn | tail -60
        echo "linear-skinny $act rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    done
    ;;
*) echo "usage: bash bench/gpu_round444.sh matmul | linear" >&2; exit 2 ;;
esac
exit 0
