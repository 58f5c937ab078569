#!/usr/bin/env bash
# GPU round 259 (H100): round 258's `kzoo optimize tasks/attention_relpos.py` again, with time to
# finish: there each dtype's 3 trials took 131 s (best 4.64x the best baseline in bfloat16), and
# the winner's fresh-process re-timing had not ended at the 170 s limit. Same KZOO_HOME: a warm
# machine resumes the studies.
# Outcome (2026-11-25): the warm machine resumed both studies; trial 0 (DEFAULT: ws, turns) won
# both, 4.64x (bfloat16) and 4.57x (float16) torch.compile over the task's shapes, 0.852 and
# 0.857 ms at 4x16x4096x128 against 1.0.0's 1.151; promoted as attention_relpos 1.1.0 and 1.2.0.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round258
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for dt in bfloat16 float16; do
    timeout 275 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/attention_relpos.py --dtype $dt --trials 3 --time-budget 100 \
        --zoo kernel_zoo/entries --json "$OUT/relpos-$dt.json" > "$OUT/relpos-$dt.log" 2>&1
    echo "optimize $dt rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/relpos-$dt.log" | tail -8
done
ls kernel_zoo/entries/attention_relpos
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/attention_relpos
exit 0
