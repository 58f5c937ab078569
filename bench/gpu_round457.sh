#!/usr/bin/env bash
# GPU round 457 (H200; 2026-11-30). No carry: nothing here needs optuna or Ray.
# Calls 1-12 by hand: 1-9 bench/probe_columns_ahead.py (1 default, 2 --copies, 3-6 the col_split
# renders of commit 5fd48b1, 7 --looped, 8 a two-halves kernel the --parts kernel replaced, 9
# --parts), 10-12 bench/probe_split_workspace.py --epoch (10 refused: "too many blocks in
# cooperative launch", the stored file's old occupancy count at 184 registers; 11 that found; 12
# with the cap at 168). RESULTS.md, round 457.
# PART=tune: the norm template's epoch_slots GPU tests, then add_rms_norm and rms_norm float32
#   (or PAIRS) `cols_le_65536` swept with `--knobs epoch_slots --local --paired` (promoting a winner),
#   new entries packed into $OUT/entries.tgz, and `kzoo zoo verify --newest` for the ops that
#   took one.
# PART=rows: bench/memory_bound.py's float32 rows of add_rms_norm and rms_norm (three graphs a
#   callable, paired), into $OUT/table.
# Calls:
# 13 PART=tune: the GPU tests refused by the guard (.is_current_stream_capturing, .cuda_stream in
#    the render); nothing promoted
# 14 PART=tune, the buffers in kernel_zoo.slots: tests passed; rms_norm 1.47.0 (38.7 -> 37.9-38.2
#    us, 1.021x re-timed); add_rms_norm's epoch render 72.4 us against the served 70.6 (184
#    registers a thread: four programs an SM where the served file's 168 keep six)
# 15 PART=tune PAIRS=add_rms_norm:float32, with split_maxnreg 168: 69.8 us against 70.5 (0.97%,
#    under the 1% margin)
# 16 PART=tune with a counter a group (commit be174bb, reverted): add_rms_norm 72.0, rms_norm's
#    render 39.4 against 37.5; nothing promoted
# 17 PART=rows: add_rms_norm 256x65536 0.89 of copy, rms_norm 1.39x torch.compile
set -u
start=$(date +%s)
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
case "${PART:-tune}" in
tune)
    mkdir -p "$OUT/tests"
    timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        tests/test_norm.py -k epoch > "$OUT/tests/pytest-norm-epoch.txt" 2>&1
    echo "gpu tests: rc $? $(tail -1 "$OUT/tests/pytest-norm-epoch.txt")"
    entries_snapshot
    tune_pairs 420 150 "$OUT/tune" "${PAIRS:-add_rms_norm:float32 rms_norm:float32}" \
        --buckets cols_le_65536 --knobs epoch_slots --local --paired
    entries_pack_new
    verify_promoted 580 "$OUT/verify"
    ;;
rows)
    mkdir -p "$OUT/table"
    timeout 400 python3 bench/memory_bound.py --ops add_rms_norm,rms_norm --dtypes float32 \
        --graphs --copies 3 --paired --out "$OUT/table" > "$OUT/table/stdout.txt" 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "65536" "$OUT/table/stdout.txt" | head -10
    ;;
esac
