#!/usr/bin/env bash
# GPU round 111: argmax over 1000-wide rows (0.89x torch.compile in round 104) is served by argmax's
# `any` config (1.0.0's), since its entry has no `cols_le_1024` config. That bucket tuned with
# bench/tune_buckets.py --only-uncovered (10 random configs besides the variants), promoted under
# the usual rule (faster than eager at its shapes, at least 0.95x torch.compile). bfloat16.
# Outcome: no config promoted: the best took 10.0 us at 4099x1000 against torch.compile's 8.2 and
# eager's 12.7 (0.82x compile; runs/tune-buckets-h100-20261123-093745.json). The `any` config serves it.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 480 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 \
    --samples 10 --jobs 14 --zoo kernel_zoo/entries --only-uncovered --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -12
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax
exit 0
