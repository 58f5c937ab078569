#!/usr/bin/env bash
# GPU round 142 (H100): cross-entropy's flat spans (`flat_per_sm`): each program streams an equal
# span of the contiguous logits as one run of full tiles across row ends, where the row kernel's
# programs each drained their pipeline at their row's end (4099x50257 read at 0.85 of copy in
# round 139, against 0.97 for 4096x128256's 2.5x longer rows). The GPU tests (the flat config
# through the verifier at every GPU shape and dtype), then rows_gt_1024's bucket sweep with the
# flat variants beside the served configs.
# Outcome (runs/tune-buckets-h100-round142-cross-entropy.json): 2 cross-entropy GPU tests passed
# (the flat config through the verifier at every GPU shape and dtype). Every flat variant lost:
# the best took 4096x128256 and 4099x50257 in 410.9/202.5 us against the served 337.8/149.3;
# nothing promoted.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed|Error" | tail -5
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 400 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets rows_gt_1024 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
fi
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.json"):
    data = json.load(open(path))
    for result in data.get("results", []):
        rows = sorted((r for r in result["configs"] if all(r["ms"])), key=lambda r: sum(r["ms"]))
        for r in rows[:12]:
            p = r["params"]
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p[k] for k in ("block", "warps", "num_stages", "flat_per_sm", "split_per_sm")})
PY
exit 0
