#!/usr/bin/env bash
# GPU round 455 (H200; 2026-11-30). No carry: nothing here needs optuna or Ray.
# PART=groups: bench/probe_norm_groups.py: float32 add + RMSNorm at 256x65536 (0.89 of copy, the
# closest of #3's open rows to its bar): its served kernel and a copy at whole steps of its
# groups and at 256 rows (fixed cost, time a row, the last step's cost), the split kernel with
# fewer programs an SM forced so that 256 rows divide evenly, and the four streams with no
# reduction. TESTS=1: first the norms' split-row GPU tests.
# Calls:
#  1 PART=groups: served 6 programs an SM, 24 groups; 5.66 us fixed + 255.1 ns a row against a
#    copy's 3.71 + 241.4; then the row_lag module's launch was refused ("too many blocks in
#    cooperative launch"): _resident_per_sm counted the whole register file, not quadrants
#  2 PART=groups TESTS=1: tests passed; served 70.53 us, the four streams with no reduction (a
#    program a row's block, rows fastest) 70.14, copy 65.70; lag and fewer groups lost
#  3 PART=streams: failed its own check (a flat view against the 2-D sum)
#  4 PART=streams: flat, 1024-element programs of 4 warps 66.37 us (0.969 of a copy's 64.32),
#    16384 of 16 warps 66.62, 4096 of 4 68.06; rows fastest 69.89; served 70.50
#  5 PART=splits: 16-128 programs a row of 1-16 warps, row_lag or not: none under 71.1 us
#    (split 32 x 2 warps, the served form, 71.28; served 71.58; copy 64.96)
#  6 PART=splits NOWAIT=1: the partners' words read once, not waited for, is slower (32 x 2
#    warps 73.12 against 71.60 waiting): the wait is not what the kernel loses
#  7 PART=norm: the served file's looped kernel launched directly 255.1 us, the zoo 255.3, the
#    probe's two-pass kernel 249.8, torch.compile 249.9: the kernel, not the call around it
#  8 PART=norm: that kernel with the looped kernel's differences one at a time: the row stride
#    a runtime argument 254.4 us, the width runtime with masks 255.2, against 250.5 (and
#    torch.compile 250.5); the weight unhinted and a 2-D accumulator cost nothing
#  9 PART=tune SECS=150 UNTIL=420 PAIRS="rms_norm:float32 rms_norm:bfloat16 rms_norm:float16":
#    GPU tests passed; rms_norm 1.46.0 (float32 cols_le_16384, loop_const_stride: 16384x8192
#    256.2 -> 251.6 us, torch.compile 251.7-252.3); cols_le_4096 and 16-bit kept
# 10 PART=rows OPS=rms_norm DTYPES=float32 VERIFY=rms_norm: 16384x8192 1.001x torch.compile;
#    zoo verify passed
# 11 PART=splits with the norm template's row_ticket (commit 43164db, reverted after it): a
#    grid of one program a slice, tickets in start order: 71.97-107.3 us against the persistent
#    ahead kernel's 70.27 (runs/probe-norm-splits-ticket-h200-round455.json)
# 12 PART=mean: float32 mean 4096x4097, one pass of 16 warps: width and stride constants 19.42
#    us, the stride runtime 19.52, both runtime 19.74; torch.compile 19.52, the zoo 19.81
# 13 PART=reduce, with the reduce template's const_stride (commit 6403f81, reverted after it):
#    GPU tests passed; no const_stride config beat the served mean and sum files (mean 4096x4097
#    19.74 against the served file's 19.55, which the template's render of the same params took
#    20.03-20.13; sum 19.57 against 19.87 but 63.2 against 63.3 at 8192x8192, under the margin);
#    the rows 0.99x torch.compile as before
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r455  # tarred into $OUT/round455.tgz at the end (a run returns at most 8 files)
mkdir -p $R

case "${PART:-groups}" in
groups)
    if [ "${TESTS:-0}" = 1 ]; then
        timeout 300 python3 -m pytest -q -p no:cacheprovider -rf -m gpu tests/test_norm.py \
            -k "row_split_is_correct" > $R/gpu-tests.txt 2>&1
        echo "GPU tests: rc $? $(tail -1 $R/gpu-tests.txt) after $(( $(date +%s) - start )) s"
        grep -E "^FAILED|^E " $R/gpu-tests.txt | head -8 | cut -c1-300
    fi
    timeout 400 python3 bench/probe_norm_groups.py ${STEPS:+--steps $STEPS} --out $R \
        > $R/probe-norm-groups.log 2>&1
    echo "probe_norm_groups: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-norm-groups.log | tail -40 | cut -c1-200
    cp $R/probe-norm-groups-*.json "$OUT/" 2>/dev/null
    ;;
splits)  # the template's split kernel at other splits and programs' sizes
    timeout 400 python3 bench/probe_norm_groups.py --splits "$SPLITS" ${NOWAIT:+--no-wait} \
        --out $R \
        > $R/probe-norm-splits.log 2>&1
    echo "probe_norm_groups --splits: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-norm-splits.log | tail -30 | cut -c1-200
    cp $R/probe-norm-splits-*.json "$OUT/" 2>/dev/null
    ;;
norm)  # float32 RMSNorm 16384x8192: the served file's looped kernel launched directly beside the
    # probe's two-pass kernel, the zoo and torch.compile
    timeout 500 python3 bench/probe_norm_variants.py --dtypes float32 --served --out $R \
        > $R/probe-norm-variants.log 2>&1
    echo "probe_norm_variants: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-norm-variants.log | tail -60 | cut -c1-200
    cp $R/probe-norm-variants-*.json "$OUT/" 2>/dev/null
    ;;
tune)  # the norms' loop GPU tests (TESTS=0: not), then `tune_buckets.py --knobs KNOBS --local
    # --paired` for PAIRS at BUCKETS, promoting into the shipped zoo (entries.tgz)
    . bench/gpu_lib.sh
    if [ "${TESTS:-1}" = 1 ]; then
        timeout 300 python3 -m pytest -q -p no:cacheprovider -rf -m gpu tests/test_norm.py \
            -k "loop_full_from_is_correct" > $R/gpu-tests-loop.txt 2>&1
        echo "GPU tests: rc $? $(tail -1 $R/gpu-tests-loop.txt) after $(( $(date +%s) - start )) s"
        grep -E "^FAILED|^E " $R/gpu-tests-loop.txt | head -8 | cut -c1-300
    fi
    entries_snapshot
    tune_pairs ${UNTIL:-450} ${SECS:-200} $R/tune "${PAIRS:-rms_norm:float32}" \
        --buckets ${BUCKETS:-cols_le_16384,cols_le_4096} --knobs ${KNOBS:-loop_const_stride} \
        --local --paired
    entries_pack_new
    ;;
rows)  # the table's rows of OPS (all dtypes unless DTYPES), three paired graphs a callable
    mkdir -p $R/rows
    timeout ${SECS:-400} python3 bench/memory_bound.py --graphs --copies 3 --paired \
        --ops ${OPS:-rms_norm} --dtypes ${DTYPES:-float32} --out $R/rows \
        > $R/rows/stdout.txt 2>&1
    echo "rows: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/rows/stdout.txt | tail -40 | cut -c1-220
    cp $R/rows/*.json "$OUT/" 2>/dev/null
    . bench/gpu_lib.sh
    [ -n "${VERIFY:-}" ] && zoo_verify_ops ${VSECS:-560} $R/verify $VERIFY
    ;;
reduce)  # (ran at commit 6403f81) const_stride: the reduce GPU tests of it (mean, sum), a
    # --local sweep of float32 mean and sum at cols_le_16384 promoting into the shipped zoo,
    # their table rows, and `kzoo zoo verify --newest` of each op promoted
    . bench/gpu_lib.sh
    timeout 150 python3 -m pytest -q -p no:cacheprovider -rf -m gpu tests/test_reduce.py \
        -k "const_stride and (mean or sum)" > $R/gpu-tests-reduce.txt 2>&1
    echo "GPU tests: rc $? $(tail -1 $R/gpu-tests-reduce.txt) after $(( $(date +%s) - start )) s"
    grep -E "^FAILED|^E " $R/gpu-tests-reduce.txt | head -8 | cut -c1-300
    entries_snapshot
    tune_pairs 260 110 $R/tune-reduce "mean:float32 sum:float32" --buckets cols_le_16384 \
        --knobs const_stride --local --paired
    entries_pack_new
    mkdir -p $R/rows-reduce
    timeout 120 python3 bench/memory_bound.py --graphs --copies 3 --paired --ops mean,sum \
        --dtypes float32 --out $R/rows-reduce > $R/rows-reduce/stdout.txt 2>&1
    echo "rows: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/rows-reduce/stdout.txt | grep -E "x4097|slower|geomean" | cut -c1-220
    cp $R/rows-reduce/*.json "$OUT/" 2>/dev/null
    promoted=$(grep -o "entries/[a-z_]*/[0-9.]*/manifest" "$OUT/new-entries.txt" | cut -d/ -f2)
    [ -n "$promoted" ] && zoo_verify_ops 570 $R/verify $promoted
    ;;
mean)  # float32 mean 4096x4097 (0.983x torch.compile): the width and row stride constants or not
    timeout 300 python3 bench/probe_mean_stride.py --out $R > $R/probe-mean-stride.log 2>&1
    echo "probe_mean_stride: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-mean-stride.log | tail -30 | cut -c1-200
    cp $R/probe-mean-stride-*.json "$OUT/" 2>/dev/null
    ;;
streams)  # the four streams alone in other forms: how close to a copy can any add + RMSNorm get
    timeout 300 python3 bench/probe_norm_groups.py --streams --out $R \
        > $R/probe-norm-streams.log 2>&1
    echo "probe_norm_groups --streams: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-norm-streams.log | tail -30 | cut -c1-200
    cp $R/probe-norm-streams-*.json "$OUT/" 2>/dev/null
    ;;
esac
tar czf "$OUT/round455.tgz" -C /tmp r455
exit 0
