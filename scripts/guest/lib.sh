#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are used by the scripts that source this file
# Sourced by the guest scripts: common guest setup. Runs inside the VM.
set -euo pipefail

RESULTS=/results
SRC=/src
KBUILD=/kbuild
# The two scratch disks, in the order vm.sh attaches them.
SCRATCH1=/dev/vda
SCRATCH2=/dev/vdb

guest_setup() {
	ip link set lo up
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	# Keep the console quiet; save_dmesg keeps the whole log.
	dmesg -n 1 || true
}

save_dmesg() {
	dmesg > "$RESULTS/dmesg.txt" || true
}
