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

# part_time RES NAME: " (Ns)" if the guest's part NAME ended (scripts/guest/lib.sh part).
part_time() {
	awk -v p="$2" '$1 == "end" && $2 == p { t = " (" $4 "s)" } END { printf "%s", t }' \
		"$1/parts.txt" 2>/dev/null || true
}

# bench_smoke RES: the suite's dry runs and smoke runs, judged from their exit codes
# and from parse-results.sh finding a throughput in what they wrote ("remote" is the
# nfsmount target run with --server against the loopback server). A part that never
# ran is not judged: the timeout says where the boot stopped.
bench_smoke() {
	local res=$1 t mbs what
	local parse=$TREE/tools/testing/nfsd-io-bench/parse-results.sh
	for t in local nfs nfsmount remote; do
		what="target $t"
		[ "$t" != remote ] || what="target nfsmount --server (client side only)"
		if [ -f "$res/dry-$t.rc" ]; then
			if [ "$(cat "$res/dry-$t.rc")" = 0 ]; then
				record PASS "nfsd-io-bench dry run, $what$(part_time "$res" "dry-$t")"
			else
				record FAIL "nfsd-io-bench dry run, $what" "see $res/dry-$t.log"
			fi
		elif [ ! -f "$res/timeout.txt" ]; then
			record FAIL "nfsd-io-bench dry run, $what" "it did not run: see $res/console.log"
		fi
		if [ ! -f "$res/$t.rc" ]; then
			[ -f "$res/timeout.txt" ] ||
				record FAIL "nfsd-io-bench smoke, $what" "it did not run: see $res/console.log"
			continue
		fi
		mbs=$("$parse" --csv "$res/$t" 2>/dev/null |
			awk -F, 'NR > 1 && $4 + 0 > 0 { printf "%.0f", $4; exit }')
		if [ "$(cat "$res/$t.rc")" = 0 ] && [ -n "$mbs" ]; then
			record PASS "nfsd-io-bench smoke, $what ($mbs MB/s)$(part_time "$res" "$t")"
		else
			record FAIL "nfsd-io-bench smoke, $what" "see $res/$t.log"
		fi
	done
}

# kselftests RES [ON]: the kselftests' verdicts, counted wherever their part ended, even
# if a later part of the boot did not; ON ("on KERNEL: ") names another kernel than the
# series'.
kselftests() {
	local res=$1 on=${2:-}
	if [ ! -f "$res/kselftest.rc" ]; then
		record FAIL "${on}kselftests" "they did not finish: see $res/console.log"
		return 0
	fi
	if [ ! -s "$res/kselftest.tap" ]; then
		record FAIL "${on}kselftests" "no TAP output (status $(cat "$res/kselftest.rc")): see $res/kselftest-build.log"
		return 0
	fi
	kselftest_results "$res/kselftest.tap" | while read -r status name; do
		record "$status" "${on}kselftest $name"
	done
	# A program that failed outside its tests (a crash, the runner's timeout).
	if grep -qE '^not ok [0-9]+ ' "$res/kselftest.tap" &&
	   ! grep -qE '^# not ok [0-9]+ ' "$res/kselftest.tap"; then
		record FAIL "${on}kselftest runner" "$(grep -E '^not ok' "$res/kselftest.tap" | head -n1)"
	else
		record PASS "${on}kselftest runner: $(grep -cE '^ok [0-9]+ ' "$res/kselftest.tap") programs ran to their end$(part_time "$res" kselftests)"
	fi
}

# boot_verdict RES RC DMESG [ON]: the boot in RES (vm.sh's exit RC) ran to its end, and
# the kernel said nothing unhappy in DMESG or on the console.
boot_verdict() {
	local res=$1 rc=$2 dmesg=$3 on=${4:-} splats
	if [ -f "$res/timeout.txt" ]; then
		record FAIL "${on}VM run" "$(cat "$res/timeout.txt"): see $res/console.log"
	elif [ "$rc" -ne 0 ]; then
		record FAIL "${on}VM run" "exit $rc: see $res/console.log"
	fi
	splats=$(grep -E "$SPLATS" "$dmesg" "$res/console.log" 2>/dev/null | head -n 5 || true)
	if [ -n "$splats" ]; then
		printf '%s\n' "$splats" >&2
		record FAIL "${on}guest dmesg clean" "kernel splat: see $dmesg"
	else
		record PASS "${on}guest dmesg clean (no oops, BUG, WARNING, lockdep or KASAN report)"
	fi
}

# The mm tests that the scoped-pass patch must pass on its own, run on the series cut
# after that patch: Jan Kara's case and the stale mark, which v7.3.4 fails
# (results/2026-12-05-scoped-alone), and the pass that must not spin on a page
# redirtied under writeback (results/2026-12-07-flusher-spin). CHECK_SCOPED=0 leaves
# the boot out.
SCOPED_TESTS="dontcache_writer_leaves_unrelated_dirty_file_alone fsynced_dontcache_file_keeps_plain_dirty_data_during_other_stream page_redirtied_under_writeback_does_not_spin_the_flusher sync_during_dontcache_streams_starts_at_once_and_leaves_files_clean"

# scoped: boot build/scoped (check-build.sh keeps it), judge SCOPED_TESTS there, and
# the boot as the others are (timeout, exit, dmesg).
scoped() {
	local res=$CHECK_OUT/vm-scoped rc=0 t
	local -a args=()
	rm -rf "$res"
	mkdir -p "$res"
	if [ ! -f "$BUILD_DIR/scoped/arch/x86/boot/bzImage" ]; then
		record FAIL "series cut after the scoped pass" "no kernel at $BUILD_DIR/scoped: check-build.sh keeps it"
		return 0
	fi
	for t in $SCOPED_TESTS; do
		args+=(-t "$t")
	done
	step "boot the series cut after the scoped pass: $SCOPED_TESTS" \
		env VM_BOOTS="${VM_BOOTS:-40}" "$TOP/scripts/vm.sh" scoped kselftest.sh "$res" \
		dontcache.sh "${args[@]}" || rc=$?
	if [ ! -s "$res/kselftest.tap" ]; then
		record FAIL "series cut after the scoped pass" "no TAP output (exit $rc): see $res/console.log"
		return 0
	fi
	# dontcache.sh run directly prints the harness's TAP without the runner's "# ".
	sed 's/^/# /' "$res/kselftest.tap" > "$res/nested.tap"
	kselftest_results "$res/nested.tap" | while read -r status name; do
		record "$status" "on the series cut after the scoped pass: kselftest $name"
	done
	boot_verdict "$res" "$rc" "$res/dmesg.txt" "on the series cut after the scoped pass: "
}

# nfsd_half: build v7.3.4 plus the NFSD half alone (kernel.sh nfsd-half), boot it and
# run the nfsd kselftests there: the NFSD patches must not need the mm ones.
nfsd_half() {
	local res=$CHECK_OUT/vm-nfsd-half rc=0 on="on v7.3.4 + the NFSD half: "
	rm -rf "$res"
	mkdir -p "$res"
	if ! "$TOP/scripts/kernel.sh" nfsd-half; then
		record FAIL "v7.3.4 + the NFSD half" "the kernel did not build (see above)"
		return 0
	fi
	step "boot v7.3.4 + the NFSD half: kselftests nfsd" \
		env VM_BOOTS="${VM_BOOTS:-60}" "$TOP/scripts/vm.sh" nfsd-half kselftest.sh "$res" \
		nfsd.sh || rc=$?
	kselftests "$res" "$on"
	boot_verdict "$res" "$rc" "$res/dmesg.txt" "$on"
}

main() {
	local res=$CHECK_OUT/vm rc=0
	rm -rf "$res"
	mkdir -p "$res"
	# The guest's work takes about 12 times what its boot takes (kselftests 5, their
	# build 3 more when cold, the bench's dry runs and smokes 6): 60 leaves room for
	# a host that is slow or busy only after the boot.
	step "boot patched kernel: kselftests dontcache and nfsd, bench smoke" \
		env VM_BOOTS="${VM_BOOTS:-60}" "$TOP/scripts/vm.sh" patched check.sh "$res" || rc=$?
	cp -f "$res/kselftest.tap" "$CHECK_OUT/kselftest.tap" 2>/dev/null || : > "$CHECK_OUT/kselftest.tap"
	cp -f "$res/dmesg.txt" "$CHECK_OUT/dmesg.txt" 2>/dev/null ||
		cp -f "$res/console.log" "$CHECK_OUT/dmesg.txt" 2>/dev/null || : > "$CHECK_OUT/dmesg.txt"

	if [ ! -s "$res/booted" ]; then
		record FAIL "VM boot" "the guest never started its script (exit $rc): see $res/console.log"
	else
		record PASS "VM boot ($(cat "$res/uname.txt" 2>/dev/null), ${VM_ACCEL:-tcg}, script started after $(cut -d' ' -f1 "$res/booted") s of guest time)"
	fi
	kselftests "$res"
	bench_smoke "$res"
	boot_verdict "$res" "$rc" "$CHECK_OUT/dmesg.txt"
	nfsd_half
	[ "${CHECK_SCOPED:-1}" = 0 ] || scoped
}
main "$@"
