#!/usr/bin/env bash
# GPU round 61: the composed search now starts from the shipped zoo's configs for each group's op
# and tries the known picks before random draws. The two LayerNorm composites (linear + LayerNorm,
# LayerNorm + GELU) searched again, five trials each, every trial's per-shape times recorded.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/c61
timeout 420 python3 bench/compose.py --tasks linear_layer_norm,layer_norm_gelu --trials 5 --budget 150 \
    --profile --out /tmp/c61 2>&1 | grep -v -i -E "warn|token auth" | tail -8
cp /tmp/c61/compose-h100.json "$OUT/compose-h100-round61.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c61/compose-h100.json"))
seen = set()
for t in d.get("rows", []) + d.get("failures", []):
    if t["task"] in seen:
        continue
    seen.add(t["task"])
    print(t["task"], "kept", json.dumps(t.get("params")))
    for tr in t.get("trial_log", []):
        cells = " ".join("%.1f/%.1f" % (s["ms"] * 1e3, s["eager_ms"] * 1e3)
                         for s in tr.get("shapes", []) if s.get("ms") and s.get("eager_ms"))
        print("  trial", tr["trial"], json.dumps(tr["params"]), "score", tr["score"], "us/eager:", cells,
              tr["reasons"][:1])
for r in d.get("rows", []):
    print(r["task"], r["shape"], "profile", json.dumps(r.get("profile"))[:400])
PY
exit 0
