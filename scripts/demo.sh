#!/usr/bin/env bash
# make: boot the patched kernel and show what it runs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local res=$OUT/demo
	rm -rf "$res"
	step "boot the patched kernel" "$TOP/scripts/vm.sh" patched info.sh "$res"
	cat "$res/info.txt"
}
main "$@"
