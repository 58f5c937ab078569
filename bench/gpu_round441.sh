#!/usr/bin/env bash
# GPU round 441 (H200; 2026-11-29): what ops.linear serves at 1-128 rows after round 440's
# re-render (bench/linear_skinny.py: GELU beside linear_bias_gelu 1.11.0, SiLU beside
# linear_bias_silu 1.9.0, eager, torch.compile and cuBLAS's F.linear, both 16-bit dtypes), one run
# per activation, as --previous names one version.
#     device run, no carry:  bash bench/gpu_round441.sh
# Outcome (124 + 98 s; bench/results/linear-skinny-h200-gelu.json, -silu.json, runs/linear-skinny-
# h200-gelu-round441.json and -silu-round441.json since round 444): 84 rows, none wrong, every
# call the entry's: 1.048x the previous entries, 1.117x eager, 1.165x torch.compile;
# 17-128 rows vs the previous entries 1.07x at 4096->4096, 1.09x at 4096->14336 (24-32 rows 33.0-
# 33.8 us against 38.2-40.2), 1.03x at 1000->3000. Behind eager: 6 GELU rows, 64-128 rows of
# 1000->3000 (0.969-0.997x) and float16 100x4096->14336 (0.996x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round441
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round441
for pair in gelu:1.11.0 silu:1.9.0; do
    act=${pair%%:*}
    mkdir -p $R/$act
    timeout 280 python3 bench/linear_skinny.py --activations $act --previous ${pair##*:} \
        --out $R/$act 2>&1 | grep -v -i warn | tail -48
    echo "linear-skinny $act rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
exit 0
