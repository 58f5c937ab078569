#!/usr/bin/env bash
# GPU round 114: argmax re-tuned per bucket (round 113: packed_keys 1.02-1.09x faster for argmax;
# amax left to round 117, where packed_keys did not help) with bench/tune_buckets.py, whose reduce variants now include
# packed_keys and whose candidates now include the configs the zoo serves (re-rendered today), so a
# bucket changes hands only to a faster config. Targets: argmax over 1000-wide rows (0.89x
# torch.compile in round 104; no config reached 0.95x in round 111) and amax over 8192-wide rows
# (0.94x; its cols_le_16384 config, align_rows off, also loads the 4097-wide rows 2 bytes at a time
# compiled for sm_90). Promoted under the usual rule (faster than eager at its bucket's shapes, at
# least 0.95x torch.compile). bfloat16. Round 117 does the same for amin and mean.
# Outcome (runs/tune-buckets-h100-round114.json; entries argmax 1.3.0, 1.4.0): promoted
# cols_le_1024 (packed_keys on: verifier 9.0 us against eager's 12.8) and cols_le_16384 (align_rows on,
# packed off: 20.3 us at 4096x4097, 55.1 at 8192x8192; eager 30.3 and 123.9). The verifier's default
# timer put torch.compile at 36-45 us at 4099x1000 (host time; 9.2 us in round 113's graph replays),
# so its "4.04x compile" is not a GPU-time ratio. inner_dim: not promoted (0.89x eager at a shape).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 \
    --samples 4 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -16
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax
exit 0
