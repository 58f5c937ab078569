#!/usr/bin/env bash
# GPU round 155 (H100): cross-entropy's row kernel with lanes of one 16-byte vector each
# (`vector_max`: the vector's max first, then one exp2 and one add an element) on the served
# configs of both row buckets, and the column argmax (inner_dim) with fewer lanes a thread and
# split 128-column blocks, beside what serves them. GPU tests of cross-entropy first.
# Outcome (runs/tune-buckets-h100-round155-cross-entropy.json, -argmax.json): 5 GPU tests passed
# (vector_max through the verifier at every GPU shape and dtype). vector_max took 4099x50257
# from the served 143.4 to 136.1-136.4 us and 4096x128256 from 336.7 to 332.4-334.5; promoted
# cross_entropy 1.7.0 (rows_gt_1024: 4096-wide tiles) and 1.8.0 (rows_le_1024: 2048-wide tiles
# of 4 warps with pdl, 31.2/15.7 -> 27.9/13.3 us). Argmax: 2048-element tiles of 4 warps took
# 93.2 us at 32x4096x1024 (served 98.0) but 69.8 against 54.7 at 8192x8192 unsplit: kept.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round155
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PER_FILE_S=120 bash bench/gpu_tests.sh tests/test_cross_entropy.py
grep -E "FAILED|Error" "$OUT/gpu-tests/test_cross_entropy.txt" | head -5
for op in cross_entropy argmax; do
    before=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    if [ "$op" = cross_entropy ]; then buckets=rows_gt_1024,rows_le_1024; else buckets=inner_dim; fi
    timeout 200 python3 bench/tune_buckets.py --ops $op --dtypes bfloat16 --graphs \
        --samples 0 --jobs 14 --buckets $buckets --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
    after=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    [ "$after" != "$before" ] && tar czf "$OUT/entries-$op.tgz" -C kernel_zoo entries/$op
done
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/tune-buckets-*.json")):
    for result in json.load(open(path)).get("results", []):
        print(result.get("op"), result.get("shapes"))
        for i in range(len(result["configs"][0]["ms"])):
            rows = sorted((r for r in result["configs"] if r["ms"][i]), key=lambda r: r["ms"][i])
            for r in rows[:4]:
                p = r["params"]
                keys = ("block", "warps", "num_stages", "row_align", "pdl", "vector_max",
                        "col_block_inner", "col_tile_elems", "col_warps", "split_per_sm")
                print(i, " ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                      {k: p.get(k) for k in keys if k in p})
PY
exit 0
