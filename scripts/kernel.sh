#!/usr/bin/env bash
# Build a kernel out of tree with ccache: allnoconfig + config/kernel.fragment
# (+ config/debug.fragment for the check kernel).
#   kernel.sh patched        the series branch with lockdep, in $BUILD_DIR/patched (make check)
#   kernel.sh bench-patched  the series branch without debug options, in $BUILD_DIR/bench-patched
#   kernel.sh bench-stock    pristine v7.3.4 without debug options, in $BUILD_DIR/bench-stock
# The two bench kernels share one config, so only the series differs between them.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# configure SRC OBJ LOCALVERSION FRAGMENT...: (re)write .config when the fragments changed.
configure() {
	local src=$1 obj=$2 lv=$3 frag missing
	shift 3
	mkdir -p "$obj"
	frag=$obj/harness.fragment
	cat "$@" > "$frag.new"
	if [ -f "$obj/.config" ] && cmp -s "$frag.new" "$frag" &&
	   grep -q "^CONFIG_LOCALVERSION=\"$lv\"" "$obj/.config"; then
		rm -f "$frag.new"
		return 0
	fi
	mv "$frag.new" "$frag"
	kmake "$src" "$obj" KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null
	"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION "$lv"
	kmake "$src" "$obj" olddefconfig >/dev/null
	# Every =y the fragments ask for must survive dependency resolution.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$frag" | while read -r l; do
		grep -qx "$l" "$obj/.config" || printf '%s ' "${l%=y}"
	done)
	[ -z "$missing" ] || die "config fragment options dropped by Kconfig: $missing- fix their dependencies in config/"
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

# build SRC OBJ LOCALVERSION FRAGMENT...
build() {
	local src=$1 obj=$2
	command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"
	[ -d "$src/.git" ] || [ -f "$src/.git" ] || die "no kernel tree at $src: run 'make tree'"
	df -Pk "$CACHE_DIR" | awk 'NR==2 && $4 < 4*1024*1024 {exit 1}' ||
		die "less than 4 GiB free under $CACHE_DIR: free some space or set CACHE_DIR to a bigger disk"
	configure "$@"
	kmake "$src" "$obj" bzImage
	# The kselftests build against these uapi headers in the guest.
	kmake "$src" "$obj" headers
	log "built $(cat "$obj/include/config/kernel.release") in $obj/arch/x86/boot/bzImage"
}

main() {
	local base=$TOP/config/kernel.fragment debug=$TOP/config/debug.fragment
	case "${1:-}" in
	patched) step "build patched kernel (lockdep)" build "$TREE" "$BUILD_DIR/patched" -dontcache "$base" "$debug" ;;
	bench-patched) step "build patched bench kernel" build "$TREE" "$BUILD_DIR/bench-patched" -dontcache "$base" ;;
	bench-stock) step "build stock bench kernel" build "$(stock_tree)" "$BUILD_DIR/bench-stock" -stock "$base" ;;
	*) die "usage: kernel.sh patched|bench-patched|bench-stock" ;;
	esac
}
main "$@"
