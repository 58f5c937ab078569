#!/usr/bin/env bash
# GPU round 332 (H200; written 2026-11-28 by a session that had no device time left, so NOT YET
# RUN): issue #3's acceptance on the device kind the issue was filed on. Every memory-bound table
# so far is an H100's (rounds 238 and 240: 225 rows, 1.210x torch.compile, 28 rows behind); the
# zoo's sm_90 entries serve an H200 unchanged, but nothing says they are ahead there, where the
# copy bandwidth is about 4.2 TB/s instead of 3.0 and the small rows are more latency-bound.
# One call: the three dtypes' whole tables as CUDA-graph replays (about 150 s each on the H100),
# each table written to $OUT as soon as it is done, so a timeout keeps the finished ones.
# Needs no bundle: memory_bound.py imports neither optuna, ray nor openai.
#     device run, no carry:  bash bench/gpu_round332.sh
# Outcome (2026-11-28, H200, copy 4280 GB/s): 225 rows, none wrong; 1.261x torch.compile
# (float32 1.167x, bfloat16 1.315x, float16 1.306x); 32 rows behind, 22 by more than 1%; 13 of 69
# large rows under 90% of copy (10 float32, GeGLU's 16-bit three). 141, 133 and 132 s a table.
# memory-bound-h200-graphs-{float32,bfloat16,float16}-round332.json; RESULTS.md has the rows.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round332
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/tables332
for dtype in float32 bfloat16 float16; do
    left=$(( 585 - ($(date +%s) - start) ))
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype --out /tmp/tables332 \
        2>&1 | grep -v -i warn | tail -24
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    cp /tmp/tables332/*.json "$OUT/" 2>/dev/null
done
exit 0
