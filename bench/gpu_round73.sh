#!/usr/bin/env bash
# GPU round 73: verdicts now record each shape's host time per call, the candidate's and eager's
# (and the LLM's feedback names a host-bound shape). The GPU verify test that checks them and the
# verifier's GPU tests; then the two LayerNorm composites searched (3 trials) to see the host
# times beside the timings.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py tests/test_verifier.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -16
mkdir -p /tmp/c73
timeout 250 python3 bench/compose.py --tasks linear_layer_norm,layer_norm_gelu --trials 3 --budget 35 \
    --out /tmp/c73 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c73/compose-h100.json "$OUT/compose-h100-round73.json"
python3 - <<'PY'
import json
d = json.load(open("/tmp/c73/compose-h100.json"))
for r in d["rows"]:
    print(r["task"], r["shape"], "ms", round(r["ms"] * 1e3, 1), "eager", round(r["eager_ms"] * 1e3, 1),
          "host us", r.get("host_us"), "eager host us", r.get("eager_host_us"))
PY
exit 0
