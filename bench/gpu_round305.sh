#!/usr/bin/env bash
# GPU round 305 (H100): after ops.matmul sends a K off 16 elements to torch.matmul (round 304):
# the ops.matmul dispatch test (a 64 x 1000 -> 3000 call now runs cuBLAS), then
# bench/linear_skinny.py --matmul alone as in round 303 (ops.matmul against its 1.1.0 entry,
# cuBLAS and torch.compile; at 1000 -> 3000 ops.matmul should now be cuBLAS, not the entry).
# Outcome (2026-11-25): 2 passed. At 1000 -> 3000 ops.matmul ran torch.matmul (its warning
# printed; 8.3-9.6 us, level with eager) where the entry took 8.5-11.4; over 42 rows 1.014x
# cuBLAS, 1.207x the 1.1.0 entry. The JSON's zoo_served read true at those rows: the entry's
# output and cuBLAS's were the same bits there, and the bench judged serving by bits alone; it
# now asks the dispatch too (round 306 repeats the run). runs/matmul-skinny-h100-round305.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -k ops_matmul \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -8
timeout 200 python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.1.0 \
    --out "$OUT" 2>&1 | grep -v -i "warn" | tail -60
exit 0
