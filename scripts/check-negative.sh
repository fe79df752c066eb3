#!/usr/bin/env bash
# make check-negative: the kselftests on stock v7.3.4 (the stock kernel, built with
# make check's config), to show that they can fail. The mm tests that judge the writeback
# policy by its effect on the page cache must FAIL there; the tests that read its
# decisions from the tracepoint must SKIP (stock has no such tracepoint); the tests of
# plain RWF_DONTCACHE behaviour, which stock has as well, may pass. Of the NFSD tests,
# the one of the v3 decoder and the NFSv2 one (mode 2) must FAIL; those of the modes
# SKIP (stock has no mode 4).
# Not part of make check. Writes out/check-negative/ and ends with "N passed, N failed".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# The mm tests that look at the page cache (cachestat) only.
EFFECT_TESTS=(
	dontcache_writer_leaves_unrelated_dirty_file_alone
	fsynced_dontcache_file_keeps_plain_dirty_data_during_other_stream
)
# The mm tests that read the tracepoint.
TRACE_TESTS=(
	writer_submits_up_to_its_last_completed_batch
	completed_batch_is_left_to_an_idle_flusher
	completed_batch_is_submitted_while_the_flusher_is_busy
	partial_batch_is_left_to_the_kicked_flusher
	same_file_writers_never_submit_at_once
	parallel_writers_skip_instead_of_piling_up
	dirty_pressure_lets_busy_writers_flush
	memcg_writer_near_its_dirty_limit_flushes
	enospc_is_reported_and_a_later_writer_still_submits
)

# NFSD's tests that need no mode of the series and judge what stock lacks.
NFSD_EFFECT_TESTS=(
	v3_write_with_unknown_stable_how_is_rejected
	stable_write_flushes_the_disk_cache
)

# result TAP NAME: ok, not ok or skip for every instance of test NAME (one per variant).
result() {
	grep -E "^# (not )?ok [0-9]+ [a-z0-9_]+\.([a-z0-9_]+\.)?$2( |\$)" "$1" |
		sed -E 's/^# (not ok|ok) [0-9]+ ([^ ]+).*(# SKIP).*/skip \2/;
			s/^# not ok [0-9]+ ([^ ]+).*/fail \1/; s/^# ok [0-9]+ ([^ ]+).*/pass \1/'
}

# judge TAP TEST...: record, for every instance of each TEST, whether it did on stock
# what its kind requires (an effect test fails, a trace test skips).
judge() {
	local tap=$1 t kind status name reason
	shift
	for t in "$@"; do
		[ -n "$(result "$tap" "$t")" ] ||
			record FAIL "negative: $t" "not in the output: renamed or not run?"
		kind=effect
		[[ " ${TRACE_TESTS[*]} " != *" $t "* ]] || kind=trace
		while read -r status name; do
			case $status,$kind in
			fail,effect) record PASS "negative: $name fails on stock" ;;
			skip,trace) record PASS "negative: $name skips on stock (no tracepoint)" ;;
			fail,trace) record FAIL "negative: $name fails on stock" "a missing tracepoint must SKIP" ;;
			skip,effect)
				reason=$(grep -m1 -E "ok [0-9]+ $name " "$tap" | sed 's/.*# SKIP //')
				if [[ $reason == *"rejects mode"* ]]; then
					record PASS "negative: $name skips on stock (no such mode)"
				else
					record FAIL "negative: $name skips on stock" "$reason"
				fi ;;
			pass,*) record FAIL "negative: $name passes on stock" "it cannot tell the feature is missing" ;;
			esac
		done < <(result "$tap" "$t")
	done
}

# boot_stock RES PROGRAM: the target's PROGRAM on stock; its TAP file.
boot_stock() {
	step "boot stock v7.3.4: the dontcache kselftests of $2" \
		"$TOP/scripts/vm.sh" stock kselftest.sh "$1" "$2" >&2 || true
	[ -s "$1/kselftest.tap" ] || die "no kselftest output from the stock kernel: see $1/console.log"
	echo "$1/kselftest.tap"
}

main() {
	local res=$OUT/check-negative tap nfsd_tap pass fail
	rm -rf "$res"
	mkdir -p "$res"
	export CHECK_OUT=$res
	[ -f "$BUILD_DIR/stock/arch/x86/boot/bzImage" ] ||
		die "no stock kernel in $BUILD_DIR/stock: run 'make check-negative'"
	tap=$(boot_stock "$res/vm" dontcache.sh)
	nfsd_tap=$(boot_stock "$res/vm-nfsd" nfsd.sh)
	judge "$tap" "${EFFECT_TESTS[@]}" "${TRACE_TESTS[@]}"
	judge "$nfsd_tap" "${NFSD_EFFECT_TESTS[@]}"
	# The others, for the record: these test what stock does too.
	grep -E '^# (not )?ok [0-9]+ ' "$tap" | grep -vE "$(IFS='|'; echo "${EFFECT_TESTS[*]}|${TRACE_TESTS[*]}" | tr ' ' '|')" |
		sed 's/^# /  other test on stock: /' >&2 || true
	pass=$(grep -c '^PASS' "$res/harness.txt" || true)
	fail=$(grep -c '^FAIL' "$res/harness.txt" || true)
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
main "$@"
