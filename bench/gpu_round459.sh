#!/usr/bin/env bash
# GPU round 459 (H200; 2026-11-30). No carry: nothing here needs optuna or Ray.
# PART=reread: bench/probe_split_reread.py at 256x128256 float32 (call 1 ran it as
#   probe_split_fixup.py, its fixup walks only: softmax and log-softmax stored relative to the
#   slice's max and rescaled a row later from L2, and copies), into $OUT/probe; VARIANTS:
#   --variant arguments.
# PART=tune: softmax and log_softmax float32 (or PAIRS) `cols_gt_65536` swept with `--knobs
#   lag_hold --local --paired` (promoting a winner), new entries packed into $OUT/entries.tgz,
#   `kzoo zoo verify --newest` for the ops that took one.
# PART=tests: the softmax template's split-row GPU tests (lag_hold among them).
# Calls:
set -u
start=$(date +%s)
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
case "${PART:-reread}" in
reread)
    mkdir -p "$OUT/probe"
    timeout 560 python3 bench/probe_split_reread.py --out "$OUT/probe" ${VARIANTS:-} \
        > "$OUT/probe/stdout.txt" 2>&1
    echo "probe: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn "$OUT/probe/stdout.txt" | tail -60
    ;;
tune)
    entries_snapshot
    tune_pairs 330 260 "$OUT/tune" "${PAIRS:-softmax:float32 log_softmax:float32}" \
        --buckets cols_gt_65536 --knobs lag_hold --local --paired
    entries_pack_new
    verify_promoted 590 "$OUT/verify"
    ;;
tests)
    mkdir -p "$OUT/tests"
    timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        tests/test_templates_search.py -k row_split > "$OUT/tests/pytest-row-split.txt" 2>&1
    echo "gpu tests: rc $? $(tail -1 "$OUT/tests/pytest-row-split.txt")"
    ;;
esac
