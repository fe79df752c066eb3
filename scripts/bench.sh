#!/usr/bin/env bash
# make / make bench: run nfsd-io-bench on stock v7.3.4 and on the patched kernel,
# one after the other in the same VM shape, and write results/<date>/report.md.
#   bench.sh short|full|mm [RESULTS_DIR]
# BENCH_REPS=N replaces the profile's number of repetitions.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local profile=${1:-short} dir=${2:-$TOP/results/$(date -u +%Y-%m-%d)-${1:-short}} k
	case $profile in
	short) : "${VM_TIMEOUT:=3600}" ;;
	# Files of twice the guest's RAM need room on the scratch disks (sparse).
	full | mm) : "${VM_TIMEOUT:=21600}" "${VM_DISK_MB:=12288}" ;;
	*) die "unknown bench profile '$profile': use short, full or mm" ;;
	esac
	# The suite as the branch has it, so that the tree's checkout may change meanwhile.
	export VM_SRC=$CACHE_DIR/bench-src VM_TIMEOUT VM_DISK_MB
	rm -rf "$VM_SRC"
	mkdir -p "$dir" "$VM_SRC"
	git -C "$TREE" archive "$WORK_BRANCH" tools/testing/nfsd-io-bench | tar -x -C "$VM_SRC"
	for k in stock patched; do
		rm -rf "${dir:?}/$k"
		step "bench ($profile) on the $k kernel" "$TOP/scripts/vm.sh" "$k" bench.sh "$dir/$k" "$profile" ${BENCH_REPS:+"$BENCH_REPS"}
	done
	step "report" "$TOP/scripts/report.sh" "$dir"
	log "report: $dir/report.md"
}
main "$@"
