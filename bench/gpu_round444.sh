#!/usr/bin/env bash
# GPU round 444 (H200; 2026-11-30): what ops.matmul and ops.linear serve at 1-128 rows after round
# 443's re-render (SKINNY_NARROW_PAIR at 33-63 rows), 40 and 48 rows now among bench/
# linear_skinny.py's row counts: matmul beside 1.9.0, GELU beside linear_bias_gelu 1.13.0, SiLU
# beside linear_bias_silu 1.11.0, each with eager, torch.compile and cuBLAS, both 16-bit dtypes;
# and 64-row calls beside SKINNY_NARROW_PAIR's tiles (bench/gemm.py --configs). Two calls, no
# carry, round 443's entries extracted into the tree first:
#     bash bench/gpu_round444.sh matmul
#     bash bench/gpu_round444.sh linear
# Outcome (95 + 272 s; bench/results/matmul-skinny-h200.json, linear-skinny-h200-gelu.json,
# -silu.json, runs/gemm-configs-h200-graphs-round444-skinny-64-pair.json; none wrong):
# - ops.matmul serves 36 of the 54 rows (not 1000 -> 3000, as before): 1.074x cuBLAS over them,
#   one at 0.9995x (bfloat16 40x4096->14336, SKINNY_WIDE's as before: 32.91 against 32.90 us).
#   40 and 48 rows of 4096->4096, SKINNY_NARROW_PAIR's now: 1.179x / 1.027x the previous entry
#   in bfloat16 and 1.185x / 1.033x in float16 (float16 40 rows 14.0 us against 16.6, cuBLAS
#   16.6); the other served rows 0.98-1.02x it (1.001x over them).
# - GELU: 1.087x eager, 1.145x torch.compile, 1.008x the previous entries over 54 rows; 40 and 48
#   rows of 4096->4096 1.057-1.147x them, of 1000->3000 0.980-1.042x. Behind eager: 100 and 128
#   rows of 1000->3000 (0.972-0.987x; 64 rows there and float16 100x4096->14336 no longer are).
# - SiLU: 1.129x eager, 1.175x torch.compile, 1.005x the previous entries, none behind eager; 40
#   and 48 rows of 4096->4096 1.039-1.118x them, of 1000->3000 0.948-1.016x (bfloat16 40 rows
#   10.5 us against 10.0).
# - 64 rows, two 32-row tile rows against SKINNY_DEFAULT's one (served): silu(linear) 64x4096->
#   4096 15.5 against 15.9 us, gelu(linear) 64x1000->3000 10.6 against 11.3, matmul 64x4096->4096
#   14.0 against 14.2 (cuBLAS 14.3), 64x1000->3000 9.2 against 9.3; at 100-128 rows of 1000->3000
#   32x128 tiles shifted 12.0-12.2 against 12.2-12.5 (GELU). Not routed: the entries were rendered
#   before this run.
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
