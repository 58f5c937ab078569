#!/usr/bin/env bash
# GPU round 91: the norms' buckets that run eager PyTorch today (each norm's 1000-wide rows),
# tuned under round 90's promotion rule, --only-uncovered; then round 90's reduction entries
# re-verified by `kzoo sweep` (no new trials). bfloat16; the entries come back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 420 python3 bench/tune_buckets.py --ops rms_norm,layer_norm,add_rms_norm --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --only-uncovered --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -20
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
# round 90's entries as a nightly sweep meets them: sha256, the verifier, fresh baselines
export KZOO_HOME=/tmp/kzoo-round91
timeout 170 python3 -m agent sweep --ops sum,mean,amax,amin --trials-per-op 0 --zoo kernel_zoo/entries \
    --report "$OUT/sweep-reductions" --json "$OUT/sweep-reductions.json" 2>&1 | grep -v -i warn | tail -25
echo "sweep exit: ${PIPESTATUS[0]}"
exit 0
