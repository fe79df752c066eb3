#!/usr/bin/env bash
# In the VM: build and run the dontcache kselftests (the same as
# 'make kselftest TARGETS=dontcache' without rebuilding the kernel headers,
# which the host already installed in the build directory).
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local rc=0
	guest_setup
	trap save_dmesg EXIT
	uname -r > "$RESULTS/uname.txt"
	export DONTCACHE_XFS_DEV=$SCRATCH1 DONTCACHE_EXT4_DEV=$SCRATCH2
	# building_out_of_srctree is what the top-level Makefile sets for an O= build:
	# the scripts are then copied next to the binaries and run from there.
	make -s -C "$SRC/tools/testing/selftests" O=/tmp/ksft TARGETS=dontcache \
		building_out_of_srctree=1 KHDR_INCLUDES="-isystem $KBUILD/usr/include" run_tests \
		> "$RESULTS/kselftest.tap" 2> "$RESULTS/kselftest.err" || rc=$?
	echo "$rc" > "$RESULTS/kselftest.rc"
}
main "$@"
