#!/usr/bin/env bash
# GPU round 60. (1) The _model.jinja macros of the last refactor (one _run, _record, _sm_count)
# compiled: the tail, launch-cache and GEMM GPU tests, each result printed as it comes. (2) Why the
# linear + LayerNorm search of round 59 kept a slow trial: its search again, with every trial's
# params, score and reasons recorded (trial_log). (3) Split-K at wider tiles for M = 128 (the
# template's constraints prune split-K over 128x128 tiles: --unconstrained times them too).
# (4) A longer sweep of reduce configs for sum (bench/tune_reduce.py).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 170 python3 -m pytest -v -p no:cacheprovider tests/test_tail.py tests/test_launch_cache.py \
    -m "gpu or not gpu" -k "not interpreter" 2>&1 | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -40
timeout 120 python3 -m pytest -v -p no:cacheprovider tests/test_gemm.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -30
mkdir -p /tmp/g60 /tmp/c60 /tmp/r60
timeout 90 python3 bench/gemm.py --configs --cases skinny_128x4096x4096 \
    --candidates bench/skinny-split-candidates.json --unconstrained --out /tmp/g60 2>&1 | tail -4
python3 - <<'PY'
import json
d = json.load(open("/tmp/g60/gemm-configs-h100.json"))
for row in d["rows"]:
    print(row["case"], "cublas us", round(row.get("cublas_ms", 0) * 1e3, 1))
    for e in row["configs"]:
        c = e["config"]
        print("  %3d %3d %3d sk%d w%d st%d" % (c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["SPLIT_K"],
              c["num_warps"], c["num_stages"]), round(e["ms"] * 1e3, 1) if "ms" in e else e.get("error", "-")[:80])
PY
cp /tmp/g60/gemm-configs-h100.json "$OUT/gemm-configs-h100-skinny-round60.json"
timeout 130 python3 bench/compose.py --tasks linear_layer_norm --trials 3 --budget 60 --profile \
    --out /tmp/c60 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c60/compose-h100.json "$OUT/compose-h100-round60.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c60/compose-h100.json"))
seen = set()
for t in d.get("rows", []) + d.get("failures", []):
    if t["task"] in seen:
        continue
    seen.add(t["task"])
    print(t["task"], "params", json.dumps(t.get("params"))[:300])
    for tr in t.get("trial_log", []):
        print(" ", json.dumps(tr)[:700])
PY
timeout 150 python3 bench/tune_reduce.py --ops sum --samples 24 --seed 60 --out /tmp/r60 2>&1 | tail -14
cp /tmp/r60/*.json "$OUT/" 2>/dev/null
exit 0
