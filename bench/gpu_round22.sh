#!/usr/bin/env bash
# GPU round 22: relative position and ALiBi add only their key-index term (the query index's part
# is a row constant that softmax does not see): their GPU tests, the relpos contract row, and the
# attention bench for SDPA and relative position. Results go to $OUT. The formulation was
# correct (9 passed) and not faster (relative position at 0.89x of the same run's SDPA kernel,
# against 0.93x before), so the template keeps (q_idx - kv_idx); the GPU tests stay.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_attention.py \
    "tests/test_contract.py::test_task_default_is_correct_on_the_gpu[attention_relpos]" 2>&1 \
    | tee "$OUT/gpu-tests-round22.txt" | tail -2
timeout 300 python3 bench/attention.py --cases sdpa,relative_position --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -4
