#!/usr/bin/env bash
# On the GPU machine, from the repository root: tune softmax for each dtype, promote winners into the
# shipped zoo (kernel_zoo/entries), then benchmark the zoo against eager and torch.compile.
#   TRIALS=40 BUDGET=140 DTYPES="bfloat16 float32" bash bench/tune_softmax.sh
set -euo pipefail
export KZOO_HOME=${KZOO_HOME:-/tmp/kzoo-tune}
out=${OUT:-/tmp/kzoo-out}
mkdir -p "$out"
for dt in ${DTYPES:-bfloat16 float32}; do
    python3 -m agent optimize tasks/softmax.py --dtype "$dt" --trials "${TRIALS:-40}" \
        --time-budget "${BUDGET:-140}" --zoo kernel_zoo/entries --seed 0 --json "$out/optimize-$dt.json" \
        || echo "optimize $dt exited $?"
done
python3 bench/softmax.py --dtypes "$(echo ${DTYPES:-bfloat16 float32} | tr ' ' ',')"
tar czf "$out/zoo-entries.tgz" kernel_zoo/entries
cp bench/results/softmax-*.json "$out/"
