#!/usr/bin/env bash
# Prepare the kernel tree: Debian's linux-source-7.3 as a git repository whose first commit
# is the pristine source (tag v7.3.4), with patches/ applied by git am on a branch.
# With KERNEL_SRC=/path/to/linux, a worktree of the user's own v7.3-based tree is used
# instead, on a new branch; the user's own branches and checkout are left alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PKG=linux-source-$BASE_SERIES

# fetch_source: the pristine source unpacked at $UNPACKED (removed again at exit).
fetch_source() {
	local dl=$CACHE_DIR/dl deb unpack
	mkdir -p "$dl"
	deb=$(find "$dl" -maxdepth 1 -name "${PKG}_*.deb" | head -n1)
	if [ -z "$deb" ]; then
		(cd "$dl" && apt-get download -q "$PKG/trixie-backports" >/dev/null 2>&1) ||
			die "apt-get download $PKG/trixie-backports failed: run 'make deps' (it adds trixie-backports) and retry"
		deb=$(find "$dl" -maxdepth 1 -name "${PKG}_*.deb" | head -n1)
	fi
	unpack=$(mktemp -d "$CACHE_DIR/unpack.XXXXXX")
	defer "rm -rf '$unpack'"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$PKG.tar.xz" | tar -xJ -C "$unpack"
	[ -d "$unpack/$PKG" ] || die "$deb does not hold usr/src/$PKG.tar.xz/$PKG: delete it and rerun 'make tree'"
	UNPACKED=$unpack/$PKG
}

# Debian's tarball ignores everything at the top level (its .gitignore ends in '/*'),
# so the pristine import adds with -f; 'git am' adds the series' new files regardless.
import_pristine() {
	local src
	is_v73_tree "$TREE" 2>/dev/null && [ -d "$TREE/.git" ] && return 0
	[ -e "$TREE" ] && die "$TREE exists but is not the harness's git tree: remove it (or set CACHE_DIR) and rerun 'make tree'"
	fetch_source
	src=$UNPACKED
	is_v73_tree "$src" || die "the downloaded $PKG is not Linux $BASE_SERIES: delete $CACHE_DIR/dl and rerun 'make tree'"
	git -C "$src" init -q -b pristine
	git -C "$src" add -f -A
	GIT_AUTHOR_DATE='1000000000 +0000' GIT_COMMITTER_DATE='1000000000 +0000' \
		git -C "$src" -c user.name=harness -c user.email=harness@localhost \
		commit -q -m "Linux $BASE_TAG (Debian $PKG)"
	git -C "$src" tag "$BASE_TAG"
	mv "$src" "$TREE"
}

# A user's tree: check it, then give it a worktree of its own in the cache.
user_worktree() {
	local wt=$TREE
	[ -d "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC does not exist: point it at a Linux v$BASE_SERIES git tree"
	git -C "$KERNEL_SRC" rev-parse --git-dir >/dev/null 2>&1 ||
		die "KERNEL_SRC=$KERNEL_SRC is not a git tree: clone Linux v$BASE_SERIES with git, or unset KERNEL_SRC to use Debian's source"
	is_v73_tree "$KERNEL_SRC" ||
		die "KERNEL_SRC=$KERNEL_SRC is not Linux $BASE_SERIES (its Makefile says $(sed -n 's/^VERSION = //p' "$KERNEL_SRC/Makefile").$(sed -n 's/^PATCHLEVEL = //p' "$KERNEL_SRC/Makefile")): check out a v$BASE_SERIES commit"
	if [ ! -d "$wt" ]; then
		git -C "$KERNEL_SRC" worktree add -q --detach "$wt" HEAD
		git -C "$wt" branch -f "$WORK_BRANCH-base" HEAD
	fi
}

apply_series() {
	local want have base p
	want=$(series_hash)
	have=$(cat "$(applied_stamp)" 2>/dev/null || true)
	if [ "$want" = "$have" ] && git_t rev-parse -q --verify "refs/heads/$WORK_BRANCH" >/dev/null; then
		log "tree: $TREE branch $WORK_BRANCH already carries patches/"
		git_t checkout -q "$WORK_BRANCH"
		return 0
	fi
	[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (and 'make export') or stash them, then rerun 'make tree'"
	base=$(base_ref)
	if git_t rev-parse -q --verify "refs/heads/$WORK_BRANCH" >/dev/null; then
		git_t branch -f -q "$WORK_BRANCH-old" "$WORK_BRANCH"
		log "tree: patches/ changed; previous branch kept as $WORK_BRANCH-old"
	fi
	git_t checkout -q -B "$WORK_BRANCH" "$base"
	while read -r p; do
		if ! git_t -c user.name=harness -c user.email=harness@localhost am -q --keep-cr "$p" >/dev/null 2>&1; then
			git_t am --abort >/dev/null 2>&1 || true
			git_t checkout -q -B "$WORK_BRANCH" "$base"
			die "$(basename "$p") does not apply to $base in $TREE: rebase the series onto $BASE_SERIES and rerun 'make export'"
		fi
	done < <(series_files)
	echo "$want" > "$(applied_stamp)"
	log "tree: $TREE branch $WORK_BRANCH = $base + $(series_files | wc -l) patches"
}

main() {
	mkdir -p "$CACHE_DIR"
	if [ -n "${KERNEL_SRC:-}" ]; then
		user_worktree
	else
		step "import pristine $PKG" import_pristine
	fi
	apply_series
}
main "$@"
