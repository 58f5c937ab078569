#!/usr/bin/env bash
# GPU round 118: the entries of rounds 114 (argmax 1.3.0, 1.4.0) and 116 (cross_entropy 1.2.0)
# against the ones they replace, in one run: bench/memory_bound.py --graphs for argmax and
# cross_entropy with the new entries, then with them moved aside (so 1.2.0 and 1.1.0 serve).
# Needed because both promotions' verifier verdicts come from the default timer, where torch.compile's
# and the zoo's host time show at the small shapes (cross_entropy 1.2.0 recorded 72 and 65 us at
# 1024x32000 and 64x128256, 1.1.0 34 and 19).
# Outcome (runs/memory-bound-h100-round118-{new,old}-graphs.json, graph replays, GB/s new / old):
# cross_entropy 4099x50257 2336 / 2264 (0.77 / 0.75 of copy), the other three shapes within 0.7%;
# argmax 4096x4097 1598 / 1239 (+29%, cols_le_16384 with align_rows on), 8192x8192 rows 2438 / 2364,
# 4099x1000 835 / 830 (0.96x / 0.94x torch.compile); the inner_dim shapes run the same file in both
# (carried byte for byte) and read 3-5% apart: the run-to-run spread. All kept.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rnd in new old; do
    if [ "$rnd" = old ]; then
        mkdir -p /tmp/aside/argmax /tmp/aside/cross_entropy
        mv kernel_zoo/entries/cross_entropy/1.2.0 /tmp/aside/cross_entropy/
        mv kernel_zoo/entries/argmax/1.3.0 kernel_zoo/entries/argmax/1.4.0 /tmp/aside/argmax/
    fi
    echo "== $rnd"
    timeout 250 python3 bench/memory_bound.py --ops cross_entropy,argmax --dtypes bfloat16 \
        --graphs --out "$OUT/$rnd" 2>&1 | grep -v -i warn | grep -E "cross|argmax|copy" | head -16
done
exit 0
