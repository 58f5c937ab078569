#!/usr/bin/env bash
# GPU round 116 (prepared, not yet run): cross-entropy at 4099x50257 reads 0.75 of the copy
# bandwidth (round 104). Compiled for sm_90 offline, the shipped 1.1.0 kernel (align_rows=False)
# loads that odd-width vocabulary 2 bytes at a time (34 scalar loads, no cp.async), while the same
# params with align_rows=True load its aligned body 16 bytes at a time through 8 cp.async, and
# launch identically at the aligned vocabularies (128256, 32000). `kzoo optimize` starts from
# 1.1.0's params with align_rows on (`--start`), searches 12 trials, and promotes a winner faster
# than eager and torch.compile into kernel_zoo/entries; `kzoo zoo verify` then times what serves.
# Outcome (runs/optimize-cross-entropy-h100-round116.json): promoted cross_entropy 1.2.0 (trial 14:
# 1.1.0's params with align_rows on and final_block 1024); correct at every GPU shape (zoo verify).
# Its verifier verdict (default timer) reads 72 and 65 us at 1024x32000 and 64x128256, host time:
# round 118 compares it with 1.1.0 in graph replays (4099x50257 0.77 against 0.75 of copy, the
# rest within 0.7%).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round116
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 420 python3 -m agent optimize tasks/cross_entropy.py --dtype bfloat16 --trials 12 \
    --start '{"block": 1024, "warps": 2, "num_stages": 4, "split_per_sm": 4, "align_rows": true, "evict_first": false, "final_block": 4096, "final_warps": 4}' \
    --zoo kernel_zoo/entries --json "$OUT/optimize-cross-entropy.json" 2>&1 | grep -v -i warn | tail -20
timeout 150 python3 -m agent zoo verify cross_entropy --dtype bfloat16 --zoo kernel_zoo/entries \
    --json > "$OUT/zoo-verify-cross-entropy.json" 2> "$OUT/zoo-verify-cross-entropy.log"
tail -5 "$OUT/zoo-verify-cross-entropy.log"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
exit 0
