#!/usr/bin/env bash
# Boot a kernel from the build cache in a VM (virtme-ng, TCG unless KVM is proven
# to work) with the guest root, two NVMe scratch disks (QEMU cache=none), the kernel
# tree and build read-only, and a results directory read-write, all under the
# guest's /srv (an overlay: virtme-ng mounts shared directories only inside one);
# run one guest script.
#
#   vm.sh KERNEL SCRIPT RESULTS_DIR [ARGS...]
#     KERNEL        patched (make check's, lockdep) | stock (v7.3.4, same config) | bench-patched | bench-stock
#     SCRIPT        a script in scripts/guest/
#     RESULTS_DIR   host directory that the guest sees as /results
# Environment: VM_ACCEL=tcg|kvm|auto (default tcg), VM_MEM (2G), VM_CPUS (2),
#              VM_BOOTS: the guest script may run for this many times what the boot
#              took (default 40; bench.sh sets it from its estimate), so that a slower
#              host gets a longer budget;
#              VM_BOOT_LIMIT: seconds the boot itself may take (900);
#              VM_TIMEOUT: seconds in all instead,
#              VM_DISK_MB (3072), VM_FRESH_DISKS=1 (0 keeps them),
#              VM_DISK_DIR: where the scratch disk images are (default: one per RESULTS_DIR
#              under VM_DISK_ROOT, $CACHE_DIR/disks; /dev/shm/NAME puts them in host RAM),
#              VM_PREALLOC=1: allocate new disk images on the host at once (fallocate),
#              VM_EXPECT_KILL=1 when the caller will kill the VM,
#              VM_LOG_WRITES=FILE: log scratch1's writes and flushes to FILE
#              (QEMU blklogwrites, dm-log-writes format; see log-replay.py),
#              VM_APPEND: more kernel parameters (e.g. dontcache_ab=2 for the variant ab),
#              VM_SRC: what the guest sees as the kernel tree (default: the tree),
#              VM_ICOUNT=N: TCG counts guest time in instructions, 2^N ns each (QEMU
#              -icount shift=N, single-threaded TCG); idle time still passes in real
#              time (sleep=on), so disk latency stays real. Empty (default): off.
#              VM_DETERMINISTIC=1: guest time from guest instructions alone: trixie's
#              QEMU (vmm-root.sh) with -icount shift=${VM_ICOUNT:-0},sleep=off (idle
#              time jumps to the next guest timer), and the scratch disks in the guest
#              (null_blk, see nullblk_append), so no host speed enters a guest timing.
#              VM_SLOWDOWN=N: QEMU gets 1/N of the host's CPU time (a cgroup's CPU
#              quota), to show that a check holds on a host N times slower.
# A VM that runs over its budget is killed with its whole process group; the reason
# (and the part of the guest script it was in) is in RESULTS_DIR/timeout.txt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

VM_MEM=${VM_MEM:-2G}
VM_CPUS=${VM_CPUS:-2}
VM_BOOTS=${VM_BOOTS:-40}
VM_BOOT_LIMIT=${VM_BOOT_LIMIT:-900}
VM_DISK_MB=${VM_DISK_MB:-3072}

# KVM only where a short boot actually succeeds: /dev/kvm opening is not enough here.
accel_args() {
	local probe=$CACHE_DIR/kvm-probe
	case ${VM_ACCEL:-tcg} in
	tcg) echo --disable-kvm ;;
	kvm)
		[ -w /dev/kvm ] || die "VM_ACCEL=kvm but /dev/kvm is missing or not writable: use VM_ACCEL=tcg"
		;;
	auto)
		if [ ! -f "$probe" ]; then
			if [ -w /dev/kvm ] && timeout 90 vng --run "$1" --root "$ROOTFS" --user root \
				-m 1G -p 1 --exec true >/dev/null 2>&1; then
				echo kvm > "$probe"
			else
				echo tcg > "$probe"
			fi
		fi
		[ "$(cat "$probe")" = kvm ] || echo --disable-kvm
		;;
	*) die "VM_ACCEL=${VM_ACCEL} is not one of tcg, kvm, auto" ;;
	esac
}

# disk_args RESULTS_DIR: scratch disks as raw sparse files, attached as QEMU's
# emulated NVMe with cache=none. NVMe, not virtio-blk: the NVMe driver's
# dma_alignment of 3 lets NFSD split direct WRITEs as on a real server; virtio-blk's
# 511 sends nearly all of them to the buffered fallback. The guest finds each disk
# by its serial number.
disk_args() {
	local name opts="" dir
	dir=${VM_DISK_DIR:-$(vm_disk_dir "$1")}
	mkdir -p "$dir"
	for name in scratch1 scratch2; do
		if [ "${VM_FRESH_DISKS:-1}" = 1 ] || [ ! -f "$dir/$name.img" ]; then
			rm -f "$dir/$name.img"
			# VM_PREALLOC: the host allocates the blocks now, not during the first
			# boot's writes (whether that changes its speed is not measured yet).
			if [ "${VM_PREALLOC:-0}" = 0 ]; then
				truncate -s "${VM_DISK_MB}M" "$dir/$name.img"
			else
				fallocate -l "${VM_DISK_MB}M" "$dir/$name.img"
			fi
		fi
		if [ "$name" = scratch1 ] && [ -n "${VM_LOG_WRITES:-}" ]; then
			# The same disk, through QEMU's blklogwrites: every write and flush
			# also goes, in order, to the log (check-crash.sh).
			rm -f "$VM_LOG_WRITES"
			truncate -s 64G "$VM_LOG_WRITES"
			opts+=" -blockdev driver=file,node-name=$name-data,filename=$dir/$name.img,cache.direct=on,aio=threads"
			opts+=" -blockdev driver=file,node-name=$name-log,filename=$VM_LOG_WRITES,cache.direct=on,aio=threads"
			opts+=" -blockdev driver=blklogwrites,node-name=$name,file=$name-data,log=$name-log,log-sector-size=512"
			opts+=" -device nvme,drive=$name,serial=$name,write-cache=on"
			continue
		fi
		opts+=" -drive file=$dir/$name.img,if=none,id=$name,format=raw,cache=none,aio=threads"
		opts+=" -device nvme,drive=$name,serial=$name"
	done
	# A slow disk for the kselftest of a page redirtied under writeback: QEMU lets
	# through $SLOW_DISK_IOPS writes a second, so each one takes tens of milliseconds.
	rm -f "$dir/slow.img"
	truncate -s 256M "$dir/slow.img"
	opts+=" -drive file=$dir/slow.img,if=none,id=slow,format=raw,cache=none,aio=threads"
	opts+=",throttling.iops-write=$SLOW_DISK_IOPS -device nvme,drive=slow,serial=slow"
	echo "$opts"
}
SLOW_DISK_IOPS=20

# The deterministic profile's disk model, the same for every kernel: two null_blk
# disks of VM_DISK_MB each, kept in guest RAM (given on top of VM_MEM), completed by
# a guest timer 20 us after submission, 1000 MiB/s per disk, 2 queues of 64, 512-byte
# sectors as QEMU's NVMe has, and a 64 MiB volatile write cache that FLUSH and FUA
# write through. The guest fills them before it measures (guest/lib.sh).
NULLBLK_MODEL="nr_devices=2 memory_backed=1 irqmode=2 completion_nsec=20000 mbps=1000 submit_queues=2 hw_queue_depth=64 bs=512 cache_size=64"

nullblk_append() {
	local p out=""
	for p in $NULLBLK_MODEL gb=$(nullblk_gib); do
		out+=" null_blk.$p"
	done
	echo "${out# }"
}

# vm_cgroup: a cgroup with 1/VM_SLOWDOWN of the host's CPU time (v1 or v2 cpu
# controller), printed as the directory whose cgroup.procs takes a process.
vm_cgroup() {
	local cg period=100000 quota
	quota=$(($(nproc) * period / VM_SLOWDOWN))
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
		cg=/sys/fs/cgroup/dontcache-vm
		mkdir -p "$cg"
		echo "$quota $period" > "$cg/cpu.max"
	elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		cg=/sys/fs/cgroup/cpu/dontcache-vm
		mkdir -p "$cg"
		echo "$period" > "$cg/cpu.cfs_period_us"
		echo "$quota" > "$cg/cpu.cfs_quota_us"
	else
		die "VM_SLOWDOWN needs a cgroup cpu controller (cgroup v1 or v2) under /sys/fs/cgroup"
	fi
	echo "$cg"
}

# start_vm IMAGE RESULTS QEMU_OPTS SCRIPT [ARGS...]: start the VM in a process group
# of its own (setsid), so that a timeout can kill QEMU and not only vng; VM_PID is
# its pid, which is the group's id. The guest writes RESULTS/booted when its script starts.
start_vm() {
	local image=$1 results=$2 qemu_opts=$3 script=$4 cg=""
	shift 4
	[ -z "${VM_SLOWDOWN:-}" ] || cg=$(vm_cgroup)
	rm -f "$results/booted" "$results/qemu.pid" "$results/timeout.txt"
	# noirqdebug: without CONFIG_PCI_MSI the NVMe disks share a legacy INTx line with
	# virtio devices; under TCG the kernel then sees it as unhandled ("irq 23: nobody
	# cared"), disables it, and every NVMe completion waits for the 100 ms spurious-IRQ
	# poll. That slowed whichever runs came after it by up to 200x.
	# shellcheck disable=SC2016  # $$ and $1 are the inner shell's
	setsid sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$cg" \
		vng --run "$image" "${extra[@]}" --root "$ROOTFS" --user root --append "noirqdebug${VM_APPEND:+ $VM_APPEND}" \
		-m "$(vm_mem)" -p "$VM_CPUS" --verbose \
		--overlay-rwdir /srv --rodir /srv/src="${VM_SRC:-$TREE}" \
		--rodir /srv/kbuild="$BUILD_DIR/$kernel" --rodir /srv/harness="$TOP/scripts" \
		--rwdir /srv/results="$results" --rwdir /srv/ksft="$CACHE_DIR/ksft/$kernel" \
		--qemu-opts="$qemu_opts -pidfile $results/qemu.pid" \
		--exec "cat /proc/uptime > /srv/results/booted; /srv/harness/guest/$script $*" \
		> "$results/console.log" 2>&1 < /dev/null &
	VM_PID=$!
}

# stop_vm PID RESULTS: kill the VM's process group and QEMU (by its pidfile, should it
# have left the group), and wait until QEMU is gone, so that its image locks are too.
stop_vm() {
	local pid=$1 qpid i
	qpid=$(cat "$2/qemu.pid" 2>/dev/null || true)
	kill -TERM -- "-$pid" 2>/dev/null || true
	for ((i = 0; i < 10; i++)); do
		kill -0 -- "-$pid" 2>/dev/null || break
		sleep 1
	done
	kill -KILL -- "-$pid" 2>/dev/null || true
	[ -z "$qpid" ] || kill -KILL "$qpid" 2>/dev/null || true
	for ((i = 0; i < 60; i++)); do
		{ [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; } || kill -0 -- "-$pid" 2>/dev/null || return 0
		sleep 1
	done
	warn "QEMU (pid ${qpid:-?}, group $pid) is still there a minute after SIGKILL"
}

# running_part RESULTS: the part of the guest script (scripts/guest/lib.sh part())
# that started last and has not ended.
running_part() {
	awk '$1 == "start" { p = $2 } $1 == "end" && $2 == p { p = "" } END { print p }' \
		"$1/parts.txt" 2>/dev/null || true
}

# boot IMAGE RESULTS QEMU_OPTS SCRIPT [ARGS...]: one VM run; its exit code is the
# guest script's, 255 when QEMU ended without one (QEMU error, panic), 124 when it
# ran over its budget: VM_BOOT_LIMIT for the boot, then VM_BOOTS times the boot's
# time (or VM_TIMEOUT in all).
boot() {
	local results=$2 pid start now deadline booted="" part why rc=0
	start=$(date +%s)
	start_vm "$@"
	pid=$VM_PID
	defer "stop_vm $pid '$results'"
	deadline=$((start + ${VM_TIMEOUT:-$VM_BOOT_LIMIT}))
	while kill -0 "$pid" 2>/dev/null; do
		now=$(date +%s)
		if [ -z "$booted" ] && [ -s "$results/booted" ]; then
			booted=$((now - start))
			[ -n "${VM_TIMEOUT:-}" ] || deadline=$((now + VM_BOOTS * booted))
			log "the VM booted in ${booted}s; it may run until $((deadline - start))s"
		fi
		if [ "$now" -ge "$deadline" ]; then
			part=$(running_part "$results")
			if [ -n "${VM_TIMEOUT:-}" ]; then
				why="ran over VM_TIMEOUT=${VM_TIMEOUT}s"
			elif [ -z "$booted" ]; then
				why="did not boot within VM_BOOT_LIMIT=${VM_BOOT_LIMIT}s"
			else
				why="ran over its budget of $((deadline - start - booted))s ($VM_BOOTS times its ${booted}s boot)"
			fi
			echo "the VM $why${part:+, in part $part}" > "$results/timeout.txt"
			stop_vm "$pid" "$results"
			return 124
		fi
		sleep 2
	done
	wait "$pid" || rc=$?
	return "$rc"
}

main() {
	local kernel=$1 script=$2 results=$3 image accel qemu_opts disk dir qemu version rc=0
	local -a extra=()
	shift 3
	image=$BUILD_DIR/$kernel/arch/x86/boot/bzImage
	[ -f "$image" ] || die "no $kernel kernel at $image: run 'make kernel' (or 'make kernel-bench')"
	[ -f "$ROOTFS/.harness-rootfs" ] || die "no guest root at $ROOTFS: run 'make rootfs'"
	[ -x "$TOP/scripts/guest/$script" ] || die "no guest script scripts/guest/$script"
	command -v vng >/dev/null || die "vng (virtme-ng) is missing: run 'make deps'"
	# The kselftests' build and install directory survives the VM: rebuilt only on change.
	mkdir -p "$results" "$CACHE_DIR/ksft/$kernel"
	accel=$(accel_args "$image")
	[ -z "$accel" ] || extra+=("$accel")
	if [ -n "${VM_ICOUNT:-}" ] || [ "${VM_DETERMINISTIC:-0}" = 1 ]; then
		[[ ${VM_ICOUNT:-0} =~ ^([0-9]|10)$ ]] || die "VM_ICOUNT=$VM_ICOUNT is not a shift of 0-10 (ns per instruction = 2^N)"
		[ -n "$accel" ] || die "VM_ICOUNT and VM_DETERMINISTIC need TCG: use VM_ACCEL=tcg"
	fi
	if [ "${VM_DETERMINISTIC:-0}" = 1 ]; then
		qemu=$TOP/scripts/qemu-trixie
		version=$("$qemu" --version | head -n1) || die "trixie's QEMU does not run: run 'make vmm-root'"
		extra+=(--qemu "$qemu" --force-9p)
		qemu_opts="-icount shift=${VM_ICOUNT:-0},sleep=off,align=off"
		VM_APPEND="${VM_APPEND:+$VM_APPEND }$(nullblk_append)"
		disk="null_blk in guest RAM, 2 x $(nullblk_gib) GiB: $NULLBLK_MODEL"
	else
		qemu_opts=$(disk_args "$results")
		[ -z "${VM_ICOUNT:-}" ] || qemu_opts+=" -icount shift=$VM_ICOUNT,sleep=on"
		disk="QEMU NVMe (-device nvme), raw $([ "${VM_PREALLOC:-0}" = 0 ] && echo sparse || echo preallocated)"
		dir=${VM_DISK_DIR:-$(vm_disk_dir "$results")}
		disk+=" image of $VM_DISK_MB MiB on host $(stat -f -c %T "$dir")"
		disk+=", cache=none, aio=threads${VM_LOG_WRITES:+; scratch1 through blklogwrites, its writes and flushes logged}"
		images_free "$dir" || exit 1
		version=$(qemu-system-x86_64 --version | head -n1)
	fi
	# The shape this boot really has, for reports.
	printf '{"mem":"%s","cpus":%s,"accel":"%s","icount":"%s","deterministic":%s,"qemu":"%s","disk":"%s","disk_ram_mib":%s,"kernel_build":"%s"}\n' \
		"$(vm_mem)" "$VM_CPUS" "$([ -n "$accel" ] && echo tcg || echo kvm)" \
		"${VM_ICOUNT:-$([ "${VM_DETERMINISTIC:-0}" = 1 ] && echo 0)}" \
		"$([ "${VM_DETERMINISTIC:-0}" = 1 ] && echo true || echo false)" \
		"$version" "$disk" "$(disk_ram_mib)" "$kernel" > "$results/vm.json"

	boot "$image" "$results" "$qemu_opts" "$script" "$@" || rc=$?
	# A VM that the caller powers off (check-crash.sh) ends however it ends.
	[ -z "${VM_EXPECT_KILL:-}" ] || [ "$rc" -eq 124 ] || return 0
	# QEMU that exited before the guest script started (QEMU could not start, the
	# kernel did not boot) says why at the end of the console log; the guest ran
	# nothing, so one more try is safe. Never after a timeout: that VM may have run
	# anything.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ ! -s "$results/booted" ]; then
		warn "QEMU exited ($rc) before the guest script started; its last words:"
		tail -n 5 "$results/console.log" >&2 || true
		cp -f "$results/console.log" "$results/console-first-try.log" 2>/dev/null || true
		warn "booting once more"
		rc=0
		boot "$image" "$results" "$qemu_opts" "$script" "$@" || rc=$?
	fi
	case $rc in
	0) ;;
	124) die "$(cat "$results/timeout.txt") (see $results/console.log): look for a hang, or raise VM_BOOTS" ;;
	*)
		warn "the VM exited with status $rc (see $results/console.log); its last lines:"
		tail -n 15 "$results/console.log" >&2 || true
		;;
	esac
	return "$rc"
}
main "$@"
