#!/usr/bin/env bash
# GPU round 114: argmax re-tuned per bucket (round 113: packed_keys 1.02-1.09x faster for argmax;
# amax left to round 117, where packed_keys did not help) with bench/tune_buckets.py, whose reduce variants now include
# packed_keys and whose candidates now include the configs the zoo serves (re-rendered today), so a
# bucket changes hands only to a faster config. Targets: argmax over 1000-wide rows (0.89x
# torch.compile in round 104; no config reached 0.95x in round 111) and amax over 8192-wide rows
# (0.94x; its cols_le_16384 config, align_rows off, also loads the 4097-wide rows 2 bytes at a time
# compiled for sm_90). Promoted under the usual rule (faster than eager at its bucket's shapes, at
# least 0.95x torch.compile). bfloat16. Round 117 does the same for amin and mean.
# Outcome: (not yet run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 \
    --samples 4 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -16
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax
exit 0
