#!/usr/bin/env bash
# Debootstrap a second trixie root that holds only QEMU (cached): the deterministic
# bench profile runs trixie's QEMU 10 under -icount, which bookworm's 7.2 hung on
# (results/2026-12-02-noise-icount2). The host keeps bookworm's packages; the binary
# runs through the root's own dynamic loader (scripts/qemu-trixie).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

VMM_PKGS=(qemu-system-x86)

main() {
	local want tmp
	need_root "make vmm-root" vmm-root
	want=$(printf '%s\n' "${VMM_PKGS[@]}" | sha256sum | cut -c1-16)
	if [ "$(cat "$VMM_ROOT/.harness-vmm" 2>/dev/null)" = "$want" ]; then
		log "vmm-root: $VMM_ROOT is up to date"
		return 0
	fi
	debootstrap_new "$VMM_ROOT" "$CACHE_DIR/debootstrap-vmm.log" vmm-root "${VMM_PKGS[@]}"
	tmp=$VMM_ROOT.new
	rm -rf "$tmp/var/cache/apt/archives/"*.deb
	echo "$want" > "$tmp/.harness-vmm"
	rm -rf "$VMM_ROOT"
	mv "$tmp" "$VMM_ROOT"
	"$TOP/scripts/qemu-trixie" --version | head -n1
}
main "$@"
