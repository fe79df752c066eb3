#!/usr/bin/env bash
# Install the host's build and VM dependencies from Debian's archive (idempotent).
# virtme-ng and the kernel source come from trixie / trixie-backports, which are added
# with a low pin priority so the host's own packages stay bookworm's.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

HOST_PKGS=(build-essential gcc make flex bison bc libelf-dev libssl-dev cpio kmod ccache sparse
	git rsync xz-utils dwarves python3 python3-docutils python3-ply python3-git shellcheck jq gnuplot-nox
	qemu-system-x86 qemu-utils debootstrap e2fsprogs xfsprogs)
STAMP=$CACHE_DIR/.deps-v2

add_trixie() {
	local uri
	uri=$(debian_uri | head -n1)
	[ -n "$uri" ] || die "no Debian bookworm apt source found to reuse for trixie: add one to /etc/apt/sources.list.d/ and rerun 'make deps'"
	cat > /etc/apt/sources.list.d/dontcache-trixie.sources <<SRC
Types: deb
URIs: $uri
Suites: trixie trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	cat > /etc/apt/preferences.d/dontcache-trixie <<PIN
Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=trixie-backports
Pin-Priority: 100
PIN
}

main() {
	need_root "make deps"
	mkdir -p "$CACHE_DIR"
	if [ -f "$STAMP" ] && command -v vng >/dev/null; then
		log "deps: already installed ($STAMP)"
		return 0
	fi
	add_trixie
	step "apt-get update" apt-get update -q >/dev/null
	step "install host packages" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${HOST_PKGS[@]}" >/dev/null
	step "install virtme-ng from trixie" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends virtme-ng/trixie >/dev/null
	touch "$STAMP"
}
main "$@"
