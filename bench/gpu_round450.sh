#!/usr/bin/env bash
# GPU round 450 (H200; 2026-11-30), two calls on one held machine, no carry.
# Call 1: the 30 served promotions `bench/promotion_margins.py` finds "in the pack" (a sweep gain
# under 3%, the winner within 2% of the tenth percentile), each served file timed beside the file
# it replaced, with a twin graph of the served one, 5 passes (`bench/retime_promotions.py`).
#     device run:  PART=retime bash bench/gpu_round450.sh
# Call 2: the first sweep through tune_buckets' `confirm` on the GPU: float32 sum and mean at
# cols_le_16384 (4096x4097, 8192x8192; three rows behind torch.compile at 0.990-0.999x),
# `--local` around the served configs; then their float32 rows, and `kzoo zoo verify --newest`
# for an op promoted.
#     device run:  PART=confirm BUDGET=420 bash bench/gpu_round450.sh
# Between them, call 1's twin graphs read apart (up to 5%, the first captured mostly slower):
# `bench/probe_graph_twins.py` on eight table rows.
#     device run:  PART=twins bash bench/gpu_round450.sh
# Then, as the table has timed each callable as one graph, the zoo's captured first: the whole
# memory-bound table again with each callable as three graphs captured in turn (`--copies 3`),
# one dtype a call (DTYPES=float32, then DTYPES=bfloat16,float16).
#     device run:  PART=table DTYPES=float32 bash bench/gpu_round450.sh
# Outcome (five calls, about 1010 s of device time): retime, first as one graph a file and a twin
# of the served one (runs/promotion-retimes-h200-round450-one-graph.json), whose four "replaced
# file faster" were the twin as far from its own file; then `twins` (runs/probe-graph-twins-h200-
# round450.json: graphs of one call 0.1-2.7% apart, the same in either call order); then retime
# with three graphs a file (promotion-retimes-h200.json: none of the 30 slower, 10 faster beyond
# their graphs' spread, 20 level) and `confirm` (mean's winner 1.002x, not promoted; sum's winner
# was the served config); then `table` for the three dtypes, each callable three graphs
# (memory-bound-h200-graphs-copies3-*-round450.json, now the standing: geomean 1.332x, 20 rows
# behind torch.compile, 2 by more than 1%, the same 7 large float32 rows under 90% of copy).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round450
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r450
mkdir -p $R
case "${PART:-retime}" in
retime)
    timeout 540 python3 bench/retime_promotions.py --passes 5 --jobs 14 --out $R \
        > $R/retime.log 2>&1
    echo "retime: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/retime.log | tail -36
    cp $R/promotion-retimes-h200.json "$OUT/" 2>/dev/null
    ;;
twins)
    timeout 540 python3 bench/probe_graph_twins.py --out $R > $R/twins.log 2>&1
    echo "twins: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/twins.log | tail -12
    cp $R/probe-graph-twins-h200.json "$OUT/" 2>/dev/null
    ;;
table)
    for dtype in ${DTYPES//,/ }; do
        mkdir -p $R/table-$dtype
        timeout 560 python3 bench/memory_bound.py --graphs --copies 3 --dtypes $dtype \
            --out $R/table-$dtype > $R/table-$dtype/stdout.txt 2>&1
        echo "table $dtype: rc $? after $(( $(date +%s) - start )) s"
        cp $R/table-$dtype/*.json "$OUT/" 2>/dev/null
        grep -A30 '"rows":' $R/table-$dtype/stdout.txt | grep -v -i warn | head -40
    done
    ;;
confirm)
    budget=${BUDGET:-420}
    entries_snapshot
    mkdir -p $R/tune
    tune_pairs 200 150 $R/tune "sum:float32 mean:float32" \
        --buckets cols_le_16384 --samples 0 --jobs 14 --local
    grep -h -i "re-timed\|confirm" $R/tune/*.log | grep -v -i warn | head -8
    entries_pack_new
    table_rows $(( budget - 120 )) $R sum,mean float32
    grep -E "4097|8192x8192" $R/table/stdout.txt | head -8
    promoted=$(grep -o "kernel_zoo/entries/[a-z_]*/" "$OUT/new-entries.txt" | sort -u | cut -d/ -f3)
    [ -n "$promoted" ] && zoo_verify_ops "$budget" $R $promoted
    tar czf "$OUT/round450-confirm.tgz" -C /tmp r450
    ;;
esac
exit 0
