#!/usr/bin/env bash
# On the GPU machine, from the repository root: `kzoo sweep` over the shipped zoo within a time
# budget. It sweeps a copy of kernel_zoo/entries (promotions land in the copy, never in the shipped
# zoo) and writes report.md, report.html, summary.json, the PNG plots, the sweep state and the
# history of these benchmark sweeps to bench/results/sweep-<device>/ (and $OUT when set).
#   TRIALS=8 BUDGET=420 bash bench/sweep_gpu.sh        # fits a 10-minute call
#   RESUME=1 bash bench/sweep_gpu.sh                    # finish a sweep that was cut off
set -uo pipefail
dev=$(python3 -c "from verifier.environment import device_label; print(device_label())")
report=bench/results/sweep-$dev
export KZOO_HOME=${KZOO_HOME:-/tmp/kzoo-sweep-bench}
mkdir -p "$KZOO_HOME" "$report"
fresh=--fresh
if [ "${RESUME:-0}" = 1 ] && [ -d "$KZOO_HOME/zoo-copy" ]; then
    fresh=
else
    rm -rf "$KZOO_HOME/zoo-copy" "$KZOO_HOME/studies.db"
    cp -r kernel_zoo/entries "$KZOO_HOME/zoo-copy"
fi
start=$(date +%s)
python3 -m agent sweep --all --zoo "$KZOO_HOME/zoo-copy" --trials-per-op "${TRIALS:-8}" \
    --time-budget "${BUDGET:-420}" --report "$report" --history "$report/history.jsonl" \
    --seed 0 $fresh
code=$?
echo "kzoo sweep exit $code after $(( $(date +%s) - start )) s (budget ${BUDGET:-420} s)"
rm -f "$report/.sweep.lock"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT" && cp -r "$report" "$OUT/"
fi
exit $code
