#!/usr/bin/env bash
# Quick GPU check of the spine: render the default softmax config, verify it with timing, then a
# short search without promotion. Run on the device machine from the repository root.
set -euo pipefail
export KZOO_HOME=${KZOO_HOME:-/tmp/kzoo-smoke}
python3 - <<'PY'
from templates import get_template
t = get_template("softmax")
open("/tmp/default_softmax.py", "w").write(t.render(t.default, dim=1, dim_is_last=True))
PY
python3 -m agent verify --task tasks/softmax.py --candidate /tmp/default_softmax.py --dtype bfloat16 \
    --json "${OUT:-/tmp}/verify-default-bf16.json" || true
python3 -m agent optimize tasks/softmax.py --dtype bfloat16 --trials "${SMOKE_TRIALS:-4}" --no-promote \
    --json "${OUT:-/tmp}/optimize-smoke.json"
