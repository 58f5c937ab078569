#!/usr/bin/env bash
# GPU round 89: LayerNorm + GELU now plans as one norm kernel with a GELU epilogue (one read and
# one write of the rows, where the composite read and wrote them twice). kzoo optimize on it
# (3 trials) beside eager and torch.compile, host times beside.
set -uo pipefail
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c89
timeout 300 python3 bench/compose.py --tasks layer_norm_gelu --trials 3 --budget 35 \
    --out /tmp/c89 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c89/compose-h100.json "$OUT/compose-h100-round89.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c89/compose-h100.json"))
for r in d["rows"]:
    print(r["task"], r["shape"], r["family"], "ms", round(r["ms"] * 1e3, 1), "eager",
          round(r["eager_ms"] * 1e3, 1), "compile", round(r["compile_ms"] * 1e3, 1),
          "host us", r.get("host_us"), "eager host us", r.get("eager_host_us"))
PY
exit 0
