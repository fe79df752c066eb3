#!/usr/bin/env bash
# make check, part 1: every patch is checkpatch --strict clean, and the series
# applies to the pristine base and gives exactly the branch in the kernel tree
# (so patches/ is what 'make export' would write).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# 0 errors and 0 warnings per patch.  --strict CHECKs are listed, not fatal: the
# TRACE_EVENT() layout every trace header uses draws some by itself.
checkpatch() {
	local p out bad=0 total checks=0 n
	while read -r p; do
		# Debian's python3 (python3-ply, python3-git) for spdxcheck.py, whatever PATH says.
		# The tree is v7.3.4 from a tarball, without upstream history: the commit a
		# Fixes: tag names cannot be looked up in it (UNKNOWN_COMMIT_ID).
		out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict \
			--ignore MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID \
			--show-types --color=never "$p" 2>&1) || true
		total=$(grep -E '^total: ' <<<"$out" || echo "total: (no result)")
		n=$(sed -nE 's/^total: .* ([0-9]+) checks.*/\1/p' <<<"$total")
		checks=$((checks + ${n:-0}))
		if ! grep -qE '^total: 0 errors, 0 warnings,' <<<"$out"; then
			printf '%s\n' "$out" | grep -E '^(ERROR|WARNING):|^#' | head -n 20 >&2
			record FAIL "checkpatch $(basename "$p")" "$total"
			bad=1
		fi
	done < <(series_files)
	[ "$bad" = 1 ] ||
		record PASS "checkpatch --strict ($(series_files | wc -l) patches: 0 errors, 0 warnings, $checks checks)"
}

# Apply the mbox files to the base in a scratch index: no checkout is touched.
applies() {
	local idx base p want got
	idx=$(mktemp)
	defer "rm -f '$idx'"
	base=$(base_ref)
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$base"
	while read -r p; do
		if ! GIT_INDEX_FILE=$idx git -C "$TREE" apply --cached "$p" 2>/dev/null; then
			record FAIL "series applies to $base" "$(basename "$p") does not apply"
			return 0
		fi
	done < <(series_files)
	got=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	want=$(git -C "$TREE" rev-parse "$WORK_BRANCH^{tree}")
	if [ "$got" = "$want" ]; then
		record PASS "series applies to $base and matches branch $WORK_BRANCH"
	else
		record FAIL "series applies to $base" "result differs from branch $WORK_BRANCH: run 'make export'"
	fi
}

# The .rst files the series touches parse without a single docutils warning.
rst() {
	local f bad=0 n=0
	command -v rst2html >/dev/null || die "rst2html is missing: run 'make deps' (python3-docutils)"
	while read -r f; do
		n=$((n + 1))
		if ! rst2html --halt=warning "$TREE/$f" >/dev/null 2>"$CHECK_OUT/rst.err"; then
			record FAIL "rst2html $f" "$(head -n1 "$CHECK_OUT/rst.err")"
			bad=1
		fi
	done < <(git -C "$TREE" diff --name-only "$(base_ref)" "$WORK_BRANCH" -- '*.rst')
	[ "$bad" = 1 ] || record PASS "rst2html --halt=warning ($n files)"
}

main() {
	[ -d "$TREE/.git" ] || [ -f "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	mkdir -p "$CHECK_OUT"
	checkpatch
	applies
	rst
}
main "$@"
