#!/usr/bin/env bash
# make check-crash: does a WRITE reply's stable_how survive a crash of the server?
# Each iteration boots the patched kernel on the same scratch disk, streams NFS
# WRITEs (tools/testing/selftests/dontcache/nfsd_crash) and is killed (QEMU SIGKILL,
# no shutdown) at a random moment; the next boot verifies that every WRITE replied
# DATA_SYNC/FILE_SYNC, or covered by a COMMIT, is on disk with the file size to match.
# Iterations rotate over: mode 3 + client UNSTABLE, mode 4 + UNSTABLE, mode 0 + FILE_SYNC.
#
# Limit: QEMU opens the disk with cache=none, so what it acknowledged is in the host's
# file when it dies: the test catches data left in the guest (page cache, journal),
# not a missing disk cache flush.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

CRASH_ITERS=${CRASH_ITERS:-20}
PLAN=("3 0" "4 0" "0 2")	# io_cache_write mode, client stable_how

# boot_and_kill RES ARGS...: boot, wait for the writer to start, kill at a random moment.
boot_and_kill() {
	local res=$1 pid waited=0
	shift
	rm -f "$res/started"
	VM_FRESH_DISKS=0 VM_EXPECT_KILL=1 "$TOP/scripts/vm.sh" patched crash.sh "$res" "$@" &
	pid=$!
	while [ ! -f "$res/started" ] && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 600 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	[ -f "$res/started" ] || { wait "$pid" || true; return 1; }
	sleep $((2 + RANDOM % 7))
	pkill -KILL -f "file=$(vm_disk_dir "$res")/scratch1.img" || true
	wait "$pid" || true
}

# verdict ITER: judge what the boot after iteration ITER verified.
verdict() {
	local res=$1 iter=$2 plan=$3 line
	line=$(tail -n 1 "$res/verify.txt" 2>/dev/null || echo "no verification")
	if [ "$(cat "$res/verify.rc" 2>/dev/null)" = 0 ]; then
		record PASS "crash $iter (mode ${plan% *}, client stable ${plan#* })" "$line"
	else
		grep -m3 lost "$res/verify.txt" >&2 || true
		record FAIL "crash $iter (mode ${plan% *}, client stable ${plan#* })" "$line"
	fi
	sed -nE 's/.*bytes verified ([0-9]+).*/\1/p' "$res/verify.txt" 2>/dev/null || true
}

main() {
	local res=$CHECK_OUT/crash i plan prev="" bytes=0 b
	rm -rf "$res"
	mkdir -p "$res"
	# Start from a fresh disk; the guest formats it on the first boot.
	rm -f "$(vm_disk_dir "$res")/scratch1.img"
	for ((i = 0; i <= CRASH_ITERS; i++)); do
		rm -f "$res/verify.txt" "$res/verify.rc"
		[ ! -f "$res/cur.log" ] || mv "$res/cur.log" "$res/prev.log"
		if [ "$i" -lt "$CRASH_ITERS" ]; then
			plan=${PLAN[$((i % ${#PLAN[@]}))]}
			# shellcheck disable=SC2086  # plan is two words on purpose
			step "crash iteration $((i + 1))/$CRASH_ITERS: mode ${plan% *}, client stable ${plan#* }" \
				boot_and_kill "$res" $plan ||
				{ record FAIL "crash $((i + 1))" "the writer never started: see $res/console.log"; return 0; }
		else
			step "final verification boot" \
				env VM_FRESH_DISKS=0 "$TOP/scripts/vm.sh" patched crash.sh "$res" verify-only
		fi
		if [ -n "$prev" ]; then
			b=$(verdict "$res" "$i" "$prev")
			bytes=$((bytes + ${b:-0}))
		fi
		prev=$plan
	done
	log "crash test: $CRASH_ITERS iterations, $bytes bytes verified"
	echo "$CRASH_ITERS iterations, $bytes bytes verified" > "$res/summary.txt"
}
main "$@"
