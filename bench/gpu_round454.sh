#!/usr/bin/env bash
# GPU round 454 (H200; 2026-11-30). No carry: nothing here needs optuna or Ray.
# PART=probe: round 453's unrun GPU test (ops.linear's gelu from the shipped zoo, and as on a
# machine without nvcc), then bench/probe_softmax_phase.py: does the float32 one-pass softmax
# at 1024x32768 lose its fixed time where every SM exponentiates at once (exponentials on the FMA
# pipes for part of the row, a staggered first wave)?
# PART=phase: the stagger in more forms (2-8 phases), softmax and log-softmax; and what
# store.find_config sees on the device (call 1's test had found no config).
# PART=tune: the stagger's GPU tests and the nvcc test (TESTS=0: not), then `tune_buckets.py
# --knobs KNOBS --local --paired` for PAIRS ("op:dtype ...") at BUCKETS, promoting into the
# shipped zoo (the new files come back as entries.tgz).
# PART=rows: bench/memory_bound.py's rows of OPS in DTYPES, three paired graphs a callable.
# PART=verify: `kzoo zoo verify --newest` of OPS.
# PART=dim1: bench/probe_softmax_phase.py --ops softmax_dim1 (32x1000x1024 over dim 1).
# PART=norm: bench/probe_norm_variants.py in float32: Inductor's own RMSNorm kernel source and
# the probe's two-pass loops at 16384x8192 and 8192x4096, where the zoo trails torch.compile by
# 1.5% and 0.3% (the standing, round 451).
# Calls (about 1340 s of device time; RESULTS.md "Round 454"):
#  1 PART=probe: the nvcc test failed (it read the test's empty isolated zoo; fixed); stagger
#    68.7 against 71.4 us, FMA exponentials no gain
#  2 PART=phase: 4 phases 2000 clocks apart 66.5-67.0 against 70.6 us (log-softmax 67.0 / 71.0)
#  3 PART=tune: tests passed; softmax 1.40.0 and log_softmax 1.38.0 (float32 cols_le_65536,
#    8 phases 1000 clocks apart) promoted, cols_le_4096 kept
#  4 PART=rows OPS=softmax,log_softmax DTYPES=float32
#  5 PART=tune BUCKETS=cols_gt_65536 SECS=170: tests passed (split and dim-1 rows); nothing won
#  6 PART=tune TESTS=0 BUCKETS=inner_dim PAIRS="softmax_dim1:float32 log_softmax_dim1:float32"
#    SECS=170: nothing won
#  7 PART=norm
#  8 PART=tune TESTS=0 BUCKETS=cols_le_16384 PAIRS=rms_norm:float32 KNOBS=loop_const_cols,
#    hint_affine SECS=300: nothing won
#  9 PART=tune TESTS=0 BUCKETS=cols_le_65536 PAIRS="softmax:bfloat16 log_softmax:bfloat16
#    softmax:float16 log_softmax:float16" SECS=130: softmax 1.41.0 (bfloat16) promoted
# 10 PART=rows OPS=softmax,log_softmax DTYPES=float32,bfloat16,float16 SECS=500
# 11 PART=verify: softmax and log_softmax passed
# 12 PART=dim1: 16 columns a program staggered 72.1-72.3 us against 72.9-73.2; 32 columns lost
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r454  # tarred into $OUT/round454.tgz at the end (a run returns at most 8 files)
mkdir -p $R

case "${PART:-probe}" in
probe)
    timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short tests/test_zoo.py \
        -k "without_nvcc" > $R/pytest-zoo-nvcc.txt 2>&1
    echo "pytest nvcc fallback: rc $? after $(( $(date +%s) - start )) s"
    tail -3 $R/pytest-zoo-nvcc.txt | cut -c1-300
    timeout 330 python3 bench/probe_softmax_phase.py --rows 132,1024 --out $R \
        > $R/probe-softmax-phase.log 2>&1
    echo "probe_softmax_phase: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-softmax-phase.log | tail -40 | cut -c1-200
    ;;
phase)  # the first wave's stagger in more forms, softmax and log-softmax; and why round 454's
    # first call found no linear_bias_gelu config for this GPU
    python3 - > $R/find-config.txt 2>&1 <<'PY'
import torch
from kernel_zoo import _home, store
print(torch.cuda.get_device_name(), torch.cuda.get_device_capability())
print(store._layers(None))
for zoo, layer in store._layers(None):
    print(layer, zoo, store._newest_version(zoo / "linear_bias_gelu"))
print(store.find_config("linear_bias_gelu", "sm_90", "bfloat16",
                        device=torch.cuda.get_device_name()))
PY
    head -c 1500 $R/find-config.txt
    timeout 400 python3 bench/probe_softmax_phase.py --rows 132,1024 --ops softmax,log_softmax \
        --out $R > $R/probe-softmax-phase-2.log 2>&1
    echo "probe_softmax_phase: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-softmax-phase-2.log \
        | grep -E "float32|zoo|copy|sleep0 |sleep[0-9]+ phases" | cut -c1-120
    ;;
tune)  # the stagger's GPU tests and the nvcc fallback's; then by default the float32 softmax and
    # log-softmax buckets the one-pass kernel serves (1024x32768, 8192x4096) swept around their
    # served configs with the stagger, promoting into the shipped zoo
    . bench/gpu_lib.sh
    if [ "${TESTS:-1}" = 1 ]; then
        timeout 240 python3 -m pytest -q -p no:cacheprovider -rf -m gpu \
            tests/test_templates_search.py tests/test_zoo.py -k "stagger or without_nvcc" \
            > $R/gpu-tests.txt 2>&1
        echo "GPU tests: rc $? $(tail -1 $R/gpu-tests.txt) after $(( $(date +%s) - start )) s"
        grep -E "^FAILED|^E " $R/gpu-tests.txt | head -8 | cut -c1-300
    fi
    entries_snapshot
    tune_pairs 420 ${SECS:-150} $R/stagger "${PAIRS:-softmax:float32 log_softmax:float32}" \
        --buckets ${BUCKETS:-cols_le_65536,cols_le_4096} --knobs ${KNOBS:-stagger_phases} \
        --local --paired
    entries_pack_new
    ;;
rows)  # the table's rows of OPS (all dtypes unless DTYPES), three paired graphs a callable
    mkdir -p $R/rows
    timeout ${SECS:-400} python3 bench/memory_bound.py --graphs --copies 3 --paired \
        --ops ${OPS:-softmax,log_softmax} --dtypes ${DTYPES:-float32} --out $R/rows \
        > $R/rows/stdout.txt 2>&1
    echo "rows: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/rows/stdout.txt | tail -40 | cut -c1-220
    cp $R/rows/*.json "$OUT/" 2>/dev/null
    ;;
dim1)  # the dim-1 column kernel at 16 and 32 columns a program, staggered or not
    timeout 400 python3 bench/probe_softmax_phase.py --ops softmax_dim1 --out $R/dim1 \
        > $R/probe-softmax-phase-dim1.log 2>&1
    echo "probe_softmax_phase dim1: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-softmax-phase-dim1.log | tail -20 | cut -c1-120
    cp $R/dim1/*.json "$OUT/" 2>/dev/null
    ;;
verify)  # `kzoo zoo verify --newest` of the ops promoted this round, and their table rows
    . bench/gpu_lib.sh
    zoo_verify_ops ${SECS:-560} $R/verify ${OPS:-softmax log_softmax}
    ;;
norm)
    timeout 500 python3 bench/probe_norm_variants.py --dtypes float32 --out $R \
        > $R/probe-norm-variants.log 2>&1
    echo "probe_norm_variants: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/probe-norm-variants.log | tail -70 | cut -c1-200
    ;;
esac
tar czf "$OUT/round454.tgz" -C /tmp r454
exit 0
