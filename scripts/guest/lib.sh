#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are used by the scripts that source this file
# Sourced by the guest scripts: common guest setup. Runs inside the VM.
set -euo pipefail

RESULTS=/srv/results
SRC=/srv/src
KBUILD=/srv/kbuild

# disk_by_serial SERIAL: the NVMe namespace whose controller has SERIAL (vm.sh names
# the scratch disks scratch1 and scratch2, and a slow one; probe order is not guaranteed).
disk_by_serial() {
	local ns
	for ns in /sys/block/nvme*n1; do
		[ -e "$ns" ] || continue
		if [ "$(tr -d ' ' < "$ns/device/serial")" = "$1" ]; then
			echo "/dev/${ns##*/}"
			return 0
		fi
	done
	echo "no NVMe disk with serial $1: is CONFIG_BLK_DEV_NVME in the kernel?" >&2
	return 1
}

guest_setup() {
	local link
	# Under virtme-ng's init /dev/stdout is the console, whatever the process's
	# stdout: the kselftest runner writes each test's output to /dev/stdout.
	for link in fd:fd stdin:fd/0 stdout:fd/1 stderr:fd/2; do
		ln -sfn "/proc/self/${link#*:}" "/dev/${link%%:*}"
	done
	ip link set lo up
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	# Keep the console quiet; save_dmesg keeps the whole log.
	dmesg -n 1 || true
	if [ "$(cat /sys/module/null_blk/parameters/memory_backed 2>/dev/null)" = Y ]; then
		# vm.sh VM_DETERMINISTIC=1: the scratch disks are null_blk in guest RAM.
		SCRATCH1=/dev/nullb0
		SCRATCH2=/dev/nullb1
		fill_disk "$SCRATCH1"
		fill_disk "$SCRATCH2"
	else
		SCRATCH1=$(disk_by_serial scratch1)
		SCRATCH2=$(disk_by_serial scratch2)
		SLOW_DISK=$(disk_by_serial slow)
	fi
}

# fill_disk DEV: write all of a null_blk disk once, so that its memory is allocated
# before anything is measured and does not grow under the page cache afterwards.
# It costs about a minute of a boot under icount (the guest moves some 85 MB a second
# of host time); BLKZEROOUT, which writes the zero page, was no faster
# (results/2026-12-07-1923-determ-all).
fill_disk() {
	local mib
	mib=$(($(cat "/sys/block/${1#/dev/}/size") / 2048))
	dd if=/dev/zero of="$1" bs=1M count="$mib" oflag=direct status=none
}

# pin_tools CMD...: copies of CMD and its libraries on a tmpfs, first in PATH. The
# suite drops the page cache before every run; reading fio and its 60 libraries back
# over the guest root's 9p then costs about 14 s per run under TCG. The copies cost
# both kernels the same memory.
pin_tools() {
	local dir=/run/pinned-tools cmd
	mkdir -p "$dir"
	mountpoint -q "$dir" || mount -t tmpfs none "$dir"
	mkdir -p "$dir/bin" "$dir/lib"
	for cmd in "$@"; do
		cmd=$(command -v "$cmd")
		cp "$cmd" "$dir/bin/"
		ldd "$cmd" | awk '$3 ~ /^\// { print $3 }' | xargs -r cp -L -t "$dir/lib/"
	done
	export PATH=$dir/bin:$PATH LD_LIBRARY_PATH=$dir/lib
}

# part NAME CMD...: one part of the boot's work, logged in $RESULTS/parts.txt
# ("start NAME", then "end NAME STATUS SECONDS"), so that the host can tell which
# part a timeout cut short and how long each took.
part() {
	local name=$1 start rc=0
	shift
	start=$EPOCHSECONDS
	echo "start $name" >> "$RESULTS/parts.txt"
	"$@" || rc=$?
	echo "end $name $rc $((EPOCHSECONDS - start))" >> "$RESULTS/parts.txt"
	return "$rc"
}

save_dmesg() {
	dmesg > "$RESULTS/dmesg.txt" || true
}

# start_nfsd DIR...: NFSD on 127.0.0.1 exporting each DIR (sync). Guest boots are
# throw-away, so nothing is torn down.
start_nfsd() {
	local dir
	mountpoint -q /proc/fs/nfsd || mount -t nfsd none /proc/fs/nfsd
	pgrep -x rpcbind >/dev/null || rpcbind -w
	for dir in "$@"; do
		exportfs -i -o rw,sync,no_root_squash,insecure,no_subtree_check "127.0.0.1:$dir"
	done
	pgrep -x rpc.mountd >/dev/null || rpc.mountd
	# Without this, NFSv4 OPENs fail with NFS4ERR_GRACE for the first 90 s.
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	rpc.nfsd 4
}

# build_selftest TARGET NAME: build one program of a kselftest target into $RESULTS/bin.
build_selftest() {
	mkdir -p "$RESULTS/bin"
	[ -x "$RESULTS/bin/$2" ] ||
		make -s -C "$SRC/tools/testing/selftests/$1" OUTPUT="$RESULTS/bin" \
			KHDR_INCLUDES="-isystem $KBUILD/usr/include" "$RESULTS/bin/$2"
}
