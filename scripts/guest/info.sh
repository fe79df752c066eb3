#!/usr/bin/env bash
# In the VM: report the kernel and the NFSD io_cache knobs.
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local knob
	guest_setup
	trap save_dmesg EXIT
	{
		echo "uname -r: $(uname -r)"
		for knob in io_cache_read io_cache_write; do
			if [ -r "/sys/kernel/debug/nfsd/$knob" ]; then
				echo "$knob: $(cat "/sys/kernel/debug/nfsd/$knob")"
			else
				echo "$knob: (missing)"
			fi
		done
	} | tee "$RESULTS/info.txt"
}
main "$@"
