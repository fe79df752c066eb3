#!/usr/bin/env bash
# make check, part 2: the kernel builds after every patch of the series
# (incrementally, in the patched build directory), and the .c files the series
# touches bring no new W=1 or sparse (C=2) warnings against the base.
# Results are remembered per series and config, so a warm run skips them. A walk
# that passed is also recorded, by the key of what each commit gives the build, in
# the committed results/bisect-walks.txt: four of the mm patches change headers
# that most of the kernel includes, so a walk is four full rebuilds (about 90 min
# on 2 cores with ccache cold), which a make check on a fresh machine cannot afford
# for a series it was already proven on. Such a check builds only the cut after
# the scoped pass, for check-vm.sh, in a build directory of its own.
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
WALKS=$TOP/results/bisect-walks.txt

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
	echo "$KEY" > "$SCOPED/harness.key"
}

# prepare: the tree clean and the patched build configured; the series checked out
# again at exit.
prepare() {
	[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (and 'make export') before 'make check'"
	defer "git -C '$TREE' checkout -q '$WORK_BRANCH'"
	[ -f "$OBJ/.config" ] || die "no configured build in $OBJ: run 'make kernel' first"
}

# build_scoped: the series cut after the scoped pass, built in a directory of its
# own (with the patched kernel's config), as the scoped kernel.
build_scoped() {
	local c obj=$BUILD_DIR/scoped-build
	c=$(git_t log --reverse --format='%H %s' "$(base_ref)..$WORK_BRANCH" |
		grep -E "^[0-9a-f]+ ${SCOPED_SUBJECT#^}" | head -n1 | cut -d' ' -f1)
	[ -n "$c" ] || die "no commit whose subject starts '${SCOPED_SUBJECT#^}' in the series"
	prepare
	git_t checkout -q --detach "$c"
	mkdir -p "$obj"
	cp "$OBJ/.config" "$obj/.config"
	kmake "$TREE" "$obj" olddefconfig >/dev/null
	step "build the series cut after the scoped pass" kmake "$TREE" "$obj" bzImage ||
		die "the series cut after the scoped pass does not build"
	OBJ=$obj keep_scoped
	git_t checkout -q "$WORK_BRANCH"
}

# warnings_check: W=1 and sparse on the touched files, at the base and with the series.
warnings_check() {
	local base_w head_w new
	base_w=$(mktemp) head_w=$(mktemp)
	defer "rm -f '$base_w' '$head_w'"
	prepare
	git_t checkout -q --detach "$(base_ref)"
	step "W=1 + sparse at the base" warnings "$base_w"
	git_t checkout -q "$WORK_BRANCH"
	step "W=1 + sparse with the series" warnings "$head_w"
	new=$(comm -13 "$base_w" "$head_w")
	if [ -n "$new" ]; then
		printf '%s\n' "$new" >&2
		record FAIL "W=1 and sparse on touched files" "$(wc -l <<<"$new") new warnings"
	else
		record PASS "W=1 and sparse on touched files ($(touched_objects | wc -l) objects, no new warnings)"
	fi
	# Leave the patched kernel built for what follows (the checkouts touched its headers).
	kmake "$TREE" "$OBJ" bzImage
}

bisect_walk() {
	local c n=0 total failed=""
	prepare
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
	if [ -n "$failed" ]; then
		record FAIL "bisectable build" "does not build after: $failed"
	else
		record PASS "bisectable build ($total patches)"
		printf '%s %s PASS %s patches, walked by make check on %s\n' "$1" "$(date -u +%F)" \
			"$total" "$(hostname)" >> "$WALKS"
	fi
	warnings_check
}

# walk_or_recorded KEY: the walk, unless results/bisect-walks.txt records one of KEY
# (then the scoped cut alone is built, if it is not there).
walk_or_recorded() {
	local rec
	rec=$(awk -v k="$1" '$1 == k && $3 == "PASS" { print; exit }' "$WALKS" 2>/dev/null || true)
	if [ -z "$rec" ]; then
		bisect_walk "$1"
		return 0
	fi
	read -r _ when _ rest <<<"$rec"
	record PASS "bisectable build (${rest%%,*}; walked $when with the same build inputs and config: results/bisect-walks.txt)"
	[ "$(cat "$SCOPED/harness.key" 2>/dev/null)" = "$1" ] || build_scoped
	warnings_check
}

main() {
	# What each commit gives the kernel build, not the commit ids: rewording a
	# message or changing only tools/ or Documentation/ keeps the result.
	KEY=$({ for c in $(base_ref) $(git_t rev-list --reverse "$(base_ref)..$WORK_BRANCH"); do
			build_inputs "$c"
		done
		cat "$TOP/config/kernel.fragment" "$TOP/config/debug.fragment" | sha256sum; } | sha256sum | cut -c1-16)
	# A cached result is only good with the kernel it left behind.
	[ "$(cat "$SCOPED/harness.key" 2>/dev/null)" = "$KEY" ] || rm -f "$CACHE_DIR/stamps/build-$KEY"
	stamped build "$KEY" walk_or_recorded "$KEY"
}
main "$@"
