#!/usr/bin/env bash
# In the VM: one repetition of a benchmark profile (scripts/bench-profiles.sh) on an
# xfs scratch filesystem exported over loopback, after measuring the scratch disk's
# raw O_DIRECT bandwidth and recording what the devices report.
#   bench.sh short|full|nfsd|noise|variants|determ   one boot of that profile (the host alternates kernels)
#   bench.sh inboot FIRST [BASES]  rounds FIRST.. of an in-boot profile: the series' dontcache
#                                  policy against BASES' (default stock; see ab_policy)
#   bench.sh smoke            the suite's dry runs and 10 s per target, for make check
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/bench-profiles.sh
. "$(dirname "$0")/../bench-profiles.sh"

BENCH=$SRC/tools/testing/nfsd-io-bench/run-benchmarks.sh
MNT=/mnt

# run NAME TARGET ARGS...: one suite run, results in $OUT/NAME ($OUT: $RESULTS, or
# one round's directory of an in-boot profile). The suite writes to a tmpfs, copied
# to $OUT after the run: no 9p I/O, whose completions come in host time, while it
# measures (in the deterministic profile they would move the guest's clock).
run() {
	local name=$1 target=$2 dir=${OUT:-$RESULTS} stage=/run/bench-stage rc=0
	shift 2
	echo "== $name: $target $*"
	mkdir -p "$stage"
	mountpoint -q "$stage" || mount -t tmpfs none "$stage"
	part "$name" "$BENCH" -t "$target" -o "$stage/$name" "$@" > "$stage/$name.log" 2>&1 || rc=$?
	cp -a "$stage/." "$dir/"
	rm -rf "${stage:?}/"*
	echo "$rc" > "$dir/$name.rc"
}

# dry_run NAME TARGET ARGS...: the whole default matrix, printed, nothing run.
dry_run() {
	local name=$1 target=$2 rc=0
	shift 2
	part "dry-$name" "$BENCH" -t "$target" "$@" --dry-run > "$RESULTS/dry-$name.log" 2>&1 || rc=$?
	echo "$rc" > "$RESULTS/dry-$name.rc"
}

# The raw O_DIRECT bandwidth of the second scratch disk: the physical limit.
limits() {
	local size
	size=$(blockdev --getsize64 "$SCRATCH2")
	[ "$size" -le $((4 << 30)) ] || size=$((4 << 30))
	fio --name=odirect --filename="$SCRATCH2" --rw=write --bs=1M --direct=1 \
		--ioengine=io_uring --iodepth=8 --size="$size" --runtime="$1" --time_based \
		--output-format=json --output="$RESULTS/limits-odirect.json" >/dev/null
}

# What the devices tell NFSD: the queue's dma_alignment, and statx(STATX_DIOALIGN)
# of a file on the filesystem the bench writes to.
disk_info() {
	local dev f=$MNT/.dioalign
	gcc -O2 -o /tmp/dioalign "$(dirname "$0")/dioalign.c"
	: > "$f"
	{
		echo "disk,device,model,dma_alignment,logical_block_size,fs,dio_mem_align,dio_offset_align"
		for dev in "$SCRATCH1" "$SCRATCH2"; do
			# null_blk has neither serial nor model: its name stands for both.
			printf '%s,%s,%s,%s,%s,' "$(tr -d ' ' 2>/dev/null < "/sys/block/${dev#/dev/}/device/serial" || echo "${dev#/dev/}")" \
				"${dev#/dev/}" "$(tr -s ' ' 2>/dev/null < "/sys/block/${dev#/dev/}/device/model" | sed 's/ *$//' || echo null_blk)" \
				"$(cat "/sys/block/${dev#/dev/}/queue/dma_alignment")" \
				"$(cat "/sys/block/${dev#/dev/}/queue/logical_block_size")"
			if [ "$dev" = "$SCRATCH1" ]; then
				echo "xfs,$(/tmp/dioalign "$f")"
			else
				echo "raw (O_DIRECT limit),-,-"
			fi
		done
	} > "$RESULTS/disks.csv"
	rm -f "$f"
}

# The modes this kernel's NFSD takes, of the ones asked for (mode 2 if none):
# io_cache_write 3 and 4 need the series, and so do N+FLOOR modes: a stock
# kernel takes the export options of the floors and ignores them.
write_modes() {
	local knob=/sys/kernel/debug/nfsd/io_cache_write old m out=() has34=0
	old=$(cat "$knob")
	if echo 4 > "$knob" 2>/dev/null; then
		echo "$old" > "$knob"
		has34=1
	fi
	IFS=, read -r -a m <<<"$1"
	for m in "${m[@]}"; do
		{ [[ $m =~ ^[34] ]] && [ "$has34" = 0 ]; } && continue
		{ [[ $m == *+* ]] && [ "$has34" = 0 ]; } && continue
		out+=("$m")
	done
	[ "${#out[@]}" -gt 0 ] || out=(2)
	(IFS=,; echo "${out[*]}")
}

smoke() {
	# The whole default matrix, with data sets that fit the check VM's scratch disk
	# (the default, twice the RAM, does not: the dry run says so and fails).
	local server=127.0.0.1:$MNT/export mode
	dry_run local local -d "$MNT/local" -s 1G
	dry_run nfs nfs -e "$MNT/export" -s 1G
	dry_run nfsmount nfsmount -e "$MNT/export" -s 1G
	run local local -d "$MNT/local" --smoke -w seq-write -m uncached
	run nfs nfs -e "$MNT/export" --smoke -w seq-write -m 2
	# A mode with a floor exports the export again with the option, and back.
	run nfsmount nfsmount -e "$MNT/export" --smoke -w split-write -m "$(write_modes 4,0+file_sync)"
	# The client side alone, as against a server elsewhere (--server): here the
	# loopback server, in the mode it was left in.
	mode=$(cat /sys/kernel/debug/nfsd/io_cache_write)
	dry_run remote nfsmount --server "$server" --server-mode "$mode" -s 1G
	run remote nfsmount --server "$server" --server-mode "$mode" --mount-opts nconnect=2 \
		--smoke -w split-write-buffered
}

# run_entry I: run I (from 1) of the profile, in $OUT.
run_entry() {
	local target wls modes rt size
	local -a where sz=()
	IFS='|' read -r target wls modes rt size <<<"${PROFILE_RUNS[$1 - 1]}"
	if [ "$target" = local ]; then
		where=(-d "$MNT/local")
	else
		where=(-e "$MNT/export")
		modes=$(write_modes "$modes")
	fi
	[ -z "$size" ] || sz=(-s "$size")
	run "run$1-$target" "$target" "${where[@]}" "${sz[@]}" -r "$rt" -n 1 -w "$wls" -m "$modes"
}

# rounds FIRST BASES: PROFILE_ROUNDS rounds numbered from FIRST. Each runs every run
# of the profile once per policy of the bench variant ab (BASES, then patched: see
# ab_policy), the policies back to back for each run, in reverse order in every other
# round (ABBA), in $RESULTS/rep<N>-<policy>; after one warm-up run; with rounds.csv
# (round, policy, order in the round, seconds spent in the policy's runs).
rounds() {
	local knob=/sys/module/kernel/parameters/dontcache_ab r i k n start OUT
	local -a order
	local -A secs
	[ -w "$knob" ] || { echo "bench.sh: no $knob: in-boot profiles need the bench kernel variant ab (config/variants/ab.diff)" >&2; return 2; }
	# The first run of a boot is slower than the same run later in it: it warms
	# up the guest and is thrown away, so that no policy always runs first.
	OUT=/tmp/warm-up
	mkdir -p "$OUT"
	run_entry 1
	for ((r = $1; r < $1 + PROFILE_ROUNDS; r++)); do
		IFS=, read -r -a order <<<"$2,patched"
		[ $((r % 2)) -eq 1 ] || mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
		for ((i = 1; i <= ${#PROFILE_RUNS[@]}; i++)); do
			for k in "${order[@]}"; do
				ab_policy "$k" > "$knob"
				OUT=$RESULTS/rep$r-$k
				mkdir -p "$OUT"
				start=$(date +%s)
				run_entry "$i"
				secs[$k]=$((${secs[$k]:-0} + $(date +%s) - start))
			done
		done
		n=0
		for k in "${order[@]}"; do
			n=$((n + 1))
			echo "$r,$k,$n,${secs[$k]}" >> "$RESULTS/rounds.csv"
			secs[$k]=0
		done
	done
	ab_policy patched > "$knob"
}

main() {
	local i
	guest_setup
	trap save_dmesg EXIT
	uname -r > "$RESULTS/uname.txt"
	{ nproc; awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo; } > "$RESULTS/shape.txt"
	mkfs.xfs -q -f "$SCRATCH1"
	mount "$SCRATCH1" "$MNT"
	mkdir -p "$MNT/export" "$MNT/local"
	start_nfsd "$MNT/export"
	disk_info
	if [ "${1:-}" = smoke ]; then
		smoke
		return 0
	fi
	profile "${1:-}" || { echo "usage: bench.sh short|full|nfsd|noise|variants|inboot|determ|determ-mixed|determ-all|determ-submit|determ-writers|determ-many|smoke" >&2; return 2; }
	# sleep: the suite's meminfo sampler runs it every second during a run.
	pin_tools fio jq sleep
	limits "$PROFILE_LIMIT_S"
	if [ -n "$PROFILE_ROUNDS" ]; then
		rounds "${2:?in-boot profile: give the number of the first round}" "${3:-stock}"
		return 0
	fi
	for ((i = 1; i <= ${#PROFILE_RUNS[@]}; i++)); do
		run_entry "$i"
	done
}

main "$@"
