#!/usr/bin/env bash
# Re-render shipped zoo entries with today's template: for each "OP DTYPE [TASK [FROM]]", the
# newest shipped entry's params for DTYPE go through `kzoo optimize tasks/TASK.py --dtype DTYPE
# --trials 1 --start @params` (TASK: OP where not given or "-"; matmul's entries came from
# matmul_skinny; FROM: the op whose newest entry's params start it, OP where not given: a new op
# of the same template starts from a sibling's, linear_bias_relu from linear_bias_silu's), which
# verifies and re-times them on this GPU and promotes the kernel into kernel_zoo/entries as a new
# version where it beats the best baseline. Each run's --json and log land in $OUT. For a template
# change that alters what a winner's module renders (a companion) without changing its params: GPU
# rounds 282, 286, 301 and 302 (the linear and matmul entries); for a new op: round 307.
#
# KNOBS (a JSON object, optional) overrides params of the start: KNOBS='{"ws_coop": true}' tries
# the warp-specialized kernel's cooperative form with the entry's other params (GPU round 320).
#
#     OUT=DIR KZOO_HOME=DIR bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" ...
set -uo pipefail
: "${OUT:?set OUT to a folder for the results}"
for job in "$@"; do
    set -- $job
    task=${3:-$1}
    [ "$task" = "-" ] && task=$1
    python3 - "${4:-$1}" "$2" > "/tmp/start-$1-$2.json" <<'PY'
import json, os, sys
from kernel_zoo import store
from templates import get_template, params_of
import torch
entry = store.newest_entries(sys.argv[1])[0]
# the config this GPU model is served (its own, else the one promoted last), one bucket per op here
configs = [c for c in entry.manifest["configs"] if c["dtype"] == sys.argv[2]]
gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
cfg = ([c for c in configs if c["device"] == gpu] or configs)[-1]
# complete, as the template reads them: a knob newer than the entry takes the value that kept its
# kernel as it was (LATER_KNOBS), not the bucket start's, which --start fills a missing knob from
# (round 438: SKINNY_DEFAULT's shift_tail refused beside the float16 entry's SPLIT_K of 8)
params = params_of(get_template(cfg["template"]).config(cfg["params"]))
print(json.dumps({**params, **json.loads(os.environ.get("KNOBS") or "{}")}))
PY
    timeout 100 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        "tasks/$task.py" --dtype $2 --trials 1 --start "@/tmp/start-$1-$2.json" \
        --zoo kernel_zoo/entries --json "$OUT/$1-$2.json" > "$OUT/$1-$2.log" 2>&1
    echo "optimize $1 $2 rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/$1-$2.log" | tail -4 | cut -c1-300
done
