#!/usr/bin/env bash
# make check, part 2: the kernel builds after every patch of the series
# (incrementally, in the patched build directory), and the .c files the series
# touches bring no new W=1 or sparse (C=2) warnings against the base.
# Results are remembered per series and config, so a warm run skips them.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

OBJ=$BUILD_DIR/patched
# Top-level paths of the tree that the kernel build does not read.
NOT_BUILT='tools|Documentation|MAINTAINERS'
# The patch the mm half must stand on alone (Jan Kara's fix): the walk keeps the
# kernel it builds there for check-vm.sh to boot, as build/scoped.
SCOPED_SUBJECT='^writeback: write back only dontcache inodes'
SCOPED=$BUILD_DIR/scoped

# Objects for the kernel .c files the series touches.
touched_objects() {
	changed_objects "$TREE" "$(base_ref)" "$WORK_BRANCH"
}

# warnings FILE: W=1 and sparse diagnostics for the touched objects, without
# line numbers, so that moved lines do not count as new warnings.
warnings() {
	local objs
	mapfile -t objs < <(touched_objects)
	[ "${#objs[@]}" -gt 0 ] || { : > "$1"; return 0; }
	kmake "$TREE" "$OBJ" W=1 C=2 "${objs[@]}" 2>&1 >/dev/null |
		grep -E '(warning|error):' |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort > "$1" || true
}

# A commit that changes nothing the kernel build reads cannot break it.
builds_kernel() {
	git_t diff --name-only "$1^" "$1" | grep -qvE "^($NOT_BUILT)(/|\$)"
}

# build_inputs COMMIT: the top-level entries of COMMIT's tree the kernel build reads.
build_inputs() {
	git_t ls-tree "$1" | grep -vE $'\t'"($NOT_BUILT)\$"
}

# keep_scoped: the kernel just built, as the scoped kernel (with its uapi headers,
# which the guest builds the kselftests against).
keep_scoped() {
	rm -rf "$SCOPED"
	mkdir -p "$SCOPED/arch/x86/boot"
	cp "$OBJ/arch/x86/boot/bzImage" "$SCOPED/arch/x86/boot/"
	kmake "$TREE" "$OBJ" headers
	cp -a "$OBJ/usr" "$SCOPED/"
}

bisect_walk() {
	local c n=0 total failed="" base_w head_w new
	base_w=$(mktemp) head_w=$(mktemp)
	defer "rm -f '$base_w' '$head_w'"
	[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (and 'make export') before 'make check'"
	defer "git -C '$TREE' checkout -q '$WORK_BRANCH'"
	[ -f "$OBJ/.config" ] || die "no configured build in $OBJ: run 'make kernel' first"

	git_t checkout -q --detach "$(base_ref)"
	step "W=1 + sparse at the base" warnings "$base_w"
	total=$(git_t rev-list --count "$(base_ref)..$WORK_BRANCH")
	for c in $(git_t rev-list --reverse "$(base_ref)..$WORK_BRANCH"); do
		n=$((n + 1))
		git_t checkout -q --detach "$c"
		if ! builds_kernel "$c"; then
			log "[$n/$total] $(git_t log -1 --format=%s "$c"): no kernel files, build skipped"
			continue
		fi
		if step "[$n/$total] build $(git_t log -1 --format=%s "$c")" kmake "$TREE" "$OBJ" bzImage; then
			! git_t log -1 --format=%s "$c" | grep -qE "$SCOPED_SUBJECT" || keep_scoped
		else
			failed+="$(git_t log -1 --format=%s "$c"); "
		fi
	done
	git_t checkout -q "$WORK_BRANCH"
	step "W=1 + sparse with the series" warnings "$head_w"
	if [ -n "$failed" ]; then
		record FAIL "bisectable build" "does not build after: $failed"
	else
		record PASS "bisectable build ($total patches)"
	fi
	new=$(comm -13 "$base_w" "$head_w")
	if [ -n "$new" ]; then
		printf '%s\n' "$new" >&2
		record FAIL "W=1 and sparse on touched files" "$(wc -l <<<"$new") new warnings"
	else
		record PASS "W=1 and sparse on touched files ($(touched_objects | wc -l) objects, no new warnings)"
	fi
	# Leave the patched kernel built for what follows.
	kmake "$TREE" "$OBJ" bzImage
}

main() {
	local key
	# What each commit gives the kernel build, not the commit ids: rewording a
	# message or changing only tools/ or Documentation/ keeps the result.
	key=$({ for c in $(base_ref) $(git_t rev-list --reverse "$(base_ref)..$WORK_BRANCH"); do
			build_inputs "$c"
		done
		cat "$TOP/config/kernel.fragment" "$TOP/config/debug.fragment" | sha256sum; } | sha256sum | cut -c1-16)
	# A cached result is only good with the kernel it left behind.
	[ -f "$SCOPED/arch/x86/boot/bzImage" ] || rm -f "$CACHE_DIR/stamps/build-$key"
	stamped build "$key" bisect_walk
}
main "$@"
