#!/usr/bin/env bash
# In the VM: where does sync(2) wait while dontcache streams run? (issue 33)
#   syncdiag.sh FS [WRITERS]   needs streamer.c in the results directory
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"
T=/sys/kernel/tracing

# sample PID LABEL: PID's kernel stack on one line, innermost first.
sample() {
	local f s=""
	[ -r "/proc/$1/stack" ] || return 0
	while read -r _ f; do s+="${f%%+*} "; done < "/proc/$1/stack" || true
	[ -n "$s" ] && echo "$EPOCHREALTIME $2 $s"
	return 0
}

main() {
	local fs=${1:-ext4} n=${2:-4} dev mnt=/tmp/t i pid t0 t1 p c
	exec 2> "$RESULTS/syncdiag.err"
	guest_setup
	trap save_dmesg EXIT
	gcc -O2 -o /tmp/streamer "$RESULTS/streamer.c"
	dev=$SCRATCH2
	[ "$fs" = xfs ] && dev=$SCRATCH1
	mkdir -p $mnt
	if [ "$fs" = xfs ]; then mkfs.xfs -q -f "$dev"; else mkfs.ext4 -q -F "$dev"; fi
	mount "$dev" $mnt
	echo 65536 > $T/buffer_size_kb
	for e in writeback/writeback_exec writeback/writeback_start writeback/writeback_written \
		writeback/writeback_wait writeback/writeback_queue_io writeback/writeback_single_inode \
		jbd2 filemap/mm_filemap_dontcache_writeback; do
		[ -e "$T/events/$e/enable" ] && echo 1 > "$T/events/$e/enable"
	done
	echo 1 > $T/tracing_on
	rm -f /tmp/stop
	for ((i = 0; i < n; i++)); do
		/tmp/streamer "$mnt/s.$i" /tmp/stop 192 > "$RESULTS/writer.$i.txt" &
	done
	for ((i = 0; i < n; i++)); do
		while [ ! -f "$mnt/s.$i" ] || [ "$(stat -c %s "$mnt/s.$i")" -lt $((16 << 20)) ]; do
			sleep 0.05
		done
	done
	echo "sync start" > $T/trace_marker
	t0=$EPOCHREALTIME
	sync & pid=$!
	: > "$RESULTS/stacks.txt"
	while kill -0 "$pid" 2>/dev/null; do
		sample "$pid" sync >> "$RESULTS/stacks.txt"
		for p in /proc/[0-9]*; do
			read -r c < "$p/comm" 2>/dev/null || continue
			case $c in
			*flush-*|jbd2*) sample "${p#/proc/}" "$c" >> "$RESULTS/stacks.txt" ;;
			esac
		done
		sleep 0.05
	done
	t1=$EPOCHREALTIME
	echo "sync end" > $T/trace_marker
	echo "sync took $(awk "BEGIN { print $t1 - $t0 }") s; writers running: $(pgrep -c streamer || true)" \
		> "$RESULTS/summary.txt"
	touch /tmp/stop
	wait
	cat "$RESULTS"/writer.*.txt >> "$RESULTS/summary.txt"
	echo 0 > $T/tracing_on
	cat $T/trace > "$RESULTS/trace.txt"
}
main "$@"
