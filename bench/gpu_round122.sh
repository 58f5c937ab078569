#!/usr/bin/env bash
# GPU round 122: (1) the norms' cols_le_16384 bucket with persist_full_rows giving full rows the
# plain one-pass kernel (round 121: a one-step persistent walk kept 16384x8192 at 190 us against
# the plain kernel's 175.6); (2) sum over the middle dim (inner_dim: 0.88x torch.compile at
# 4x4099x1000 in round 121) and argmax over 1000-wide rows (cols_le_1024, 0.91x), by graph
# replays; (3) the whole memory-bound table again with what is promoted.
# Outcome: ran on an H200 (no H100 was lent for it; runs/*-h200-round122-*.json). RMSNorm's bucket
# went to 32 per thread, 8 per SM with full rows on the plain kernel (34.9 / 130.4 us against the
# stored 35.1 / 152.6 at 4096x4097 / 16384x8192; torch.compile 41.3 / 125.2): rms_norm 1.9.0.
# sum's inner_dim went to mean's column config (16.5 against 22.8 us at 4x4099x1000): sum 1.4.0.
# LayerNorm's plain-kernel variant gained 1.6% at 16384x8192, under the 1% bucket-mean bar; argmax
# at 4099x1000: nothing reached 0.95x torch.compile (9.5 against 8.6 us). Both promotions were
# checked on an H100 in round 123 before they were kept. The H200 table: 1.227x torch.compile.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tune() {
    timeout "$1" python3 bench/tune_buckets.py --dtypes bfloat16 --graphs --samples 4 --jobs 14 \
        --zoo kernel_zoo/entries --out "$OUT" "${@:2}" 2>&1 | grep -v -i warn \
        | grep -v "^  [0-9]* of" | tail -12
}
tune 150 --ops rms_norm,layer_norm --buckets cols_le_16384
tune 100 --ops sum --buckets inner_dim
tune 80 --ops argmax --buckets cols_le_1024
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/rms_norm entries/layer_norm entries/sum \
    entries/argmax
timeout 240 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
exit 0
