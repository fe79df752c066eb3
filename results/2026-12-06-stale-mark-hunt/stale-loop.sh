#!/usr/bin/env bash
# TEMPORARY (not committed): loop the stale-mark test, keep the trace of failures.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
guest_setup
KSFT=/srv/ksft
rm -rf "$KSFT/install"
make -s -C "$SRC/tools/testing/selftests" O="$KSFT/build" TARGETS=dontcache \
	KHDR_INCLUDES="-isystem $KBUILD/usr/include" INSTALL_PATH="$KSFT/install" \
	install > "$RESULTS/kselftest-build.log" 2>&1
T=/sys/kernel/tracing
echo 20000 > $T/buffer_size_kb
n=${1:-10}
cd "$KSFT/install/dontcache"
for i in $(seq "$n"); do
	echo > $T/trace
	rc=0
	./dontcache.sh -t dontcache_writer_leaves_unrelated_dirty_file_alone -t fsynced_dontcache_file_keeps_plain_dirty_data_during_other_stream > "$RESULTS/tap.$i" 2> "$RESULTS/err.$i" || rc=$?
	echo "$i rc=$rc $(grep -c 'written early' "$RESULTS/err.$i") $(grep -o '[0-9]* pages unwritten' "$RESULTS/err.$i")" >> "$RESULTS/summary"
	if [ "$rc" -ne 0 ]; then
		cp $T/trace "$RESULTS/trace.$i"
	elif [ "$i" -eq 1 ]; then
		cp $T/trace "$RESULTS/trace.pass.$i"
	fi
done
