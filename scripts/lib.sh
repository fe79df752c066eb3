#!/usr/bin/env bash
# Shared helpers for the harness scripts: logging, timing, paths, teardown.
# Sourced, never run.

# shellcheck disable=SC2034  # the variables below are used by the scripts that source this file
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-/var/cache/dontcache-series}
BASE_TAG=v7.3.4
BASE_SERIES=7.3
WORK_BRANCH=${WORK_BRANCH:-dontcache-series}
# The kernel tree the harness works in: Debian's linux-source-7.3 imported into the
# cache, or, with KERNEL_SRC=/path/to/linux, a worktree of the user's own tree.
if [ -n "${KERNEL_SRC:-}" ]; then
	TREE=$CACHE_DIR/user-tree
else
	TREE=$CACHE_DIR/linux
fi
BUILD_DIR=${BUILD_DIR:-$CACHE_DIR/build}
ROOTFS=${ROOTFS:-$CACHE_DIR/rootfs}
# trixie with QEMU 10 only, for the deterministic profile (vmm-root.sh)
VMM_ROOT=${VMM_ROOT:-$CACHE_DIR/vmm-root}
OUT=${OUT:-$TOP/out}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# step NAME CMD...: run CMD, report what is being done and how long it took; with
# STEP_LOG set (the Makefile sets it for each make run), also there, with its start
# and how deep it is nested in other steps.
export STEP_DEPTH=${STEP_DEPTH:-0}
step() {
	local name=$1 start rc=0 line order=${EPOCHREALTIME/./}
	shift
	start=$(date +%s)
	log "$name ..."
	STEP_DEPTH=$((STEP_DEPTH + 1)) "$@" || rc=$?
	line="$name: $(( $(date +%s) - start ))s$([ "$rc" -eq 0 ] || echo " (failed, exit $rc)")"
	log "$line"
	[ -z "${STEP_LOG:-}" ] ||
		{ mkdir -p "$(dirname "$STEP_LOG")" && printf '%s %s %s\n' "$order" "$STEP_DEPTH" "$line" >> "$STEP_LOG"; }
	return "$rc"
}

# step_times: the steps of STEP_LOG in the order they started, nested ones indented.
step_times() {
	[ -f "${STEP_LOG:-}" ] || return 0
	sort -n -k1,1 "$STEP_LOG" | while read -r _ depth line; do
		printf '%*s%s\n' $((2 * depth)) '' "$line"
	done
}

# defer CMD...: run CMD at exit, last registered first (like selftests/net/lib.sh).
DEFERRED=()
defer() { DEFERRED+=("$*"); }
run_deferred() {
	local i
	for (( i = ${#DEFERRED[@]} - 1; i >= 0; i-- )); do
		eval "${DEFERRED[$i]}" || true
	done
	DEFERRED=()
}
trap run_deferred EXIT
# A signal ends the script through exit, so that what it deferred (a VM in a session
# of its own, above all) is undone too; bash runs no EXIT trap on a fatal signal.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# The URI of the machine's own Debian archive source, reused for trixie.
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' "$f"
	done | head -n1 || true
	grep -hE '^deb[[:space:]].*[[:space:]]bookworm[[:space:]]' /etc/apt/sources.list 2>/dev/null |
		awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' | head -n1 || true
}

# debootstrap_new ROOT LOG TARGET PKG...: a minimal Debian trixie with PKG in ROOT.new
# (removed at exit unless the caller moved it), its output in LOG; on failure, says to
# rerun 'make TARGET'.
debootstrap_new() {
	local root=$1 out=$2 target=$3 uri
	shift 3
	command -v debootstrap >/dev/null || die "debootstrap is missing: run 'make deps'"
	uri=$(debian_uri | head -n1)
	[ -n "$uri" ] || die "no Debian apt source found to reuse for debootstrap: add one and rerun 'make $target'"
	rm -rf "$root.new"
	defer "rm -rf '$root.new'"
	step "debootstrap trixie into $root.new" debootstrap --variant=minbase \
		--include="$(IFS=,; echo "$*")" trixie "$root.new" "$uri" > "$out" 2>&1 ||
		die "debootstrap failed (see $out): check the network and disk space, then rerun 'make $target'"
}

need_root() {
	[ "$(id -u)" -eq 0 ] || die "$1 must run as root (try: sudo make ${2:-deps})"
}

# The series, in order, as listed in patches/series.
series_files() {
	local p
	[ -f "$TOP/patches/series" ] || die "patches/series is missing: run 'make export' in a tree with the series committed"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$TOP/patches/$p" ] || die "patches/series lists $p but patches/$p does not exist: regenerate with 'make export'"
		printf '%s\n' "$TOP/patches/$p"
	done < "$TOP/patches/series"
}

# The patch files of the mm half; every other patch belongs to the NFSD half.
MM_HALF='^[0-9]{4}-(mm|writeback|selftests-dontcache)-'

# half_files mm|nfsd: the half's patch files, in series order.
half_files() {
	local grep_opt=-E
	[ "$1" = mm ] || grep_opt=-vE
	series_files | while read -r p; do
		basename "$p" | grep -q $grep_opt "$MM_HALF" && echo "$p"
	done
}

# Hash of the series as listed in patches/series, and the file in which the tree
# records the hash of the series its branch carries.
applied_stamp() {
	printf '%s/dontcache-series.applied\n' "$(git -C "$TREE" rev-parse --absolute-git-dir)"
}
series_hash() {
	local f
	series_files | while read -r f; do cat "$f"; done | sha256sum | cut -d' ' -f1
}

# kmake SRC OBJ ARGS...: make in the kernel source SRC with output in OBJ.
kmake() {
	local src=$1 obj=$2
	shift 2
	make -s -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" "$@"
}

# git in the kernel tree the harness works in.
git_t() { git -C "$TREE" "$@"; }

# is_v73_tree DIR: true if DIR holds a Linux 7.3 source tree.
is_v73_tree() {
	local v p
	[ -f "$1/Makefile" ] || return 1
	v=$(sed -n 's/^VERSION = //p' "$1/Makefile")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$1/Makefile")
	[ "$v.$p" = "$BASE_SERIES" ]
}

# vm_disk_dir RESULTS_DIR: the scratch disk images of the VM runs that write to
# RESULTS_DIR, so that VMs with different results directories can run at once.
# VM_DISK_ROOT puts them elsewhere, e.g. on the host's tmpfs (/dev/shm/...).
vm_disk_dir() {
	printf '%s/%s\n' "${VM_DISK_ROOT:-$CACHE_DIR/disks}" "$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}

# nullblk_gib: the size of each null_blk disk, VM_DISK_MB rounded up to GiB.
nullblk_gib() { echo $(((VM_DISK_MB + 1023) / 1024)); }

# disk_ram_mib: the guest RAM the null_blk disks take (both, and 64 MiB for their
# caches), which the page cache cannot use; 0 outside the deterministic profile.
disk_ram_mib() {
	[ "${VM_DETERMINISTIC:-0}" = 1 ] || { echo 0; return 0; }
	echo $((2 * 1024 * $(nullblk_gib) + 64))
}

# vm_mem: the guest's RAM: VM_MEM, plus the null_blk disks in the deterministic profile.
vm_mem() {
	local mib
	[ "${VM_DETERMINISTIC:-0}" = 1 ] || { echo "$VM_MEM"; return 0; }
	[[ $VM_MEM =~ ^([0-9]+)([MG])$ ]] || die "VM_MEM=$VM_MEM: give it as <N>M or <N>G"
	mib=${BASH_REMATCH[1]}
	[ "${BASH_REMATCH[2]}" = M ] || mib=$((mib * 1024))
	echo "$((mib + $(disk_ram_mib)))M"
}

# images_free DIR: fail, saying why, if a process (a QEMU left over from an earlier
# run) has one of the scratch images in DIR open: it would hold the image's lock.
images_free() {
	local pids
	pids=$(pgrep -f -- "file=$1/scratch" | tr '\n' ' ' || true)
	[ -z "$pids" ] || {
		printf 'error: %s\n' "process ${pids% } still holds the scratch images in $1 (a VM left from an earlier run?): kill it, then run again" >&2
		return 1
	}
}

# record STATUS NAME [DETAIL]: one harness check's verdict (PASS/FAIL/SKIP) for the summary.
CHECK_OUT=${CHECK_OUT:-$OUT/check}
record() {
	mkdir -p "$CHECK_OUT"
	printf '%s %s%s\n' "$1" "$2" "${3:+: $3}" | tee -a "$CHECK_OUT/harness.txt" >&2
}

# The base the series applies to in $TREE.
base_ref() {
	if git -C "$TREE" rev-parse -q --verify "refs/heads/$WORK_BRANCH-base" >/dev/null; then
		echo "$WORK_BRANCH-base"
	else
		echo "$BASE_TAG"
	fi
}

# changed_objects GITDIR FROM TO: objects of the kernel .c files that TO changes
# against FROM in the tree at GITDIR.
changed_objects() {
	git -C "$1" diff --name-only "$2" "$3" -- '*.c' |
		grep -vE '^(tools|Documentation|samples)/' | sed 's/\.c$/.o/' || true
}

# stamped NAME KEY CMD...: run CMD, a check that records its verdicts, unless a
# run with the same KEY passed before: then replay that run's verdicts.  A run
# with a FAIL is not remembered.
stamped() {
	local stamp=$CACHE_DIR/stamps/$1-$2 before=0 status rest
	shift 2
	mkdir -p "$CACHE_DIR/stamps" "$CHECK_OUT"
	if [ -f "$stamp" ]; then
		while read -r status rest; do
			record "$status" "$rest (cached: series and config unchanged)"
		done < "$stamp"
		return 0
	fi
	[ -f "$CHECK_OUT/harness.txt" ] && before=$(wc -l < "$CHECK_OUT/harness.txt")
	"$@"
	tail -n +"$((before + 1))" "$CHECK_OUT/harness.txt" > "$stamp.new"
	if grep -q '^FAIL' "$stamp.new"; then rm -f "$stamp.new"; else mv "$stamp.new" "$stamp"; fi
}
