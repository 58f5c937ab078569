# Shared by the GPU round scripts that promote zoo entries (source it: `. bench/gpu_lib.sh`).
# A run on the device machine returns a limited count of files, and its copy of the tree has no
# git, so the new entries are found by listing the entry folders before and after, and come back
# as one tarball.

# List every entry folder of the shipped zoo into /tmp/entries-before.txt.
entries_snapshot() {
    ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-before.txt
}

# Tar the entry folders (and any op-level files) added since entries_snapshot into $OUT/entries.tgz
# and name them in $OUT/new-entries.txt.
entries_pack_new() {
    ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-after.txt
    local new
    new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
    echo "new entries: $new" | tee "$OUT/new-entries.txt"
    [ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
    return 0
}
