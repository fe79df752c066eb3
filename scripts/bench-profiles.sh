#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are used by the scripts that source this file
# The benchmark profiles: what one VM boot of each profile runs. Sourced by the host
# (scripts/bench.sh: repetitions, VM shape, time estimate) and by the guest
# (scripts/guest/bench.sh: the runs), so the plan and what runs cannot drift apart.
#
# profile NAME sets
#   PROFILE_REPS     boots per kernel (stock and patched alternate, ABBA)
#   PROFILE_MEM      guest RAM; the local streaming data sets are twice this
#   PROFILE_DISK_MB  size of each sparse scratch disk
#   PROFILE_LIMIT_S  seconds of the raw O_DIRECT measurement of the scratch disk
#   PROFILE_ROUNDS   in-boot profiles only: rounds per boot, each running PROFILE_RUNS
#                    once per dontcache policy (ab_policy) in one image
#   PROFILE_DETERMINISTIC  1: boot with vm.sh VM_DETERMINISTIC=1 (guest time from guest
#                    instructions, null_blk disks in the guest)
#   PROFILE_SLOWDOWN host seconds per guest second a boot takes, for the time estimate
#   PROFILE_SIDE_BY_SIDE  1: the kernels of a repetition boot side by side where the
#                    host allows it (bench.sh side_by_side; BENCH_PARALLEL=0/1 overrides)
#   PROFILE_SETUP_S  guest seconds a boot spends besides what the estimate counts by
#                    itself (a large layout, disks larger than determ's), fitted to a run
#   PROFILE_RUNS     one nfsd-io-bench call per entry: TARGET|WORKLOADS|MODES|RUNTIME|SIZE
#                    (SIZE empty: the suite's default, 2 x guest RAM). NFS modes 3 and 4
#                    are dropped on a kernel whose io_cache_write refuses them (stock),
#                    and so are modes N+FLOOR (export floors need the series too).

# determ_vm: the deterministic profiles' VM (issue 34): guest time counted in
# guest instructions, null_blk disks of 3 GiB in guest RAM, 5 repetitions.
determ_vm() {
	PROFILE_REPS=5
	PROFILE_DETERMINISTIC=1
	PROFILE_SLOWDOWN=3
	PROFILE_DISK_MB=3072
	# The disk model's ceiling: 941.35-941.77 MB/s in 5 s in every boot of
	# results/2026-12-07-1349-determ, 946.53 in 1 s (the 64 MiB cache's
	# first burst weighs more; results/2026-12-07-1923-determ-all). A guest
	# second of O_DIRECT costs about 11 s of a boot here, so 1 s.
	PROFILE_LIMIT_S=1
}

profile() {
	PROFILE_MEM=1G
	PROFILE_DISK_MB=8192
	PROFILE_LIMIT_S=10
	PROFILE_ROUNDS=
	PROFILE_DETERMINISTIC=0
	PROFILE_SLOWDOWN=1
	PROFILE_SETUP_S=0
	PROFILE_SIDE_BY_SIDE=0
	case $1 in
	short)
		# What a first `make` can judge within its 40 minutes, the two cold
		# kernel builds (about 27 min) included: P0 and P1 for one writer, the
		# untouched buffered write (P6), P5's disk reads per misaligned WRITE.
		# 3 repetitions, the fewest that decide anything; 10 s still writes
		# three times the 1 GiB of RAM (results/2026-12-03-1711-short: 3.5-5.7
		# GB in 15 s).
		PROFILE_REPS=3
		PROFILE_LIMIT_S=5
		PROFILE_RUNS=(
			"local|seq-write|buffered,uncached|10|"
			"nfs|misaligned-write|2|8|1G"
		)
		;;
	full)
		# 2 GiB: the mixed runs stalled a 1 GiB guest once (see mixed).
		# nfs seq-write 0,1: P0's NFSD row (dontcache over NFS, mode 1 / mode 0).
		# seq-write 30 s: in 20 s a slow boot wrote 2.09 GB, less than the RAM, so
		# P1 could not be judged (results/2026-12-03-1138-full).
		PROFILE_REPS=5
		PROFILE_MEM=2G
		PROFILE_RUNS=(
			"local|seq-write|buffered,uncached,direct|30|"
			"local|files32-write|buffered,uncached|20|"
			"local|solo-writer,competing-writers|buffered|20|"
			"local|kara-mixed,readers-alone,readers-beside-writer|buffered|20|"
			"nfs|seq-write|0,1|10|1G"
			"nfs|misaligned-write|2,3,4|10|1G"
			"nfsmount|split-write,split-write-buffered|2,3,4|10|1G"
		)
		;;
	nfsd)
		# The NFSD WRITE floors: split WRITEs under a floor (flushes per WRITE),
		# misaligned raw WRITEs, and buffered I/O on a file_sync export against
		# a sync export's UNSTABLE WRITEs + COMMITs (kernel client).
		PROFILE_REPS=3
		PROFILE_RUNS=(
			"nfsmount|split-write|2,3,4|10|1G"
			"nfs|misaligned-write|2,3,4|10|1G"
			"nfsmount|seq-write|0,0+file_sync|10|1G"
		)
		;;
	noise)
		# The bench's own noise, for choosing its setup (VM_ICOUNT): code the
		# series does not touch (buffered writes; O_DIRECT first in the boot,
		# before any dontcache I/O, and again last) beside the dontcache
		# writers whose patched/stock ratio is goal P0.
		PROFILE_REPS=4
		PROFILE_RUNS=(
			"local|seq-write|direct,buffered,uncached|20|"
			"local|files32-write|uncached|20|"
			"local|seq-write|direct|20|"
		)
		;;
	variants)
		# Variants of the mm patch (BENCH_BASE=stock,NAME) on the workloads that
		# judge it: P0 (one writer, 32 files, NFSD mode 1), several writers of one
		# file, Jan Kara's case (P7), and the untouched buffered and O_DIRECT
		# writes that show the noise.  4 GiB disks, so that a pair of them fits
		# in host RAM (VM_DISK_ROOT=/dev/shm).
		PROFILE_REPS=3
		PROFILE_DISK_MB=4096
		PROFILE_RUNS=(
			"local|seq-write|direct,buffered,uncached|20|"
			"local|files32-write,samefile-write|uncached|20|"
			"local|kara-mixed|buffered|20|"
			"nfs|seq-write|1|10|1G"
		)
		;;
	inboot)
		# Patch 1 against v7.3's dontcache path (and other policies: BENCH_BASE,
		# ab_policy) within one boot of one image, the bench variant ab
		# (config/variants/ab.diff), switched at run time: no build or boot
		# bias between them (results/2026-12-03-1316-variants measured 23%
		# between two builds of identical code). P0 for one writer, 32 files
		# and NFSD mode 1, peak Dirty, and the buffered write that no policy
		# touches, as the noise of the pairs.
		PROFILE_REPS=3
		PROFILE_ROUNDS=3
		PROFILE_RUNS=(
			"local|seq-write|buffered,uncached|15|"
			"local|files32-write|uncached|15|"
			"nfs|seq-write|1|10|1G"
		)
		;;
	determ)
		# The deterministic profile (issue 34): P0's three rows (one writer, 32
		# files, NFSD mode 1), P2 (32 files, dontcache / buffered) and the
		# buffered write no patch touches, timed by the guest's instruction
		# count on a disk the guest times. The guest
		# has 1 GiB besides the null_blk disks, so the data sets are given: 2
		# GiB, twice what the page cache can hold (the suite's default, twice
		# MemTotal, would count the disks' RAM). 5 repetitions, the fewest
		# the verdict rule decides from. NFSD mode 1 runs 30 s: in 10 s runs
		# identical code moved it by 1.00 [0.989-1.02], as much as the series
		# did (results/2026-12-05-1846-determ, 10 boots of 366-431 s, 67 min).
		determ_vm
		PROFILE_RUNS=(
			"local|seq-write|buffered,uncached|10|2G"
			"local|files32-write|buffered,uncached|10|2G"
			"nfs|seq-write|1|30|1G"
		)
		;;
	determ-mixed)
		# The deterministic profile's second half: the goals with two workloads
		# in one run, P3 (a buffered writer beside a dontcache writer / alone)
		# and P8 (random readers beside a dontcache writer / alone). Same VM
		# and disks as determ; the writers' data sets are half the given 2 GiB,
		# the readers' file an eighth. 5 repetitions.
		determ_vm
		PROFILE_RUNS=(
			"local|solo-writer,competing-writers|buffered|10|2G"
			"local|readers-alone,readers-beside-writer|buffered|10|2G"
		)
		;;
	determ-all)
		# make bench: determ and determ-mixed in one boot, so that one run
		# decides P0, P2, P3, P6 and P8 and each boot's setup (the boot, the
		# disks' fill, mkfs, the O_DIRECT limit: about 100 of a determ boot's
		# 215 guest seconds) is paid once. Its two kernels boot side by side
		# (bench.sh side_by_side): 5 pairs took 76 min of boots in
		# results/2026-12-07-1807-determ-all, where the two halves booted in
		# turn took 92 and 60 (results/2026-12-07-1349-determ,
		# results/2026-12-06-0513-determ-mixed); the run's own identical-code
		# control shows whether that moved its floor.
		profile determ-mixed
		local mixed=("${PROFILE_RUNS[@]}")
		profile determ
		PROFILE_RUNS+=("${mixed[@]}")
		PROFILE_SIDE_BY_SIDE=1
		# The fill of the two disks (about 70 s of host time) and two VMs on
		# the host's two cores: 833-842 s a boot against 693 estimated
		# without it (results/2026-12-07-1923-determ-all, whose fill was
		# BLKZEROOUT; dd's boots took 832-934 s in 1807).
		PROFILE_SETUP_S=50
		;;
	determ-submit|determ-writers)
		# What writer submission (patches 4-7) adds to patch 2's scoped pass:
		# run with BENCH_BASE=scoped, the series whose writers never submit
		# (config/variants/scoped.diff: every dontcache write kicks the
		# flusher, as with patch 2 alone). P0's local rows, a buffered and a
		# dontcache writer side by side, readers beside a dontcache writer;
		# the buffered write no patch touches as the noise. Same VM and disks
		# as determ, 5 repetitions. determ-writers leaves the readers out
		# (about 60 min instead of 80), for another variant of the writer
		# side against the series: BENCH_BASE=NAME after
		# scripts/kernel.sh variant NAME.
		determ_vm
		PROFILE_RUNS=(
			"local|seq-write|buffered,uncached|10|2G"
			"local|files32-write|uncached|10|2G"
			"local|competing-writers|buffered|10|2G"
		)
		[ "$1" = determ-writers ] ||
			PROFILE_RUNS+=("local|readers-alone,readers-beside-writer|buffered|10|2G")
		;;
	determ-many)
		# One dontcache stream beside 100000 dirty inodes (many-inodes: P7's
		# cost rows, issue 33): the stream's MB/s and the kworkers' CPU per GB
		# under v7.3.4's pass and the series'. The VM of determ, with 2 GiB for
		# the page cache, as results/2026-12-07-many-inodes-determ had, so that
		# the 400 MB of small files stay under the background threshold, and
		# disks of 6 GiB: until written back xfs reserves some 3.3 GB for them,
		# and on 3 GiB it wrote all but 8324 back (results/2026-12-07-0847-determ-many).
		# Its boots took 303-322 s, against 165 s from the runs alone: the
		# layout of 100000 files and the fill of two 6 GiB disks.
		determ_vm
		PROFILE_MEM=2G
		PROFILE_DISK_MB=6144
		PROFILE_SETUP_S=50
		PROFILE_RUNS=("local|many-inodes|buffered|10|2G")
		;;
	*) return 1 ;;
	esac
}

# Seconds one boot is expected to take besides its runs (boot, mkfs, NFS server start,
# the O_DIRECT limit, power-off), and per run besides its runtime (file removal, cache
# drop, the sync after the run). Fitted to the boots.csv of committed runs of four
# profiles (results/2026-12-01-0348-full, -02-0235-policy, -02-0614-nfsd,
# -03-0811-variants): every boot took within 13% of its estimate. The first full run
# with them (results/2026-12-03-1138-full) took 5-16% longer: 89 min of boots against
# 84. The suite's own estimate (run-benchmarks.sh) keeps a coarser 15 s per run.
readonly PROFILE_BOOT_S=30
readonly PROFILE_RUN_OVERHEAD_S=10

# ab_policy NAME: the value of the bench variant ab's switch
# (/sys/module/kernel/parameters/dontcache_ab, config/variants/ab.diff) that runs a
# dontcache policy: patched (the series), stock (v7.3.4's path), scoped (the scoped
# kick alone, no writer-side writeback), bgrule (writers submit only at or above the
# background threshold, patch 1 before v4).
ab_policy() {
	case $1 in
	patched) echo 0 ;;
	stock) echo 1 ;;
	scoped) echo 2 ;;
	bgrule) echo 3 ;;
	*) return 1 ;;
	esac
}

# modes_for KERNEL MODES: the modes a kernel runs (stock NFSD has neither
# io_cache_write 3 and 4 nor the floor export options).
modes_for() {
	local m out=()
	IFS=, read -r -a m <<<"$2"
	for m in "${m[@]}"; do
		[[ $1 = stock && ( $m =~ ^[34] || $m == *+* ) ]] || out+=("$m")
	done
	(IFS=,; echo "${out[*]}")
}

# boot_seconds KERNEL [POLICIES]: the estimated duration of one boot of the loaded
# profile (an in-boot profile runs its runs POLICIES times per round, default 2).
boot_seconds() {
	local entry target wls modes rt size n_wl n_mode runs=0
	for entry in "${PROFILE_RUNS[@]}"; do
		IFS='|' read -r target wls modes rt size <<<"$entry"
		n_wl=$(tr ',' '\n' <<<"$wls" | wc -l)
		n_mode=$(modes_for "$1" "$modes" | tr ',' '\n' | wc -l)
		# solo-writer and competing-writers run under one mode only.
		runs=$((runs + n_wl * n_mode * (rt + PROFILE_RUN_OVERHEAD_S)))
	done
	[ -z "$PROFILE_ROUNDS" ] || runs=$((${2:-2} * PROFILE_ROUNDS * runs))
	echo $((PROFILE_SLOWDOWN * (PROFILE_BOOT_S + PROFILE_SETUP_S + PROFILE_LIMIT_S + runs)))
}
