#!/usr/bin/env bash
# GPU round 102: the norms' 1000-wide bucket (which runs eager PyTorch today: round 91's best
# LayerNorm kernel was 0.87x torch.compile there) tuned again now that those rows get 16-byte
# loads, under the same promotion rule, --only-uncovered. bfloat16; entries come back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/tune_buckets.py --ops rms_norm,layer_norm,add_rms_norm --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --only-uncovered --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -24
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
