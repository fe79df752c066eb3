#!/usr/bin/env bash
# In the VM: build, install and run the series' kselftests (what
# 'make kselftest TARGETS="dontcache nfsd"' does, with the kernel headers the
# host already installed in the build directory).
#   kselftest.sh [PROGRAM [ARGS...]]   only one of the programs, dontcache.sh or nfsd.sh;
#                                      with ARGS, run it directly with them
#                                      (dontcache.sh -v xfs -t TEST)
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

KSFT=/srv/ksft
TARGETS="dontcache nfsd"

# target_of PROGRAM: the kselftest target PROGRAM belongs to.
target_of() {
	case $1 in
	nfsd*) echo nfsd ;;
	*) echo dontcache ;;
	esac
}

main() {
	local rc=0
	guest_setup
	trap save_dmesg EXIT
	uname -r > "$RESULTS/uname.txt"
	export DONTCACHE_XFS_DEV=$SCRATCH1 DONTCACHE_EXT4_DEV=$SCRATCH2
	[ -z "${SLOW_DISK:-}" ] || export DONTCACHE_SLOW_DEV=$SLOW_DISK
	export NFSD_XFS_DEV=$SCRATCH1 NFSD_EXT4_DEV=$SCRATCH2
	# As 'make kselftest-install' does; the build directory is kept between boots,
	# the installed tests are not: a target that fails to build must not leave
	# the last build's binaries to run. The selftests' make goes on past a target
	# that fails, so its errors are looked for in the log.
	rm -rf "$KSFT/install"
	make -s -C "$SRC/tools/testing/selftests" O="$KSFT/build" TARGETS="$TARGETS" \
		KHDR_INCLUDES="-isystem $KBUILD/usr/include" INSTALL_PATH="$KSFT/install" \
		install > "$RESULTS/kselftest-build.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^make.*\*\*\* ' "$RESULTS/kselftest-build.log"; then
		rc=2
	fi
	if [ "$rc" -ne 0 ]; then
		echo "$rc" > "$RESULTS/kselftest.rc"
		return 0
	fi
	if [ $# -gt 1 ]; then
		(cd "$KSFT/install/$(target_of "$1")" && "./$1" "${@:2}") \
			> "$RESULTS/kselftest.tap" 2> "$RESULTS/kselftest.err" || rc=$?
	else
		"$KSFT/install/run_kselftest.sh" ${1:+-t "$(target_of "$1"):$1"} \
			> "$RESULTS/kselftest.tap" 2> "$RESULTS/kselftest.err" || rc=$?
	fi
	echo "$rc" > "$RESULTS/kselftest.rc"
}
main "$@"
