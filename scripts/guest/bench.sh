#!/usr/bin/env bash
# In the VM: measure the limits of the scratch disks, then run nfsd-io-bench on an
# xfs scratch filesystem exported over loopback.
#   bench.sh short|full|mm|smoke [REPS]
# short: the matrix behind the README's numbers (small files, 1 repetition);
# full:  files of 2x guest RAM, 3 repetitions; mm: the page cache workloads
# of full on the local target only; smoke: 10 s per target, CI only.
# REPS replaces the profile's number of repetitions.
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

BENCH=$SRC/tools/testing/nfsd-io-bench/run-benchmarks.sh
MNT=/mnt

# run TARGET ARGS...: one suite run, results in $RESULTS/TARGET.
run() {
	local target=$1 rc=0
	shift
	echo "== $target $*"
	"$BENCH" -t "$target" -o "$RESULTS/$target" "$@" > "$RESULTS/$target.log" 2>&1 || rc=$?
	echo "$rc" > "$RESULTS/$target.rc"
}

# dry_run TARGET ARGS...: the whole default matrix, printed, nothing run.
dry_run() {
	local target=$1 rc=0
	shift
	"$BENCH" -t "$target" "$@" --dry-run > "$RESULTS/dry-$target.log" 2>&1 || rc=$?
	echo "$rc" > "$RESULTS/dry-$target.rc"
}

# The raw O_DIRECT bandwidth of the second scratch disk: the physical limit.
limits() {
	fio --name=odirect --filename="$SCRATCH2" --rw=write --bs=1M --direct=1 \
		--ioengine=io_uring --iodepth=8 --size="$1" --runtime="$2" --time_based \
		--output-format=json --output="$RESULTS/limits-odirect.json" >/dev/null
}

# io_cache_write modes this kernel has: the floors only exist with the series.
write_modes() {
	local knob=/sys/kernel/debug/nfsd/io_cache_write old
	old=$(cat "$knob")
	if echo 4 > "$knob" 2>/dev/null; then
		echo "$old" > "$knob"
		echo "$1"
	else
		echo "$2"
	fi
}

main() {
	local -a common
	local local_wl=seq-write,files32-write,competing-writers,noisy-neighbour
	local local_modes=buffered,uncached,direct
	guest_setup
	trap save_dmesg EXIT
	uname -r > "$RESULTS/uname.txt"
	mkfs.xfs -q -f "$SCRATCH1"
	mount "$SCRATCH1" "$MNT"
	mkdir -p "$MNT/export" "$MNT/local"
	start_nfsd "$MNT/export"
	case ${1:-} in
	short) common=(-s 512M -r 20 -n 1); limits 2G 15 ;;
	full | mm)
		common=(-r 20 -n "${2:-3}")
		local_wl=seq-write,parallel-write,files32-write,competing-writers,noisy-neighbour
		[[ $1 != mm ]] || local_modes=buffered,uncached
		limits 4G 20
		;;
	smoke)
		dry_run local -d "$MNT/local"
		dry_run nfs -e "$MNT/export"
		dry_run nfsmount -e "$MNT/export"
		run local -d "$MNT/local" --smoke -w seq-write -m uncached
		run nfs -e "$MNT/export" --smoke -w seq-write -m 2
		run nfsmount -e "$MNT/export" --smoke -w split-write -m "$(write_modes 4 2)"
		return 0
		;;
	*) echo "usage: bench.sh short|full|mm|smoke" >&2; return 2 ;;
	esac
	run local -d "$MNT/local" "${common[@]}" -w "$local_wl" -m "$local_modes"
	[[ $1 != mm ]] || return 0
	run nfs -e "$MNT/export" "${common[@]}" -w seq-write,misaligned-write -m 0,2
	run nfsmount -e "$MNT/export" -v 3 "${common[@]}" -w split-write -m "$(write_modes 2,3,4 2)"
}
main "$@"
