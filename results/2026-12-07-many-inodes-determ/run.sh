#!/usr/bin/env bash
# The many-inode diagnostic of ../2026-12-06-many-inodes-first-look (manydiag.sh, on ext4)
# on the deterministic VM (VM_DETERMINISTIC=1): the bench kernels, stock and patched in
# the order given, one boot each. Run from the top of the repository after
#   scripts/kernel.sh bench-stock; scripts/kernel.sh bench-patched
#   cp results/2026-12-06-many-inodes-first-look/manydiag.sh scripts/guest/
# (remove the copy afterwards).
#   run.sh KERNEL...     e.g. run.sh stock patched patched stock
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
first=$here/../2026-12-06-many-inodes-first-look
declare -A n
for k in "$@"; do
	n[$k]=$((${n[$k]:-0} + 1))
	out=$here/$k-${n[$k]}
	rm -rf "$out"
	mkdir -p "$out"
	cp "$first/mkfiles.c" "$here/../2026-12-06-sync-same-config/streamer.c" "$out/"
	VM_DETERMINISTIC=1 scripts/vm.sh "bench-$k" manydiag.sh "$out" 100000 256 ext4 ||
		echo "boot $k-${n[$k]} failed" >&2
	rm -f "$out/mkfiles.c" "$out/streamer.c"
	cat "$out/summary.txt" 2>/dev/null || true
done
