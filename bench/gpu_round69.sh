#!/usr/bin/env bash
# GPU round 69: the GEMM's single_wave_tiled companion (calls one wave of the persistent grid
# covers run TILED's kernels), now in the second start of every GEMM search (before TILED). Its
# test and the other companions' on the GPU, then the four Linear+epilogue tasks searched and
# timed (3 trials each, as round 67).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m pytest -v -p no:cacheprovider tests/test_gemm.py -m "gpu or not gpu" \
    -k "one_wave or odd_companion or skinny_companion or split_k_is_correct" 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -12
mkdir -p /tmp/c69
timeout 380 python3 bench/compose.py --tasks linear_bias_gelu,linear_bias_silu,linear_residual,linear_layer_norm \
    --trials 3 --budget 35 --profile --out /tmp/c69 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c69/compose-h100.json "$OUT/compose-h100-round69.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c69/compose-h100.json"))
seen = set()
for t in d.get("rows", []) + d.get("failures", []):
    if t["task"] in seen:
        continue
    seen.add(t["task"])
    print(t["task"], "kept", json.dumps(t.get("params"))[:220])
    for tr in t.get("trial_log", []):
        cells = " ".join("%.1f/%.1f" % (s["ms"] * 1e3, s["eager_ms"] * 1e3)
                         for s in tr.get("shapes", []) if s.get("ms") and s.get("eager_ms"))
        print("  trial", tr["trial"], "us/eager:", cells, tr["reasons"][:1])
for r in d.get("rows", []):
    p = r.get("profile") or {}
    if isinstance(p, dict):
        print(r["task"], r["shape"], json.dumps(p.get("kernels_us", {}).get("composed"))[:300], "host", p.get("host_us"))
PY
exit 0
