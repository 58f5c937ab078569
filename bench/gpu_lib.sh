# Shared by the GPU round scripts that promote zoo entries (source it: `. bench/gpu_lib.sh`).
# A run on the device machine returns a limited count of files, and its copy of the tree has no
# git, so what a promotion adds is found by listing the zoo's files before and after, and comes
# back as one tarball. Files, not folders: an entry of schema 2 adds its manifest's folder and
# kernel blobs under the op's existing `blobs/` folder.

# List every file of the shipped zoo into /tmp/entries-before.txt.
entries_snapshot() {
    find kernel_zoo/entries -type f | sort > /tmp/entries-before.txt
}

# Tar the files added since entries_snapshot (new entries' manifests, new blobs) into
# $OUT/entries.tgz and name them in $OUT/new-entries.txt.
entries_pack_new() {
    find kernel_zoo/entries -type f | sort > /tmp/entries-after.txt
    local new
    new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
    echo "new files: $new" | tee "$OUT/new-entries.txt"
    [ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
    return 0
}

# Tune one op's buckets with bench/tune_buckets.py under the CUDA-graph timer, promoting winners
# into the shipped zoo; print its per-bucket lines, exit status and the seconds since the calling
# script's $start. Its whole output goes to OUTDIR/tune-OP-DTYPE.log; on a failed exit the last
# three lines of it are printed too (round 416: a refused argument showed only as "exit 2").
# Usage: tune_op SECONDS OP DTYPE OUTDIR [more tune_buckets.py arguments...]
tune_op() {
    local secs=$1 op=$2 dtype=$3 out=$4 rc log
    shift 4
    mkdir -p "$out"
    log="$out/tune-$op-$dtype.log"
    timeout "$secs" python3 bench/tune_buckets.py --ops "$op" --dtypes "$dtype" --graphs \
        --zoo kernel_zoo/entries --out "$out" "$@" > "$log" 2>&1
    rc=$?
    grep -v -i warn "$log" | grep -E "^[a-z_0-9]+ $dtype \[" | tail -8
    [ $rc -ne 0 ] && grep -v -i warn "$log" | tail -3 | sed 's/^/    /'
    echo "tune $op $dtype: exit $rc after $(( $(date +%s) - start )) s"
}

# tune_op each OP:DTYPE pair in turn (SECONDS at most each), skipping those that would start
# more than UNTIL seconds after the calling script's $start.
# Usage: tune_pairs UNTIL SECONDS OUTDIR "OP:DTYPE ..." [more tune_buckets.py arguments...]
tune_pairs() {
    local until=$1 secs=$2 out=$3 pairs=$4 pair op dtype
    shift 4
    for pair in $pairs; do
        op=${pair%%:*}
        dtype=${pair##*:}
        if [ $(( $(date +%s) - start )) -gt "$until" ]; then
            echo "tune $op $dtype: not run"
            continue
        fi
        tune_op "$secs" "$op" "$dtype" "$out" "$@"
    done
}

# bench/memory_bound.py's rows of OPS in DTYPES (CUDA graphs) into OUTDIR/table, in what is left
# of END seconds after the calling script's $start (not run with 40 or fewer); print its
# 4097-wide rows.
# Usage: table_rows END OUTDIR OPS DTYPES
table_rows() {
    local end=$1 out=$2 ops=$3 dtypes=$4 left
    left=$(( end - ($(date +%s) - start) ))
    if [ $left -le 40 ]; then
        echo "table: not run ($left s left)"
        return 0
    fi
    mkdir -p "$out/table"
    timeout $left python3 bench/memory_bound.py --ops "$ops" --dtypes "$dtypes" --graphs \
        --out "$out/table" > "$out/table/stdout.txt" 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "4097" "$out/table/stdout.txt" | head -20
}

# Install the slimmed offline bundle (bench/slim_gpu_bundle.sh; the run carries .gpu-slim) into
# /tmp/site and put it, and the tree, on PYTHONPATH.
slim_bundle_install() {
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu-slim/*.whl \
        2>&1 | tail -2
    tar xJf .gpu-slim/ray-slim.tar.xz -C /tmp/site
    export PYTHONPATH=/tmp/site:$PWD
}

# The tree outgrew the carry with the slim bundle beside it (45 MiB on disk on 2026-11-28, plus
# .gpu-slim's 22: over the 64 MiB limit), so a round that needs Ray (`kzoo optimize`, `kzoo sweep`)
# takes the bundle in two calls on one warm machine (the second right after the first, within its
# 30 s hold). Here, once: `bash bench/slim_gpu_bundle.sh`, then
#     mkdir -p .gpu-ray .gpu-wheels && mv .gpu-slim/ray-slim.tar.xz .gpu-ray/ \
#         && mv .gpu-slim/*.whl .gpu-wheels/ && printf '/.gpu-ray/\n/.gpu-wheels/\n' >> .git/info/exclude
# call 1, carry [".gpu-ray"]:     . bench/gpu_lib.sh; split_bundle_stage_ray
# call 2, carry [".gpu-wheels"]:  . bench/gpu_lib.sh; split_bundle_install && ...
# The first unpacks Ray into .gpu-site/ in the machine's copy of the tree, an ignored path the
# device keeps between calls while the machine is held; the second installs the wheels beside it.
# Tried in GPU round 343: the staging call took 2 s, and the second found Ray in place. Since the
# zoo's blobs are xz-compressed (schema 3, 2026-11-30) the tree is 41 MiB (46 on disk), and this
# two-call form serves again (GPU round 443: Ray's whole archive beside the tree).
split_bundle_stage_ray() {
    mkdir -p .gpu-site && tar xJf .gpu-ray/ray-slim.tar.xz -C .gpu-site && echo "ray staged"
}

# By 2026-11-29 the tree alone was 52.5 MiB (until the zoo's blobs were compressed, above), and
# .gpu-ray's 16 no longer fit beside it: Ray's
# archive goes in parts, one call each, before the wheels' call (calls on one held machine, each
# right after the one before): two parts of 8 MiB in GPU rounds 433 and 436; at 54 MiB of tree
# the device refused a tree with one of those beside it (round 438), so three of 6 MiB since.
# Here, once:
#     rm -rf .gpu-ray-? && split -b 6M .gpu-ray/ray-slim.tar.xz P- && for x in a b c; do \
#         mkdir -p .gpu-ray-$x && mv P-a$x .gpu-ray-$x/part; done \
#         && printf '/.gpu-ray-c/\n' >> .git/info/exclude
# call 1, carry [".gpu-ray-a"]:  . bench/gpu_lib.sh; split_bundle_stage_ray_part a
# call 2, carry [".gpu-ray-b"]:  . bench/gpu_lib.sh; split_bundle_stage_ray_part b
# call 3, carry [".gpu-ray-c"]:  . bench/gpu_lib.sh; split_bundle_stage_ray_part c last && ...
# call 4, carry [".gpu-wheels"]: . bench/gpu_lib.sh; split_bundle_install && ...
# Usage: split_bundle_stage_ray_part X [last]: stage .gpu-ray-X's part; with "last", unpack the
# parts staged so far, in name order, into .gpu-site.
split_bundle_stage_ray_part() {
    mkdir -p .gpu-site
    if [ ! -f ".gpu-ray-$1/part" ]; then
        echo "split_bundle_stage_ray_part: no .gpu-ray-$1/part here (carry it)" >&2
        return 2
    fi
    cp ".gpu-ray-$1/part" ".gpu-site/ray-part-$1" && echo "part $1 staged" || return 1
    [ "${2:-}" = last ] || return 0
    cat .gpu-site/ray-part-? | tar xJf - -C .gpu-site && rm .gpu-site/ray-part-? \
        && echo "ray staged"
}

split_bundle_install() {
    if [ ! -d .gpu-site/ray ]; then
        echo "no .gpu-site/ray here: run split_bundle_stage_ray (carry .gpu-ray) in the call" \
             "just before this one, on the same held machine" >&2
        return 1
    fi
    python3 -m pip install -q --no-index --no-deps --no-compile --target .gpu-site \
        .gpu-wheels/*.whl 2>&1 | tail -2
    export PYTHONPATH=$PWD/.gpu-site:$PWD
}

# `kzoo zoo verify --newest` (test_zoo_cli's GPU test) for each named op in turn, one pytest call
# an op, while more than 60 s of BUDGET (seconds since the calling script's $start) are left;
# each op's output to OUTDIR/pytest-zoo_cli-OP.txt, a line per op on stdout.
# Usage: zoo_verify_ops BUDGET OUTDIR OP...
zoo_verify_ops() {
    local budget=$1 out=$2 op left
    shift 2
    mkdir -p "$out"
    for op in "$@"; do
        left=$(( budget - ($(date +%s) - start) ))
        if [ $left -lt 60 ]; then
            echo "zoo verify $op: not run ($left s left)"
            continue
        fi
        timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
            "tests/test_zoo_cli.py::test_kzoo_zoo_verify_passes_for_every_shipped_op_on_the_gpu[$op]" \
            > "$out/pytest-zoo_cli-$op.txt" 2>&1
        echo "zoo verify $op: rc $? $(tail -1 "$out/pytest-zoo_cli-$op.txt")"
    done
}

# `zoo_verify_ops BUDGET OUTDIR` for the ops that took a new entry since entries_snapshot (the
# lists entries_pack_new left); nothing where none did.
# Usage: verify_promoted BUDGET OUTDIR
verify_promoted() {
    local promoted
    promoted=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt \
        | cut -d/ -f3 | grep -v '^\.' | sort -u | tr '\n' ' ')
    [ -n "$promoted" ] && zoo_verify_ops "$1" "$2" $promoted
    return 0
}

# Re-render zoo entries with today's template (bench/rerender_entries.sh, a job "OP DTYPE [TASK]"
# each, the wheels installed beside the Ray staged in the call before), tar what they added into
# $OUT/entries.tgz, then `kzoo zoo verify --newest` each op re-rendered while BUDGET (seconds since
# the calling script's $start) lasts. Logs and JSONs to OUTDIR/rerender, verify output to OUTDIR.
# Usage: rerender_and_verify BUDGET OUTDIR JOB...
rerender_and_verify() {
    local budget=$1 out=$2 ops
    shift 2
    split_bundle_install || return 1
    mkdir -p "$out/rerender"
    entries_snapshot
    OUT="$out/rerender" bash bench/rerender_entries.sh "$@"
    echo "rerender after $(( $(date +%s) - start )) s"
    entries_pack_new
    ops=$(for job in "$@"; do set -- $job; echo "$1"; done | sort -u)
    zoo_verify_ops "$budget" "$out" $ops
}

# bench/linear_skinny.py at 1-128 rows: ops.matmul beside its entry's version MATMUL_PREVIOUS,
# then ops.linear's GELU and SiLU beside GELU_PREVIOUS and SILU_PREVIOUS (each with eager,
# torch.compile and cuBLAS), into OUTDIR/matmul, OUTDIR/gelu and OUTDIR/silu.
# Usage: skinny_sweep OUTDIR MATMUL_PREVIOUS GELU_PREVIOUS SILU_PREVIOUS
skinny_sweep() {
    local out=$1 pair act
    mkdir -p "$out/matmul"
    timeout 200 python3 bench/linear_skinny.py --activations "" --matmul \
        --matmul-previous "$2" --out "$out/matmul" 2>&1 | grep -v -i warn | tail -60
    echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    for pair in "gelu:$3" "silu:$4"; do
        act=${pair%%:*}
        mkdir -p "$out/$act"
        timeout 280 python3 bench/linear_skinny.py --activations "$act" \
            --previous "${pair##*:}" --out "$out/$act" 2>&1 | grep -v -i warn | tail -60
        echo "linear-skinny $act rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
    done
}
