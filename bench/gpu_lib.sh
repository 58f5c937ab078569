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
# script's $start.
# Usage: tune_op SECONDS OP DTYPE OUTDIR [more tune_buckets.py arguments...]
tune_op() {
    local secs=$1 op=$2 dtype=$3 out=$4
    shift 4
    timeout "$secs" python3 bench/tune_buckets.py --ops "$op" --dtypes "$dtype" --graphs \
        --zoo kernel_zoo/entries --out "$out" "$@" 2>&1 | grep -v -i warn \
        | grep -E "^[a-z_0-9]+ $dtype \[" | tail -8
    echo "tune $op $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
}

# Install the slimmed offline bundle (bench/slim_gpu_bundle.sh; the run carries .gpu-slim) into
# /tmp/site and put it, and the tree, on PYTHONPATH.
slim_bundle_install() {
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu-slim/*.whl \
        2>&1 | tail -2
    tar xJf .gpu-slim/ray-slim.tar.xz -C /tmp/site
    export PYTHONPATH=/tmp/site:$PWD
}
