#!/usr/bin/env bash
# In the VM, one boot of the crash-durability test (scripts/check-crash.sh):
# verify what the previous boot's WRITE replies promised (if it logged any),
# then, unless told to stop, stream WRITEs in io_cache_write MODE asking for
# STABLE until the host kills the VM.
#   crash.sh MODE STABLE | crash.sh verify-only
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

MNT=/mnt

main() {
	local rc=0
	guest_setup
	trap save_dmesg EXIT
	build_selftest nfsd_crash
	[ -f "$RESULTS/formatted" ] || { mkfs.xfs -q -f "$SCRATCH1"; touch "$RESULTS/formatted"; }
	mount "$SCRATCH1" "$MNT"
	if [ -f "$RESULTS/prev.log" ]; then
		"$RESULTS/bin/nfsd_crash" verify "$MNT/export/data" "$RESULTS/prev.log" \
			> "$RESULTS/verify.txt" 2>&1 || rc=$?
		echo "$rc" > "$RESULTS/verify.rc"
	fi
	[ "$1" != verify-only ] || { umount "$MNT"; return 0; }
	mkdir -p "$MNT/export"
	rm -f "$MNT/export/data"
	sync
	start_nfsd "$MNT/export"
	echo "$1" > /sys/kernel/debug/nfsd/io_cache_write
	touch "$RESULTS/started"
	"$RESULTS/bin/nfsd_crash" write "$MNT/export" data "$RESULTS/cur.log" "$2"
}
main "$@"
