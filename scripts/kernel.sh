#!/usr/bin/env bash
# Build a kernel out of tree with ccache: allnoconfig + config/kernel.fragment
# (+ config/debug.fragment for the check kernels, config/bench.fragment for the bench ones).
#   kernel.sh patched        the series branch with lockdep, in $BUILD_DIR/patched (make check)
#   kernel.sh bench-patched  the series branch without debug options, in $BUILD_DIR/bench-patched
#   kernel.sh bench-stock    pristine v7.3.4 without debug options, in $BUILD_DIR/bench-stock
#   kernel.sh nfsd-half      v7.3.4 plus the NFSD half of the series alone, with lockdep, in
#                            $BUILD_DIR/nfsd-half (make check runs the nfsd kselftests there)
#   kernel.sh variant NAME   the series branch plus config/variants/NAME.diff, as a bench
#                            kernel in $BUILD_DIR/bench-NAME (BENCH_BASE=stock,NAME measures it)
# The bench kernels share one config, so only the code differs between them.
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

# variant_apply NAME: config/variants/NAME.diff applied to the series checkout until
# exit. Same tree and config as bench-patched, so ccache serves every file the diff
# leaves alone; the release string gets -NAME (make's LOCALVERSION).
variant_apply() {
	local diff=$TOP/config/variants/$1.diff
	[ -f "$diff" ] || die "no $diff: a variant is a diff against the series branch ($WORK_BRANCH)"
	[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit or stash them before building a variant"
	git_t checkout -q "$WORK_BRANCH"
	git_t apply "$diff" || die "$diff does not apply to $WORK_BRANCH: refresh it against the series"
	defer "git -C '$TREE' checkout -q -- ."
	export LOCALVERSION=-$1
}

# nfsd_half: build v7.3.4 plus the NFSD half in $BUILD_DIR/nfsd-half, unless that half
# and the config are what it was built from. The half is checked out in the stock
# worktree, and the base put back on exit, so that ccache serves every file the half
# leaves alone from the stock builds.
nfsd_half() {
	local src obj=$BUILD_DIR/nfsd-half key files
	mapfile -t files < <(half_files nfsd)
	key=$(cat "${files[@]}" "$@" | sha256sum | cut -c1-16)
	if [ -f "$obj/arch/x86/boot/bzImage" ] && [ "$(cat "$obj/harness.half" 2>/dev/null)" = "$key" ]; then
		log "nfsd-half: $obj is up to date"
		return 0
	fi
	src=$(stock_tree)
	git -C "$src" checkout -q --detach "$(base_ref)"
	defer "git -C '$src' checkout -q --detach '$(base_ref)'"
	if ! git -C "$src" am -q "${files[@]}" >/dev/null 2>&1; then
		git -C "$src" am --abort 2>/dev/null || true
		die "the NFSD half does not apply to $(base_ref) alone: scripts/check-halves.sh shows why"
	fi
	rm -f "$obj/harness.half"
	step "build v7.3.4 + the NFSD half (lockdep)" build "$src" "$obj" -nfsd "$@"
	echo "$key" > "$obj/harness.half"
}

# build SRC OBJ LOCALVERSION FRAGMENT...
build() {
	local src=$1 obj=$2
	command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"
	[ -d "$src/.git" ] || [ -f "$src/.git" ] || die "no kernel tree at $src: run 'make tree'"
	df -Pk "$CACHE_DIR" | awk 'NR==2 && $4 < 4*1024*1024 {exit 1}' ||
		die "less than 4 GiB free under $CACHE_DIR: free some space or set CACHE_DIR to a bigger disk"
	# A build directory made from another source tree (a worktree of its own) keeps
	# that tree's paths in its dependency files: start it afresh (ccache refills it).
	if [ -L "$obj/source" ] && [ "$(readlink -f "$obj/source")" != "$(readlink -f "$src")" ]; then
		log "$obj was built from $(readlink -f "$obj/source"): removing it"
		rm -rf "$obj"
	fi
	configure "$@"
	# step runs this in an || list, where set -e does not stop a function.
	kmake "$src" "$obj" bzImage || die "the kernel in $obj did not build (see above)"
	# The kselftests build against these uapi headers in the guest.
	kmake "$src" "$obj" headers || die "the uapi headers in $obj did not install (see above)"
	log "built $(cat "$obj/include/config/kernel.release") in $obj/arch/x86/boot/bzImage"
}

main() {
	local base=$TOP/config/kernel.fragment debug=$TOP/config/debug.fragment bench=$TOP/config/bench.fragment
	case "${1:-}" in
	patched) step "build patched kernel (lockdep)" build "$TREE" "$BUILD_DIR/patched" -dontcache "$base" "$debug" ;;
	bench-patched) step "build patched bench kernel" build "$TREE" "$BUILD_DIR/bench-patched" -dontcache "$base" "$bench" ;;
	bench-stock) step "build stock bench kernel" build "$(stock_tree)" "$BUILD_DIR/bench-stock" -stock "$base" "$bench" ;;
	# v7.3.4 with make check's config, for the tests that need what only it has (NFSv2).
	stock) step "build stock kernel (lockdep)" build "$(stock_tree)" "$BUILD_DIR/stock" -stock "$base" "$debug" ;;
	nfsd-half) nfsd_half "$base" "$debug" ;;
	variant)
		[[ ${2:-} =~ ^[a-z0-9]+$ ]] || die "usage: kernel.sh variant NAME (config/variants/NAME.diff; NAME in a-z, 0-9)"
		variant_apply "$2"
		step "build bench kernel variant $2" build "$TREE" "$BUILD_DIR/bench-$2" -dontcache "$base" "$bench" ;;
	*) die "usage: kernel.sh patched|stock|bench-patched|bench-stock|nfsd-half|variant NAME" ;;
	esac
}
main "$@"
