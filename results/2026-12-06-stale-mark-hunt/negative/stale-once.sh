#!/usr/bin/env bash
# TEMPORARY (not committed): run the stale-mark test N times.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
guest_setup
KSFT=/srv/ksft
rm -rf "$KSFT/install"
make -s -C "$SRC/tools/testing/selftests" O="$KSFT/build" TARGETS=dontcache \
	KHDR_INCLUDES="-isystem $KBUILD/usr/include" INSTALL_PATH="$KSFT/install" \
	install > "$RESULTS/kselftest-build.log" 2>&1
cd "$KSFT/install/dontcache"
for i in $(seq "${1:-3}"); do
	rc=0
	./dontcache.sh -t fsynced_dontcache_file_keeps_plain_dirty_data_during_other_stream > "$RESULTS/tap.$i" 2> "$RESULTS/err.$i" || rc=$?
	echo "$i rc=$rc" >> "$RESULTS/summary"
done
