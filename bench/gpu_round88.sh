#!/usr/bin/env bash
# GPU round 88: the two LayerNorm composites (#5's small-shape losses) searched again (3 trials)
# under the discard flush, which runs about 115 us on the GPU against the zeroing flush's 81, so
# the timer hides more of a call's host time; host times beside.
set -uo pipefail
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c88
timeout 400 python3 bench/compose.py --tasks linear_layer_norm,layer_norm_gelu --trials 3 --budget 35 \
    --out /tmp/c88 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c88/compose-h100.json "$OUT/compose-h100-round88.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c88/compose-h100.json"))
for r in d["rows"]:
    print(r["task"], r["shape"], "ms", round(r["ms"] * 1e3, 1), "eager", round(r["eager_ms"] * 1e3, 1),
          "compile", round(r["compile_ms"] * 1e3, 1), "host us", r.get("host_us"),
          "eager host us", r.get("eager_host_us"))
PY
exit 0
