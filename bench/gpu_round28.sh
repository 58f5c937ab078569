#!/usr/bin/env bash
# GPU round 28: the softmax template's one-pass column kernel (a reduced dim of up to TILE_ELEMS/16
# elements read once and written once): its GPU contract rows, then `kzoo optimize` of the two
# dim-1 tasks (inner_dim bucket), each winner promoted into kernel_zoo/entries when it beats eager
# and torch.compile; the entries come back as $OUT/entries.tgz.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_contract.py \
    -k "softmax_dim1 or log_softmax_dim1" 2>&1 | tail -3 | tee "$OUT/gpu-tests-round28.txt"
timeout 330 python3 bench/tune_memory_bound.py --tasks softmax_dim1,log_softmax_dim1 \
    --dtypes bfloat16 --trials 16 --budget 70 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -8
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
