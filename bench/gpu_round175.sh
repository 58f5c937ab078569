#!/usr/bin/env bash
# GPU round 175 (H100): host time per call of linear + LayerNorm's one-template plan
# (bench/host_overhead.py --composed, now with the seeds' companions too). Round 174's composed
# search (bench/compose.py) timed its winner at 1000x1024->3000 at 0.444x eager by the verifier's
# timer (56.4 us against 25.1), while its kernels took 15.4 + 5.4 us against eager's 15.8 + 9.8:
# the host (130 us a call by compose's profile, eager 72) outlasts the L2 flush the timer queues
# before each call.
# Outcome (runs/host-overhead-h100-composed-round175.json): host us a call 130 (DEFAULT), 88
# (pointers), 171 (with the companions) against eager's 40-58; the verifier's timer 52.7, 25.7
# and 69.9 us against eager's 25.1.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round175
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 200 python3 bench/host_overhead.py --composed > "$OUT/host-overhead.txt" 2>&1
echo "exit $?"
cp bench/results/host-overhead-*-composed.json "$OUT/" 2>/dev/null
grep -v -i warn "$OUT/host-overhead.txt" | head -120
exit 0
