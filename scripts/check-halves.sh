#!/usr/bin/env bash
# make check, part 3: the two halves of the series stand alone.  The mm half
# (patch 1 and the dontcache kselftests) and the NFSD half (every other patch)
# each apply to the base on their own, and the kernel objects and kselftests
# each half touches build without the other half.  The selftests build in the
# guest root (chroot), which has the libraries they use (libnfs, liburing).
# Results are remembered per series and config, so a warm run skips them.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$TREE-halves
OBJ=$BUILD_DIR/halves
# selftest_dirs: the kselftest targets that HEAD of $SRC changes.
selftest_dirs() {
	git -C "$SRC" diff --name-only "$(base_ref)" HEAD -- tools/testing/selftests/ |
		awk -F/ 'NF > 4 { print $4 }' | sort -u
}

# chroot_selftest DIR: build one kselftest target in the guest root, with the
# half's own uapi headers.
chroot_selftest() {
	# shellcheck disable=SC2016  # $1..$4 expand in the inner shell
	unshare -m sh -ec '
		mount --bind "$1" "$3/mnt"
		mount --bind "$2" "$3/srv"
		chroot "$3" make -s -C "/mnt/tools/testing/selftests/$4" OUTPUT="/srv/ksft/$4" \
			KHDR_INCLUDES="-isystem /srv/usr/include"' \
		sh "$SRC" "$OBJ" "$ROOTFS" "$1"
}

# check_half mm|nfsd
check_half() {
	local half=$1 files objs dirs d bad=""
	mapfile -t files < <(half_files "$half")
	git -C "$SRC" checkout -q --detach "$(base_ref)"
	if ! git -C "$SRC" am -q "${files[@]}" >"$OBJ/am-$half.log" 2>&1; then
		git -C "$SRC" am --abort 2>/dev/null || true
		record FAIL "$half half applies to $(base_ref) alone" "$(grep -m1 -E 'error|failed' "$OBJ/am-$half.log")"
		return 0
	fi
	mapfile -t objs < <(changed_objects "$SRC" "$(base_ref)" HEAD)
	mapfile -t dirs < <(selftest_dirs)
	step "$half half: build ${objs[*]}" kmake "$SRC" "$OBJ" headers "${objs[@]}" ||
		bad+="kernel objects; "
	for d in "${dirs[@]}"; do
		rm -rf "$OBJ/ksft/$d"
		mkdir -p "$OBJ/ksft/$d"
		step "$half half: build the $d kselftests" chroot_selftest "$d" || bad+="kselftests $d; "
	done
	if [ -n "$bad" ]; then
		record FAIL "$half half alone (${#files[@]} patches)" "does not build: $bad"
	else
		record PASS "$half half alone (${#files[@]} patches): applies to $(base_ref), builds ${#objs[@]} objects and the ${dirs[*]} kselftests"
	fi
}

# both_halves: check each half in the scratch worktree $SRC, built in $OBJ.
both_halves() {
	# A worktree left over from a kernel tree imported before is useless.
	git -C "$SRC" rev-parse -q --verify HEAD >/dev/null 2>&1 || {
		rm -rf "$SRC"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$SRC" "$(base_ref)"
	}
	# The config of make check's kernel, as it was when last copied here.
	cmp -s "$BUILD_DIR/patched/.config" "$OBJ/config.source" || {
		cp "$BUILD_DIR/patched/.config" "$OBJ/.config"
		cp "$BUILD_DIR/patched/.config" "$OBJ/config.source"
		kmake "$SRC" "$OBJ" olddefconfig
	}
	check_half mm
	check_half nfsd
}

main() {
	local key
	mkdir -p "$OBJ"
	[ -f "$ROOTFS/.harness-rootfs" ] || die "no guest root at $ROOTFS: run 'make rootfs'"
	[ -f "$BUILD_DIR/patched/.config" ] || die "no configured build in $BUILD_DIR/patched: run 'make kernel' first"
	key=$({ series_hash; cat "$TOP/config/kernel.fragment" "$TOP/config/debug.fragment"; } | sha256sum | cut -c1-16)
	stamped halves "$key" both_halves
}
main "$@"
