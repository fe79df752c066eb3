#!/usr/bin/env bash
# make check, part 4: boot the patched kernel, run the dontcache and nfsd
# kselftests in the guest, bring back the TAP output and dmesg, and judge both.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# Anything the kernel says when it is unhappy: a run with one of these fails.
SPLATS='(BUG:|WARNING:|Oops|KASAN|UBSAN|Kernel panic|general protection fault|DEBUG_LOCKS_WARN|possible (recursive|circular) locking|turning off the locking correctness validator|INFO: (task .* blocked|possible|rcu))'

# Count the kselftest_harness results nested in the runner's TAP (lines "# ok N name").
kselftest_results() {
	local tap=$1
	{ grep -E '^# (not )?ok [0-9]+ ' "$tap" || true; } | sed 's/^# //' | while read -r line; do
		case $line in
		*'# SKIP'*) echo "SKIP ${line#ok * }" ;;
		'not ok '*) echo "FAIL ${line#not ok * }" ;;
		*) echo "PASS ${line#ok * }" ;;
		esac
	done
}

# bench_smoke RES: the suite's dry runs and smoke runs, judged from their exit codes
# and from parse-results.sh finding a throughput in what they wrote ("remote" is the
# nfsmount target run with --server against the loopback server).
bench_smoke() {
	local res=$1 t mbs what
	local parse=$TREE/tools/testing/nfsd-io-bench/parse-results.sh
	for t in local nfs nfsmount remote; do
		what="target $t"
		[ "$t" != remote ] || what="target nfsmount --server (client side only)"
		if [ "$(cat "$res/dry-$t.rc" 2>/dev/null)" = 0 ]; then
			record PASS "nfsd-io-bench dry run, $what"
		else
			record FAIL "nfsd-io-bench dry run, $what" "see $res/dry-$t.log"
		fi
		mbs=$("$parse" --csv "$res/$t" 2>/dev/null |
			awk -F, 'NR > 1 && $4 + 0 > 0 { printf "%.0f", $4; exit }')
		if [ "$(cat "$res/$t.rc" 2>/dev/null)" = 0 ] && [ -n "$mbs" ]; then
			record PASS "nfsd-io-bench smoke, $what ($mbs MB/s)"
		else
			record FAIL "nfsd-io-bench smoke, $what" "see $res/$t.log"
		fi
	done
}

main() {
	local res=$CHECK_OUT/vm rc=0 splats
	rm -rf "$res"
	mkdir -p "$res"
	step "boot patched kernel: kselftests dontcache and nfsd, bench smoke" \
		"$TOP/scripts/vm.sh" patched check.sh "$res" || rc=$?
	cp -f "$res/kselftest.tap" "$CHECK_OUT/kselftest.tap" 2>/dev/null || : > "$CHECK_OUT/kselftest.tap"
	cp -f "$res/dmesg.txt" "$CHECK_OUT/dmesg.txt" 2>/dev/null ||
		cp -f "$res/console.log" "$CHECK_OUT/dmesg.txt" 2>/dev/null || : > "$CHECK_OUT/dmesg.txt"

	if [ "$rc" -ne 0 ] || [ ! -s "$res/kselftest.tap" ]; then
		record FAIL "VM run" "no kselftest output (exit $rc): see $res/console.log"
	else
		record PASS "VM boot ($(cat "$res/uname.txt" 2>/dev/null), ${VM_ACCEL:-tcg})"
		kselftest_results "$res/kselftest.tap" | while read -r status name; do
			record "$status" "kselftest $name"
		done
		if grep -qE '^not ok [0-9]+ ' "$res/kselftest.tap" &&
		   ! grep -qE '^# not ok [0-9]+ ' "$res/kselftest.tap"; then
			record FAIL "kselftest runner" "$(grep -E '^not ok' "$res/kselftest.tap" | head -n1)"
		fi
		bench_smoke "$res"
	fi
	splats=$(grep -E "$SPLATS" "$CHECK_OUT/dmesg.txt" "$res/console.log" 2>/dev/null | head -n 5 || true)
	if [ -n "$splats" ]; then
		printf '%s\n' "$splats" >&2
		record FAIL "guest dmesg clean" "kernel splat: see $CHECK_OUT/dmesg.txt"
	else
		record PASS "guest dmesg clean (no oops, BUG, WARNING, lockdep or KASAN report)"
	fi
}
main "$@"
