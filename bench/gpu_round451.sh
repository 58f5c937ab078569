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
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round451
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
