#!/usr/bin/env bash
# In the VM: one dontcache stream beside many small dirty files (issue 33's scan cost),
# timed until the stream is written back. manydiag.sh of
# results/2026-12-06-many-inodes-first-look, plus waitclean.c.
#   manydiag.sh NFILES STREAM_MIB [FS]   FS xfs (default) or ext4; needs mkfiles.c, streamer.c
#   and waitclean.c in the results directory
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

# kworker_ticks: user + system clock ticks of every kworker thread.
kworker_ticks() {
	local p c s=0 f a
	for p in /proc/[0-9]*; do
		read -r c < "$p/comm" 2>/dev/null || continue
		case $c in kworker*) ;; *) continue ;; esac
		read -r f < "$p/stat" 2>/dev/null || continue
		f=${f##*) }
		read -r -a a <<< "$f"
		s=$((s + a[11] + a[12]))
	done
	echo "$s"
}

main() {
	local n=$1 mib=$2 mnt=/tmp/t t0 t1 t2 k0 k1 k2 dev
	exec 2> "$RESULTS/manydiag.err"
	guest_setup
	trap save_dmesg EXIT
	gcc -O2 -o /tmp/streamer "$RESULTS/streamer.c"
	gcc -O2 -o /tmp/mkfiles "$RESULTS/mkfiles.c"
	gcc -O2 -o /tmp/waitclean "$RESULTS/waitclean.c"
	mkdir -p $mnt
	# FS ext4 uses the second scratch disk (xfs flushes every dirty inode on ENOSPC:
	# who-writes/ in the README).
	if [ "${3:-xfs}" = ext4 ]; then
		dev=$SCRATCH2
		mkfs.ext4 -q -F "$dev"
	else
		dev=$SCRATCH1
		mkfs.xfs -q -f "$dev"
	fi
	mount "$dev" $mnt
	# Keep the small files dirty: no periodic writeback, thresholds far above them.
	sysctl -q vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 \
		vm.dirty_bytes=$((1200 << 20)) vm.dirty_background_bytes=$((1000 << 20))
	# A new disk's wb has written nothing yet, so its share of the background
	# threshold is tiny and the flusher's background check writes the small files
	# back: give it a fixed share (MIN_RATIO=0 leaves the default).
	echo "${MIN_RATIO:-90}" > "/sys/block/${dev#/dev/}/bdi/min_ratio"
	mkdir $mnt/small
	/tmp/mkfiles $mnt/small "$n"
	grep -E '^(Dirty|Writeback):' /proc/meminfo > "$RESULTS/meminfo-before.txt"
	rm -f /tmp/stop
	k0=$(kworker_ticks)
	t0=$EPOCHREALTIME
	/tmp/streamer $mnt/stream /tmp/stop "$mib" > "$RESULTS/stream.txt"
	t1=$EPOCHREALTIME
	k1=$(kworker_ticks)
	grep -E '^(Dirty|Writeback):' /proc/meminfo > "$RESULTS/meminfo-after.txt"
	# Until no page of the stream is dirty or under writeback (at most 300 s).
	/tmp/waitclean $mnt/stream 300 > "$RESULTS/waitclean.txt" || true
	t2=$EPOCHREALTIME
	k2=$(kworker_ticks)
	grep -E '^(Dirty|Writeback):' /proc/meminfo > "$RESULTS/meminfo-clean.txt"
	awk -v n="$n" -v m="$mib" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v k="$((k1 - k0))" \
		-v kc="$((k2 - k0))" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		printf "files %d, stream %d MiB in %.2f s: %.1f MB/s; kworker CPU %.2f s\n",
			n, m, t1 - t0, m * 1.048576 / (t1 - t0), k / hz
		printf "written back %.2f s after the stream began: %.1f MB/s; kworker CPU %.2f s\n",
			t2 - t0, m * 1.048576 / (t2 - t0), kc / hz }' > "$RESULTS/summary.txt"
}
main "$@"
