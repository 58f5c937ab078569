#!/usr/bin/env bash
# GPU round 65: the composed forward calls its groups' forward directly and reads only the
# parameters it passes on. Host time of the LayerNorm composites again (round 64: 103 and 123 us;
# eager 50 and 42), and linear + LayerNorm with its GEMM reading through pointers instead of two
# host-built descriptors. Then their searches (5 trials).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 bench/host_overhead.py --composed 2>&1 | grep -E "host us/call|wrote"
cp bench/results/host-overhead-h100-composed.json "$OUT/" 2>/dev/null
mkdir -p /tmp/c65
timeout 380 python3 bench/compose.py --tasks linear_layer_norm,layer_norm_gelu --trials 5 --budget 150 \
    --profile --out /tmp/c65 2>&1 | grep -v -i -E "warn|token auth" | tail -8
cp /tmp/c65/compose-h100.json "$OUT/compose-h100-round65.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c65/compose-h100.json"))
seen = set()
for t in d.get("rows", []) + d.get("failures", []):
    if t["task"] in seen:
        continue
    seen.add(t["task"])
    print(t["task"], "kept", json.dumps(t.get("params")))
    for tr in t.get("trial_log", []):
        cells = " ".join("%.1f/%.1f" % (s["ms"] * 1e3, s["eager_ms"] * 1e3)
                         for s in tr.get("shapes", []) if s.get("ms") and s.get("eager_ms"))
        print("  trial", tr["trial"], json.dumps(tr["params"]), "us/eager:", cells, tr["reasons"][:1])
for r in d.get("rows", []):
    p = r.get("profile") or {}
    print(r["task"], r["shape"], "host_us", json.dumps(p.get("host_us")) if isinstance(p, dict) else p)
PY
exit 0
