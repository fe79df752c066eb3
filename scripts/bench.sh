#!/usr/bin/env bash
# make / make bench: a benchmark profile (scripts/bench-profiles.sh) on
# stock v7.3.4 and on the patched kernel, both built without debug options, booting
# them in turn (ABBA: stock, patched, patched, stock, ...) so that host load drifts
# onto both kernels alike. Writes results/<date>-<time>-<profile>/ and its report.md.
#   bench.sh short|full|nfsd|noise|variants|inboot|determ|determ-mixed|determ-all|determ-submit|determ-writers|determ-many [RESULTS_DIR]
#   bench.sh --plan PROFILE   only the time estimate (make prints it before building)
# BENCH_REPS=N replaces the profile's number of repetitions (boots per kernel).
# BENCH_PARALLEL=1: a deterministic profile boots the kernels of a repetition side by
# side when the host has a core and the RAM for each (side_by_side); determ-all (make
# bench) does so unless BENCH_PARALLEL=0.
# BENCH_BASE=NAME[,NAME...] boots $BUILD_DIR/bench-NAME instead of bench-stock, or
# beside it (BENCH_BASE=stock,scoped): a variant of the series (scripts/kernel.sh
# variant NAME) or an earlier version. All kernels boot in every repetition; the report
# compares each base with patched (report.md the first, report-NAME.md the others).
# An in-boot profile (inboot) boots only the variant ab (config/variants/ab.diff),
# which switches between dontcache policies at run time: the series' (patched) and
# BENCH_BASE's (default stock: v7.3.4's path; see ab_policy). Every round of a boot is
# reported as one repetition.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/bench-profiles.sh
. "$(dirname "$0")/bench-profiles.sh"

# psi cpu|io avg10|avg60: the host's "some" pressure (% of time), or - without PSI.
psi() {
	[ -r "/proc/pressure/$1" ] || { echo -; return 0; }
	awk -v f="$2" '/^some/ { for (i = 2; i <= NF; i++) if (split($i, a, "=") == 2 && a[1] == f) v = a[2] }
		END { print (v == "" ? "-" : v) }' "/proc/pressure/$1"
}

# host_load: load1,cpu_psi,io_psi (some avg60) of the host now, for boots.csv.
host_load() {
	local load1 _
	read -r load1 _ < /proc/loadavg
	echo "$load1,$(psi cpu avg60),$(psi io avg60)"
}

# busiest: the host's busiest process over 5% CPU (ps: its CPU time over its lifetime),
# not a VM nor this bench, as "name pcpu%", or -.
busiest() {
	ps -eo pcpu=,comm= --sort=-pcpu | awk '
		!found && $1 > 5 && $2 !~ /^(qemu|ps$|bench\.sh|vm\.sh|awk$)/ {
			pc = $1; $1 = ""; sub(/^ +/, ""); gsub(/,/, " "); print $0 " " pc "%"; found = 1 }
		END { if (!found) print "-" }'
}

# wait_host_idle: wait (up to a minute) until the host has been idle for 10 s: CPU
# pressure (some avg10) < 5% and disk pressure < 1%, so that earlier deletions
# (discards), builds or other users do not slow the next boot. Fails if it never was.
# (load1 is recorded, not waited for: after a VM it takes minutes to decay.)
wait_host_idle() {
	local i quiet=0
	sync
	for ((i = 0; i < 60 && quiet < 10; i++)); do
		if awk -v c="$(psi cpu avg10)" -v d="$(psi io avg10)" \
			'BEGIN { exit !((c == "-" || c < 5) && (d == "-" || d < 1)) }'; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
		sleep 1
	done
	[ "$quiet" -ge 10 ]
}

# sample_load FILE: the host's load1 every 10 s into FILE, until killed or this
# script ends.
sample_load() {
	local load1 _
	while kill -0 "$$" 2>/dev/null; do
		read -r load1 _ < /proc/loadavg
		echo "$load1" >> "$1"
		sleep 10
	done
}

# load_during FILE: the median of the load1 samples in FILE, or - without any.
load_during() {
	sort -n "$1" 2>/dev/null | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}

fmt_min() { printf '%d min' $((($1 + 59) / 60)); }

# new_dir PROFILE: a results directory of its own for every run.
new_dir() {
	local base n=1 dir
	base=$TOP/results/$(date -u +%Y-%m-%d-%H%M)-$1
	dir=$base
	while [ -e "$dir" ]; do
		n=$((n + 1))
		dir=$base-$n
	done
	echo "$dir"
}

# order REP: the kernels of one repetition in boot order, reversed in every other
# repetition (ABBA, or ABC CBA with several bases).
order() {
	if [ $(($1 % 2)) -eq 1 ]; then echo "${KERNELS[@]}"; else printf '%s\n' "${KERNELS[@]}" | tac | xargs; fi
}

# split_rounds BOOT_DIR BOOTS_ROW: an in-boot profile's rounds, moved from the boot's
# directory to raw/rep<N>-<kernel> beside it with the boot's own records, and one
# boots.csv line per round and kernel (BOOTS_ROW: the boot's status, load and flag).
split_rounds() {
	local boot=$1 row=$2 r k n secs f
	[ -f "$boot/rounds.csv" ] || return 0
	while IFS=, read -r r k n secs; do
		[ -d "$boot/rep$r-$k" ] || continue
		for f in vm.json uname.txt shape.txt disks.csv; do
			[ ! -f "$boot/$f" ] || cp "$boot/$f" "$boot/rep$r-$k/"
		done
		mv "$boot/rep$r-$k" "$boot/.."
		echo "$r,$k,$n,$secs,$row"
	done < "$boot/rounds.csv"
}

# Seconds make spends before the first boot on a fresh machine, from the harness's own
# step log (results/2026-12-01-build-times): a bench kernel with ccache cold, the guest
# root (debootstrap), the kernel tree (import of linux-source-7.3); the deterministic
# profiles' QEMU root (vmm-root.sh, a second debootstrap) as long as the guest root's.
readonly COLD_KERNEL_S=820 COLD_ROOTFS_S=110 COLD_TREE_S=50 COLD_VMM_S=110

# plan PROFILE: set KERNELS, reps and UNBUILT (the bench kernels not built yet) for it,
# and log its time estimate first, the builds a first make still has to do included.
plan() {
	local prof=$1 k total=0 pre=0 secs
	local -a todo=()
	UNBUILT=()
	profile "$prof" || die "unknown bench profile '$prof': use short, full, nfsd, noise, variants, inboot, determ, determ-mixed, determ-submit, determ-writers or determ-many"
	# BASES: the kernels in the report's "stock" slot; KERNELS: the ones booted.
	IFS=, read -r -a BASES <<<"${BENCH_BASE:-stock}"
	KERNELS=("${BASES[@]}" patched)
	[ -z "$PROFILE_ROUNDS" ] || KERNELS=(ab)
	reps=${BENCH_REPS:-$PROFILE_REPS}
	[[ $reps =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS=$reps is not a positive number of repetitions"
	for k in "${BASES[@]}"; do
		if [ -n "$PROFILE_ROUNDS" ]; then
			if [ "$k" = patched ] || ! ab_policy "$k" >/dev/null; then
				die "BENCH_BASE=$BENCH_BASE: an in-boot profile takes policies of the variant ab other than patched (stock, scoped, bgrule), separated by commas"
			fi
		else
			[[ $k =~ ^[a-z0-9]+$ && $k != patched ]] ||
				die "BENCH_BASE=$BENCH_BASE: give kernel names (a-z, 0-9) other than patched, separated by commas"
		fi
	done
	PARALLEL=0
	! side_by_side || PARALLEL=1
	for k in "${KERNELS[@]}"; do
		secs=$(boot_seconds "$k" $((${#BASES[@]} + 1)))
		if ((PARALLEL)); then
			total=$((secs * reps > total ? secs * reps : total))
		else
			total=$((total + reps * secs))
		fi
		[ -f "$BUILD_DIR/bench-$k/arch/x86/boot/bzImage" ] || UNBUILT+=("$k")
	done
	for k in "${UNBUILT[@]}"; do
		todo+=("bench-$k")
		pre=$((pre + COLD_KERNEL_S))
	done
	[ -f "$ROOTFS/.harness-rootfs" ] || { todo+=(rootfs); pre=$((pre + COLD_ROOTFS_S)); }
	[ -d "$TREE/.git" ] || { todo+=(tree); pre=$((pre + COLD_TREE_S)); }
	[ "$PROFILE_DETERMINISTIC" = 0 ] || [ -f "$VMM_ROOT/.harness-vmm" ] ||
		{ todo+=(vmm-root); pre=$((pre + COLD_VMM_S)); }
	log "plan: profile $prof, $reps repetitions x (${KERNELS[*]}$( ((PARALLEL)) && echo ", side by side")), ${#PROFILE_RUNS[@]} suite calls per boot;" \
		"estimated $(fmt_min "$((pre + total))")$([ "$pre" -eq 0 ] || echo ", of which $(fmt_min "$pre") to build ${todo[*]}")," \
		"${KERNELS[0]} boot ~$(fmt_min "$(boot_seconds "${KERNELS[0]}" $((${#BASES[@]} + 1)))")$([ "$PROFILE_DETERMINISTIC" = 1 ] ||
			echo ", plus 10-60 s before each boot for an idle host")"
}

# boot_one DIR PROFILE REP KERNEL ROW: one boot of the run in DIR, its boots.csv line(s)
# into the file ROW.
boot_one() {
	local dir=$1 prof=$2 rep=$3 k=$4 flag="" before busy start rc=0 out secs during row sampler
	local -a args
	# Guest time from guest instructions: the host's load should enter no
	# figure, so it is recorded, not waited out.
	[ "$PROFILE_DETERMINISTIC" = 1 ] || wait_host_idle ||
		{ flag=loaded; warn "host still busy after a minute: rep $rep $k boots loaded"; }
	before=$(host_load)
	busy=$(busiest)
	start=$(date +%s)
	out=$dir/raw/rep$rep-$k
	args=("$prof")
	if [ -n "$PROFILE_ROUNDS" ]; then
		out=$dir/raw/boot$rep
		args+=($(((rep - 1) * PROFILE_ROUNDS + 1)) "$(IFS=,; echo "${BASES[*]}")")
	fi
	mkdir -p "$out"
	sample_load "$out/host-load1.txt" &
	sampler=$!
	step "bench $prof, repetition $rep/$reps, $k kernel" \
		"$TOP/scripts/vm.sh" "bench-$k" bench.sh "$out" "${args[@]}" || rc=$?
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	secs=$(($(date +%s) - start))
	during=$(load_during "$out/host-load1.txt")
	# The VM's vCPU threads make a load of about VM_CPUS; more than one
	# runnable task beyond that, half the boot long, is someone else's load.
	# report.py leaves such a repetition out of the wall-clock verdicts.
	if [ "$PROFILE_DETERMINISTIC" = 0 ] && [ "$during" != - ] &&
	   awk -v l="$during" -v c="${VM_CPUS:-2}" 'BEGIN { exit !(l > c + 1) }'; then
		flag="${flag:+$flag }loaded-during"
		warn "rep $rep $k: the host's median load1 during the boot was $during"
	fi
	row="$([ "$rc" -eq 0 ] && echo ok || echo "failed ($rc)"),$before,$(host_load),$busy,$flag,$during"
	if [ -n "$PROFILE_ROUNDS" ]; then
		split_rounds "$out" "$row" > "$5"
	else
		echo "$rep,$k,$(order "$rep" | tr ' ' '\n' | grep -n "^$k\$" | cut -d: -f1),$secs,$row" > "$5"
	fi
}

# side_by_side: whether the boots of a repetition may run at the same time. Under
# icount a guest's clock counts its own instructions and QEMU runs all its vCPUs in one
# host thread (design.md: a CPU loop took 36.41 s of guest time idle and beside two
# CPU hogs), so on a host with a core per kernel and the RAM for all of them the boots
# need not wait for each other. The default of make bench's profile only (determ-all):
# in its first trial (results/2026-12-07-1522-determ, one repetition) figures moved by
# up to 0.64%, as much as the boot's own floor, so every such run must show its own
# identical-code control, which report.py's verdicts already take as their band.
side_by_side() {
	local vm_mib avail
	[ "${BENCH_PARALLEL:-$PROFILE_SIDE_BY_SIDE}" = 1 ] || return 1
	[ "$PROFILE_DETERMINISTIC" = 1 ] && [ -z "$PROFILE_ROUNDS" ] || return 1
	[ "$(nproc)" -ge "${#KERNELS[@]}" ] || return 1
	# The guest RAM vm.sh will give each: the page cache's and two null_blk disks.
	vm_mib=$(VM_MEM=$PROFILE_MEM VM_DISK_MB=$PROFILE_DISK_MB VM_DETERMINISTIC=1 vm_mem)
	vm_mib=${vm_mib%M}
	avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	[ $((${#KERNELS[@]} * vm_mib + 2048)) -le "$avail" ]
}

main() {
	local prof=${1:-short} dir reps rep k boots
	if [ "$prof" = --plan ]; then
		plan "${2:-short}"
		return 0
	fi
	plan "$prof"
	[ "${#UNBUILT[@]}" -eq 0 ] ||
		die "no bench-${UNBUILT[0]} kernel in $BUILD_DIR: run 'make kernel-bench' (stock, patched) or 'scripts/kernel.sh variant ${UNBUILT[0]}'"
	dir=${2:-$(new_dir "$prof")}
	# One pair of scratch disk images for all boots of the run (each boot makes a new
	# filesystem on it). Deleting multi-GB images between boots let the host, whose ext4
	# discards freed blocks, stall the next boot's disk I/O for minutes: O_DIRECT fell from
	# 900 to 13 MB/s in one boot of an aborted run.
	export VM_DISK_DIR VM_FRESH_DISKS=0
	VM_DISK_DIR=$(vm_disk_dir "$dir")
	rm -rf "$VM_DISK_DIR"
	defer "rm -rf '$VM_DISK_DIR'"
	# The suite as the branch has it, so that the tree's checkout may change meanwhile.
	export VM_SRC=$CACHE_DIR/bench-src VM_MEM=$PROFILE_MEM VM_DISK_MB=$PROFILE_DISK_MB
	export VM_DETERMINISTIC=$PROFILE_DETERMINISTIC
	# A boot's budget, like every VM's (vm.sh), in multiples of how long it took to boot
	# on this host (30 s here), so that a slower host gets a longer one: three times
	# the estimate on a host like this one. In seconds, 3 x the estimate was less than a
	# boot takes on a host 3x slower when the estimate is low (a determ boot of
	# results/2026-12-07-1349-determ took 572 s here, estimated 465).
	# Never less than vm.sh's own 40.
	boots=$(((3 * $(boot_seconds patched) + 300) / 30 + 1))
	export VM_BOOTS=${VM_BOOTS:-$((boots > 40 ? boots : 40))}
	rm -rf "$VM_SRC"
	mkdir -p "$dir/raw" "$VM_SRC"
	git -C "$TREE" archive "$WORK_BRANCH" tools/testing/nfsd-io-bench | tar -x -C "$VM_SRC"
	printf '{"profile":"%s","reps":%d,"rounds":%d,"bases":["%s"]}\n' "$prof" "$reps" \
		"${PROFILE_ROUNDS:-0}" "${BASES[*]}" | sed 's/ /","/g' > "$dir/bench.json"
	echo "rep,kernel,boot,seconds,status,load1_before,cpu_psi_before,io_psi_before,load1_after,cpu_psi_after,io_psi_after,busy_before,flag,load1_during" > "$dir/boots.csv"
	for ((rep = 1; rep <= reps; rep++)); do
		for k in $(order "$rep"); do
			if ((PARALLEL)); then
				boot_one "$dir" "$prof" "$rep" "$k" "$dir/raw/rep$rep-$k.row" &
			else
				boot_one "$dir" "$prof" "$rep" "$k" "$dir/raw/rep$rep-$k.row"
			fi
		done
		wait
		for k in $(order "$rep"); do
			cat "$dir/raw/rep$rep-$k.row" >> "$dir/boots.csv"
			rm -f "$dir/raw/rep$rep-$k.row"
		done
	done
	step "report" python3 "$TOP/scripts/report.py" "$dir"
	log "report: ${dir#"$TOP"/}/report.md"
}
main "$@"
