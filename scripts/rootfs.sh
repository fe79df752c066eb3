#!/usr/bin/env bash
# Debootstrap the guest root: Debian trixie with the test and benchmark tools (cached).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

GUEST_PKGS=(udev systemd-sysv kmod util-linux procps iproute2 psmisc
	fio liburing-dev libnfs-dev libnfs-utils nfs-kernel-server nfs-common rpcbind
	xfsprogs e2fsprogs jq build-essential make rsync)

# An existing root whose package list changed: install what is new, in place.
add_packages() {
	cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf" 2>/dev/null || true
	chroot "$ROOTFS" apt-get update -q >/dev/null &&
		chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends "${GUEST_PKGS[@]}" >/dev/null &&
		chroot "$ROOTFS" apt-get clean
}

main() {
	local want tmp
	need_root "make rootfs" rootfs
	want=$(printf '%s\n' "${GUEST_PKGS[@]}" | sha256sum | cut -c1-16)
	if [ -f "$ROOTFS/.harness-rootfs" ] && [ "$(cat "$ROOTFS/.harness-rootfs")" = "$want" ]; then
		log "rootfs: $ROOTFS is up to date"
		return 0
	fi
	if [ -f "$ROOTFS/.harness-rootfs" ]; then
		step "add packages to the guest root" add_packages ||
			die "apt-get in $ROOTFS failed: remove $ROOTFS and rerun 'make rootfs'"
		echo "$want" > "$ROOTFS/.harness-rootfs"
		return 0
	fi
	debootstrap_new "$ROOTFS" "$CACHE_DIR/debootstrap.log" rootfs "${GUEST_PKGS[@]}"
	tmp=$ROOTFS.new
	chroot "$tmp" fio --version | awk -F- '{split($2, v, "."); if (v[1] < 3 || (v[1] == 3 && v[2] < 39)) exit 1}' ||
		die "the guest's fio is older than 3.39 (its uncached option sets the wrong bit): check the trixie source"
	# Guest services are started by the tests themselves, never at boot.
	chroot "$tmp" systemctl mask nfs-server.service rpcbind.service rpcbind.socket nfs-blkmap.service >/dev/null 2>&1 || true
	rm -rf "$tmp/var/cache/apt/archives/"*.deb
	echo "$want" > "$tmp/.harness-rootfs"
	rm -rf "$ROOTFS"
	mv "$tmp" "$ROOTFS"
}
main "$@"
