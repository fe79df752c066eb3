#!/usr/bin/env bash
# Build a kernel out of tree with ccache: allnoconfig + config/kernel.fragment.
#   kernel.sh patched   the series branch, in $BUILD_DIR/patched
#   kernel.sh stock     pristine v7.3.4 (a worktree at the base), in $BUILD_DIR/stock
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

FRAGMENT=$TOP/config/kernel.fragment

# configure SRC OBJ LOCALVERSION: (re)write .config when the fragment is newer.
configure() {
	local src=$1 obj=$2 lv=$3 missing
	mkdir -p "$obj"
	if [ -f "$obj/.config" ] && [ "$obj/.config" -nt "$FRAGMENT" ] &&
	   grep -q "^CONFIG_LOCALVERSION=\"$lv\"" "$obj/.config"; then
		return 0
	fi
	kmake "$src" "$obj" KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig >/dev/null
	"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION "$lv"
	kmake "$src" "$obj" olddefconfig >/dev/null
	# Every =y the fragment asks for must survive dependency resolution.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$FRAGMENT" | while read -r l; do
		grep -qx "$l" "$obj/.config" || printf '%s ' "${l%=y}"
	done)
	[ -z "$missing" ] || die "config/kernel.fragment options dropped by Kconfig: $missing- fix their dependencies in the fragment"
}

# The base as a worktree of its own, so stock builds never touch the series checkout.
stock_tree() {
	local wt=$CACHE_DIR/linux-stock base
	base=$(base_ref)
	if [ ! -d "$wt" ]; then
		git -C "$TREE" worktree add -q --detach "$wt" "$base" >&2
	fi
	echo "$wt"
}

build() {
	local src=$1 obj=$2 lv=$3
	command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"
	[ -d "$src/.git" ] || [ -f "$src/.git" ] || die "no kernel tree at $src: run 'make tree'"
	df -Pk "$CACHE_DIR" | awk 'NR==2 && $4 < 4*1024*1024 {exit 1}' ||
		die "less than 4 GiB free under $CACHE_DIR: free some space or set CACHE_DIR to a bigger disk"
	configure "$src" "$obj" "$lv"
	kmake "$src" "$obj" bzImage
	# The kselftests build against these uapi headers in the guest.
	kmake "$src" "$obj" headers
	log "built $(cat "$obj/include/config/kernel.release") in $obj/arch/x86/boot/bzImage"
}

main() {
	case "${1:-}" in
	patched) step "build patched kernel" build "$TREE" "$BUILD_DIR/patched" "-dontcache" ;;
	stock) step "build stock kernel" build "$(stock_tree)" "$BUILD_DIR/stock" "-stock" ;;
	*) die "usage: kernel.sh patched|stock" ;;
	esac
}
main "$@"
