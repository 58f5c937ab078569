#!/usr/bin/env bash
# GPU round 458 (H200; 2026-11-30). No carry: nothing here needs optuna or Ray.
# PART=tune: the norm template's epoch_slots GPU tests (both tag schemes, and the two schemes'
#   buffers kept apart), then add_rms_norm and rms_norm float32 (or PAIRS) `cols_le_65536` swept
#   with `--knobs epoch_slots,slot_tag --local --paired` (promoting a winner), new entries packed
#   into $OUT/entries.tgz, and `kzoo zoo verify --newest` for the ops that took one.
# PART=local: add_rms_norm float32 (or PAIRS) `cols_le_65536` swept around the served config
#   (add_rms_norm 1.37.0's, epoch_slots with slot_tag "own") with `--knobs row_split,
#   elems_per_thread,split_maxnreg,row_lag,row_prefetch --local --paired`; a winner is promoted
#   (zoo verify by hand after).
# PART=softmax (in the tree at commits 152870a and 560259e, both reverted with their knobs): the
#   softmax template's knob's GPU tests, then softmax and log_softmax float32 `cols_gt_65536`
#   swept with `--knobs <the knob> --local --paired`, as PART=tune.
# PART=rows: bench/memory_bound.py's float32 rows of add_rms_norm and rms_norm (three graphs a
#   callable, paired), into $OUT/table.
# Calls:
# 1 PART=tune: GPU tests passed (5); add_rms_norm 1.37.0 (own tag, no cap: 71.2 -> 69.6 us in the
#   sweep, 1.017x re-timed; zoo verify passed); rms_norm kept 1.47.0 (own 38.1-38.3 against the
#   served ticketed 38.5)
# 2 PART=rows: add_rms_norm 256x65536 0.903 of copy (69.9 us), rms_norm 1.37x torch.compile
# 3 PART=softmax with the softmax template's epoch_slots (commit 152870a, reverted): GPU tests
#   passed; softmax 77.3 us against 75.8, log-softmax 76.4 against 71.3; nothing promoted
# 4 PART=local: 128 configs; the served add_rms_norm 1.37.0 fastest (68.8 us); nothing promoted
# 5 by hand: python3 bench/probe_mean_stride.py (with its row groups): the groups 22.7-26.2 us,
#   their flat sums 20.29, the one pass 19.65, torch.compile 19.74, the zoo 20.03
# 6 PART=softmax with parity_slots (commit 560259e, reverted): GPU tests passed (4); softmax
#   76.3 us against the served 75.4, log-softmax 70.6 against 70.5 (capped at 80 or 128:
#   89.0-90.5, 74.0-74.1); nothing promoted
# 7 PART=rows again: add_rms_norm 256x65536 0.909 of copy (69.1 us)
set -u
start=$(date +%s)
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
case "${PART:-tune}" in
tune)
    mkdir -p "$OUT/tests"
    timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        tests/test_norm.py -k epoch > "$OUT/tests/pytest-norm-epoch.txt" 2>&1
    echo "gpu tests: rc $? $(tail -1 "$OUT/tests/pytest-norm-epoch.txt")"
    entries_snapshot
    tune_pairs 420 170 "$OUT/tune" "${PAIRS:-add_rms_norm:float32 rms_norm:float32}" \
        --buckets cols_le_65536 --knobs epoch_slots,slot_tag --local --paired
    entries_pack_new
    verify_promoted 580 "$OUT/verify"
    ;;
local)
    entries_snapshot
    tune_pairs 60 560 "$OUT/tune" "${PAIRS:-add_rms_norm:float32}" --buckets cols_le_65536 \
        --knobs row_split,elems_per_thread,split_maxnreg,row_lag,row_prefetch --local --paired
    entries_pack_new
    ;;
rows)
    mkdir -p "$OUT/table"
    timeout 400 python3 bench/memory_bound.py --ops add_rms_norm,rms_norm --dtypes float32 \
        --graphs --copies 3 --paired --out "$OUT/table" > "$OUT/table/stdout.txt" 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "65536" "$OUT/table/stdout.txt" | head -10
    ;;
esac
