#!/usr/bin/env bash
# GPU round 278 (H100): `kzoo optimize tasks/attention_relpos.py` again, bfloat16 then float16,
# 2 trials each, promoting into kernel_zoo/entries: the shipped attention_relpos 1.2.0 is round
# 259's render (its warp-specialized path took multiples of 128 only and had no recorded
# launches); today's render takes any length on that path and records its launches.
# Outcome (2026-11-25): DEFAULT (ws, turns) promoted as attention_relpos 1.3.0 (bfloat16, 4.90x
# torch.compile over the task's shapes) and 1.4.0 (float16, 5.21x); 1.1.0/1.2.0 had 4.64x/4.57x.
# bench/results/runs/optimize-attention-relpos-*-h100-round278.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round278
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for dt in bfloat16 float16; do
    timeout 280 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/attention_relpos.py --dtype $dt --trials 2 --time-budget 60 \
        --zoo kernel_zoo/entries --json "$OUT/relpos-$dt.json" > "$OUT/relpos-$dt.log" 2>&1
    echo "optimize $dt rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/relpos-$dt.log" | tail -6 | cut -c1-300
done
ls kernel_zoo/entries/attention_relpos
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/attention_relpos
exit 0
