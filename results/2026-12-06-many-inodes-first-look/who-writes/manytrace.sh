#!/usr/bin/env bash
# In the VM: which writeback writes 100000 small dirty files back while they are created,
# on xfs, then on ext4 (needs mkfiles.c in the results directory).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

one_fs() {
	local fs=$1 dev=$2 mnt=/tmp/m.$1 T=/sys/kernel/tracing
	mkdir -p "$mnt"
	if [ "$fs" = xfs ]; then mkfs.xfs -q -f "$dev"; else mkfs.ext4 -q -F "$dev"; fi
	mount "$dev" "$mnt"
	echo 90 > "/sys/block/${dev#/dev/}/bdi/min_ratio"
	mkdir "$mnt/small"
	echo > $T/trace
	echo 1 > $T/tracing_on
	/tmp/mkfiles "$mnt/small" 100000
	echo 0 > $T/tracing_on
	{
		echo "== $fs"
		grep -E '^(Dirty|Writeback):' /proc/meminfo
		grep -E '^nr_dirty|nr_dirty_threshold|nr_dirty_background' /proc/vmstat
		echo "writeback_start reasons:"
		{ grep -o 'writeback_start: .*reason=[a-z_]*' $T/trace || true; } |
			grep -o 'reason=[a-z_]*' | sort | uniq -c || echo "      0 (none)"
		echo "wake_background: $(grep -c writeback_wake_background $T/trace)"
		echo "first starts:"
		grep 'writeback_start:' $T/trace | head -5
		grep 'writeback_written:' $T/trace | head -3
	} >> "$RESULTS/summary.txt"
	cp $T/trace "$RESULTS/trace-$fs.txt"
	echo 0 > "/sys/block/${dev#/dev/}/bdi/min_ratio"
	umount "$mnt"
}

main() {
	local T=/sys/kernel/tracing e
	guest_setup
	trap save_dmesg EXIT
	gcc -O2 -o /tmp/mkfiles "$RESULTS/mkfiles.c"
	sysctl -q vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 \
		vm.dirty_bytes=$((1200 << 20)) vm.dirty_background_bytes=$((1000 << 20))
	echo 0 > $T/tracing_on
	echo 20000 > $T/buffer_size_kb
	for e in writeback_start writeback_written writeback_wake_background writeback_queue_io; do
		echo 1 > "$T/events/writeback/$e/enable"
	done
	one_fs xfs "$SCRATCH1"
	one_fs ext4 "$SCRATCH2"
}
main "$@"
