#!/usr/bin/env bash
# The many-inode diagnostic (manydiag.sh here: that of ../2026-12-06-many-inodes-first-look,
# timed until the stream is written back) on ext4 in the deterministic VM
# (VM_DETERMINISTIC=1): the bench kernels, stock and patched in the order given, one boot
# each. Run from the top of the repository after
#   scripts/kernel.sh bench-stock; scripts/kernel.sh bench-patched
#   cp results/2026-12-07-many-inodes-determ/manydiag.sh scripts/guest/
# (remove the copy afterwards).
#   run.sh KERNEL...     e.g. run.sh stock patched patched stock
# MANY_FILES (default 100000) small files; with another number the directories are
# named KERNEL-MANY_FILES-N (MANY_FILES=0: the stream alone, the control).
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
first=$here/../2026-12-06-many-inodes-first-look
declare -A n
files=${MANY_FILES:-100000}
tag=$([ "$files" = 100000 ] || echo "-$files")
for k in "$@"; do
	n[$k]=$((${n[$k]:-0} + 1))
	out=$here/$k$tag-${n[$k]}
	rm -rf "$out"
	mkdir -p "$out"
	cp "$first/mkfiles.c" "$here/../2026-12-06-sync-same-config/streamer.c" "$here/waitclean.c" "$out/"
	VM_DETERMINISTIC=1 scripts/vm.sh "bench-$k" manydiag.sh "$out" "$files" 256 ext4 ||
		echo "boot $k-${n[$k]} failed" >&2
	rm -f "$out/mkfiles.c" "$out/streamer.c" "$out/waitclean.c"
	cat "$out/summary.txt" 2>/dev/null || true
done
