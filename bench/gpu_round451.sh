#!/usr/bin/env bash
# GPU round 451 (H200; 2026-11-30), no carry.
# Call 1: whether a CUDA graph's output address sets its time (`bench/probe_graph_placement.py`):
# eager ops written into outputs at chosen addresses, graphs and direct launches, and graphs
# captured into one shared pool so that they write the same address.
#     device run:  PART=placement bash bench/gpu_round451.sh
# Call 2 and 3: the timing tests of paired graphs (`graphed_where_possible(paired=True)`), then the
# whole memory-bound table with each callable as three graphs, copy k of every callable of a row
# captured into one shared pool so that they write the same addresses (`--copies 3 --paired`).
#     device run:  PART=table TESTS=1 DTYPES=float32 bash bench/gpu_round451.sh
#     device run:  PART=table DTYPES=bfloat16,float16 bash bench/gpu_round451.sh
# Call 4: float32 cross-entropy and sum, whose zoo rows read 1-7% slower in call 2 than in round
# 450 (eager and compile 0-2%), timed paired and unpaired in turn, twice, in one process each.
#     device run:  PART=pairing bash bench/gpu_round451.sh
# Call 5: float32 mean and sum at cols_le_16384 (4096x4097 and 8192x8192), the variants that loop
# the 4097-wide rows apart (torch.compile's 16-warp loop among them) beside what the zoo serves,
# every shape's callables paired (`--knobs one_pass_min_fill --paired`); then their rows, paired,
# three graphs each, and `kzoo zoo verify --newest` for an op promoted.
#     device run:  PART=tune bash bench/gpu_round451.sh
# Call 6: the amax outputs of call 1 again, as graphs and launched directly (the verifier's
# host_ahead timer, no graphs), in one process.
#     device run:  PART=direct bash bench/gpu_round451.sh
# Call 7: the timing GPU tests again (graphed_where_possible's pool made once a copy), and the
# float32 table paired again in a later process, to see which rows hold from one run to the next.
#     device run:  PART=table TESTS=1 DTYPES=float32 bash bench/gpu_round451.sh
# Call 8: the reduce template's const_cols (the row's width a constant, as torch.compile's kernels
# are per shape): its GPU correctness rows (every op, task shape and dtype), then float32 mean
# and sum at cols_le_16384 swept around the served configs with it (`--knobs const_cols --local
# --paired`), their rows paired, and `kzoo zoo verify --newest` for an op promoted.
#     device run:  PART=const bash bench/gpu_round451.sh
# Outcome (eight calls, about 1400 s of device time): `placement` (runs/probe-graph-placement-h200-
# round451.json): amax bfloat16 4099x1000's graphs 4.6% apart by their output's address alone, four
# graphs into one address within 0.13%, direct launches 0.1-0.25%; the zoo's and torch.compile's
# mean float32 4096x4097 1.3% apart with a pool a graph and with one shared. The timing GPU tests
# passed (2). `table` for the three dtypes paired (memory-bound-h200-graphs-copies3-paired-*-
# round451.json, now the standing: geomean 1.331x, 17 rows behind torch.compile, the same 2 by more
# than 1%, 8 large float32 rows under 90% of copy, cross-entropy 4099x50257 at 0.895 among them).
# `pairing` (runs/pairing-h200-round451/): paired and unpaired within 0.5% at every row.
# `tune` (runs/tune-buckets-h200-round451/): the 13 loops lost at 4097 (20.6-32.2 us against the
# served 19.5); nothing promoted, so no zoo verify. Then `direct` (runs/probe-graph-placement-
# h200-round451-direct.json, sixth call, 23 s): the amax's graphs 1.5-1.9% apart this time, its
# direct launches 0.3%. Then the timing tests and the float32 table again (seventh call, 161 s;
# memory-bound-h200-graphs-copies3-paired-float32-round451b.json): the tests passed (2); the
# standing takes its rows (1.329x, 19 behind, the same 2 by more than 1%, the same 7 large rows
# under 90% of copy; cross-entropy 4099x50257 back at 0.920). Then `const` (eighth call, 140 s):
# const_cols' GPU rows passed (6), and with it the served mean and sum configs took 19.42 and
# 19.39 us at 4096x4097 against 19.30 and 19.55 without (runs/tune-buckets-h200-round451-const/):
# nothing promoted.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round451
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r451
mkdir -p $R
case "${PART:-placement}" in
placement)
    timeout 540 python3 bench/probe_graph_placement.py --out $R > $R/placement.log 2>&1
    echo "placement: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/placement.log | tail -14
    cp $R/probe-graph-placement-h200.json "$OUT/" 2>/dev/null
    ;;
table)
    if [ -n "${TESTS:-}" ]; then
        timeout 120 python3 -m pytest -q -p no:cacheprovider -rf -m gpu tests/test_verifier.py \
            -k "paired or captured" > $R/tests.txt 2>&1
        echo "timing GPU tests: rc $? $(tail -1 $R/tests.txt)"
        cp $R/tests.txt "$OUT/"
    fi
    for dtype in ${DTYPES//,/ }; do
        mkdir -p $R/table-$dtype
        timeout 560 python3 bench/memory_bound.py --graphs --copies 3 --paired --dtypes $dtype \
            --out $R/table-$dtype > $R/table-$dtype/stdout.txt 2>&1
        echo "table $dtype: rc $? after $(( $(date +%s) - start )) s"
        cp $R/table-$dtype/*.json "$OUT/" 2>/dev/null
        grep -A30 '"rows":' $R/table-$dtype/stdout.txt | grep -v -i warn | head -40
    done
    ;;
tune)
    entries_snapshot
    tune_pairs 330 200 $R/tune "mean:float32 sum:float32" --buckets cols_le_16384 \
        --knobs one_pass_min_fill --paired
    entries_pack_new
    mkdir -p $R/rows
    timeout 150 python3 bench/memory_bound.py --graphs --copies 3 --paired --ops mean,sum \
        --dtypes float32 --out $R/rows > $R/rows/stdout.txt 2>&1
    echo "rows: rc $? after $(( $(date +%s) - start )) s"
    cp $R/rows/*.json "$OUT/" 2>/dev/null
    tar czf "$OUT/tune.tgz" -C $R tune
    new_ops=$(grep -o "entries/[a-z_]*/" "$OUT/new-entries.txt" | sort -u | cut -d/ -f2)
    [ -n "$new_ops" ] && zoo_verify_ops 560 $R/verify $new_ops
    ;;
direct)
    timeout 300 python3 bench/probe_graph_placement.py --parts pages_amax,no_graph_amax \
        --out $R > $R/direct.log 2>&1
    echo "direct: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/direct.log | tail -4
    cp $R/probe-graph-placement-h200-pages_amax-no_graph_amax.json "$OUT/" 2>/dev/null
    ;;
const)
    timeout 150 python3 -m pytest -q -p no:cacheprovider -rf -m gpu tests/test_reduce.py \
        -k "const_cols" > $R/const-tests.txt 2>&1
    echo "const_cols GPU tests: rc $? $(tail -1 $R/const-tests.txt)"
    cp $R/const-tests.txt "$OUT/"
    entries_snapshot
    tune_pairs 260 120 $R/const "mean:float32 sum:float32" --buckets cols_le_16384 \
        --knobs const_cols --local --paired
    entries_pack_new
    mkdir -p $R/const-rows
    timeout 100 python3 bench/memory_bound.py --graphs --copies 3 --paired --ops mean,sum \
        --dtypes float32 --out $R/const-rows > $R/const-rows/stdout.txt 2>&1
    echo "rows: rc $? after $(( $(date +%s) - start )) s"
    cp $R/const-rows/*.json "$OUT/" 2>/dev/null
    tar czf "$OUT/const.tgz" -C $R const
    new_ops=$(grep -o "entries/[a-z_]*/" "$OUT/new-entries.txt" | sort -u | cut -d/ -f2)
    [ -n "$new_ops" ] && zoo_verify_ops 540 $R/verify $new_ops && cp $R/verify/*.txt "$OUT/"
    ;;
pairing)
    for run in 1 2; do
        for mode in paired unpaired; do
            flag=$([ $mode = paired ] && echo --paired)
            mkdir -p $R/$mode-$run
            timeout 200 python3 bench/memory_bound.py --graphs --copies 3 $flag \
                --ops cross_entropy,sum --dtypes float32 --out $R/$mode-$run \
                > $R/$mode-$run/stdout.txt 2>&1
            echo "$mode $run: rc $? after $(( $(date +%s) - start )) s"
        done
    done
    tar czf "$OUT/pairing.tgz" -C $R paired-1 unpaired-1 paired-2 unpaired-2
    ;;
esac
