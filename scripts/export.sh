#!/usr/bin/env bash
# Regenerate patches/ from the series branch of the kernel tree, with fixed
# format-patch options: re-exporting an unchanged branch changes no byte.
# The cover letter's text comes from config/cover-letter.txt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local base tmp tip_date f
	[ -d "$TREE/.git" ] || [ -f "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	git -C "$TREE" rev-parse -q --verify "refs/heads/$WORK_BRANCH" >/dev/null ||
		die "no branch $WORK_BRANCH in $TREE: run 'make tree'"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them on $WORK_BRANCH, then 'make export'"
	base=$(base_ref)
	git -C "$TREE" config "branch.$WORK_BRANCH.description" "$(cat "$TOP/config/cover-letter.txt")"
	tmp=$(mktemp -d)
	defer "rm -rf '$tmp'"
	# The cover letter is dated like the tip commit, not "now".
	tip_date=$(git -C "$TREE" log -1 --format=%cD "$WORK_BRANCH")
	GIT_COMMITTER_DATE=$tip_date git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicprefix=false -c diff.renames=true -c format.signature= \
		format-patch -q --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature --diff-algorithm=myers --stat=80 \
		-o "$tmp" "$base..$WORK_BRANCH"
	rm -f "$TOP"/patches/*.patch
	cp "$tmp"/*.patch "$TOP/patches/"
	{
		echo "# Apply in this order with: git am \$(sed 's|^|patches/|' patches/series)"
		for f in "$tmp"/0*.patch; do
			[ "${f##*/}" = 0000-cover-letter.patch ] || echo "${f##*/}"
		done
	} > "$TOP/patches/series"
	# The tree now carries exactly patches/: tell tree.sh so.
	series_hash > "$(applied_stamp)"
	log "exported $(grep -vc '^#' "$TOP/patches/series") patches and a cover letter to patches/"
}
main "$@"
