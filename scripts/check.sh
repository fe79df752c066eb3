#!/usr/bin/env bash
# make check: every check of the series, from checkpatch to the tests in the VM.
# Writes out/check/{summary.txt,kselftest.tap,dmesg.txt} and ends with the line
# "N passed, N failed, N skipped". Exits non-zero if anything failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local start pass fail skip
	start=$(date +%s)
	rm -rf "$CHECK_OUT"
	mkdir -p "$CHECK_OUT"
	export CHECK_OUT
	step "checkpatch and git am" "$TOP/scripts/check-patches.sh" ||
		record FAIL "patch checks" "could not run (see above)"
	if step "quoted figures against the committed results" python3 "$TOP/scripts/check-numbers.py"; then
		record PASS "make numbers: every quoted figure is in the rebuilt report it names"
	else
		record FAIL "make numbers" "figures above are not in the reports they name"
	fi
	step "bisect build, W=1, sparse" "$TOP/scripts/check-build.sh" ||
		record FAIL "bisect build" "the build check could not run (see above)"
	step "each half alone" "$TOP/scripts/check-halves.sh" ||
		record FAIL "halves" "the halves check could not run (see above)"
	step "kselftests in the VM" "$TOP/scripts/check-vm.sh" ||
		record FAIL "VM run" "the VM check could not run (see above)"
	step "crash durability" "$TOP/scripts/check-crash.sh" ||
		record FAIL "crash test" "could not run (see above)"

	pass=$(grep -c '^PASS' "$CHECK_OUT/harness.txt" || true)
	fail=$(grep -c '^FAIL' "$CHECK_OUT/harness.txt" || true)
	skip=$(grep -c '^SKIP' "$CHECK_OUT/harness.txt" || true)
	{
		echo "make check on $(date -u +%Y-%m-%dT%H:%MZ), $(( $(date +%s) - start ))s" \
			"($(( $(date +%s) - ${MAKE_START:-$start} ))s with the builds before it)"
		cat "$CHECK_OUT/harness.txt"
		echo
		echo "Step times (the steps nested in a step indented below it):"
		step_times
	} > "$CHECK_OUT/summary.txt"
	echo
	cat "$CHECK_OUT/summary.txt"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
}
main "$@"
