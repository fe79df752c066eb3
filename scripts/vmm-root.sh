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
	local want uri tmp
	need_root "make vmm-root" vmm-root
	want=$(printf '%s\n' "${VMM_PKGS[@]}" | sha256sum | cut -c1-16)
	if [ "$(cat "$VMM_ROOT/.harness-vmm" 2>/dev/null)" = "$want" ]; then
		log "vmm-root: $VMM_ROOT is up to date"
		return 0
	fi
	command -v debootstrap >/dev/null || die "debootstrap is missing: run 'make deps'"
	uri=$(debian_uri | head -n1)
	[ -n "$uri" ] || die "no Debian apt source found to reuse for debootstrap: add one and rerun 'make vmm-root'"
	tmp=$VMM_ROOT.new
	rm -rf "$tmp"
	defer "rm -rf '$tmp'"
	step "debootstrap trixie with QEMU" debootstrap --variant=minbase \
		--include="$(IFS=,; echo "${VMM_PKGS[*]}")" trixie "$tmp" "$uri" \
		> "$CACHE_DIR/debootstrap-vmm.log" 2>&1 ||
		die "debootstrap failed (see $CACHE_DIR/debootstrap-vmm.log): check the network and disk space, then rerun 'make vmm-root'"
	rm -rf "$tmp/var/cache/apt/archives/"*.deb
	echo "$want" > "$tmp/.harness-vmm"
	rm -rf "$VMM_ROOT"
	mv "$tmp" "$VMM_ROOT"
	"$TOP/scripts/qemu-trixie" --version | head -n1
}
main "$@"
