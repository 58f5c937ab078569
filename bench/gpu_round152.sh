#!/usr/bin/env bash
# GPU round 152 (H100): cross-entropy's misaligned rows now take the elements before their
# aligned body and after its last full line into the lanes' running (max, sum) from one masked
# tile issued before the stream, where they had a load and two reductions of their own after it
# (sm_90: 16 shuffles and 6 barriers against 30 and 10, 32 registers either way). The stored
# rows_gt_1024 file (1.6.0) against today's render of its params; a promoted config is checked
# by `kzoo zoo verify` at every GPU shape of the task, then the table again.
# Outcome (runs/tune-buckets-h100-round152-cross-entropy.json): 3 GPU tests passed. Today's render
# of 1.6.0's params took 336.8/142.4 us against the stored file's 336.7/143.5: under the sweep's 1%
# rule, nothing promoted; the template keeps the change.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round152
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 90 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed|Error" | tail -5
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 200 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets rows_gt_1024 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
    timeout 75 python3 -m agent zoo verify cross_entropy --version "$after" --dtype bfloat16 \
        --bucket rows_gt_1024 --json > "$OUT/zoo-verify.json" 2> "$OUT/zoo-verify.log"
    echo "verify $after: exit $?"; grep -v -i warn "$OUT/zoo-verify.log" | tail -2
    timeout 260 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
    grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -10
    grep -E "^cross_entropy" "$OUT/memory-bound-graphs.txt"
fi
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/tune-buckets-*.json"):
    for result in json.load(open(path)).get("results", []):
        rows = sorted((r for r in result["configs"] if all(r["ms"])), key=lambda r: r["ms"][1])
        for r in rows[:6]:
            p = r["params"]
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p[k] for k in ("block", "warps", "num_stages", "row_align", "final_block")})
PY
exit 0
