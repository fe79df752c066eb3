#!/usr/bin/env bash
# Build exportfs and rpc.mountd from Debian trixie's nfs-utils source package with the
# companion patches of nfs-utils/series (the data_sync and file_sync export options)
# inside the guest root, and put them in place of the packaged ones (cached).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PATCH_DIR=$TOP/nfs-utils
STAMP=$ROOTFS/.harness-nfs-utils
LOG=$CACHE_DIR/nfs-utils-build.log
# The build directory, as the guest root sees it; removed after every run.
BUILD=/var/tmp/harness-nfs-utils
# What configure needs with everything but exportfs and rpc.mountd disabled: libevent
# and sqlite are checked unconditionally; libblkid gives mountd the filesystem UUIDs
# that Debian's build gives it, uuid-dev the pseudo-root's UUIDs.
BUILD_DEPS=(libtirpc-dev libblkid-dev uuid-dev libevent-dev libsqlite3-dev pkgconf)
CONFIGURE_FLAGS=(--prefix=/usr --sysconfdir=/etc --localstatedir=/var
	--disable-gss --disable-svcgss --disable-nfsv4 --disable-nfsv41 --disable-nfsdcld
	--disable-nfsdcltrack --disable-nfsdctl --disable-nfsrahead --disable-mount
	--disable-junction --disable-caps --without-tcp-wrappers --without-systemd)
# Guest path of each program, and where the build leaves it.
declare -A PROGRAMS=([/usr/sbin/exportfs]=utils/exportfs/exportfs [/usr/sbin/rpc.mountd]=utils/mountd/mountd)

# in_root CMD...: run CMD in the guest root with a clean environment; in_root_at DIR
# CMD...: the same in the guest's directory DIR.
in_root() {
	chroot "$ROOTFS" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
		DEBIAN_FRONTEND=noninteractive "$@"
}
in_root_at() {
	# shellcheck disable=SC2016  # expanded by the guest's shell
	in_root sh -c 'cd "$1" && shift && exec "$@"' sh "$@"
}

# The patches, in order, as listed in nfs-utils/series.
patch_files() {
	local p n=0
	[ -f "$PATCH_DIR/series" ] || die "nfs-utils/series is missing: restore it from git (git checkout -- nfs-utils)"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$PATCH_DIR/$p" ] || die "nfs-utils/series lists $p but nfs-utils/$p does not exist: fix the series file"
		printf '%s\n' "$PATCH_DIR/$p"
		n=$((n + 1))
	done < "$PATCH_DIR/series"
	[ "$n" -gt 0 ] || die "nfs-utils/series lists no patch: list the patches of nfs-utils/ in it"
}

# The source version of the guest's nfs-kernel-server (empty if it is not installed).
nfs_version() {
	dpkg-query --admindir="$ROOTFS/var/lib/dpkg" -W -f='${source:Version}' nfs-kernel-server 2>/dev/null || true
}

# The key of a build: every file of nfs-utils/, the Debian source version and the
# configure flags.
build_key() {
	{
		(cd "$PATCH_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
		printf '%s\n' "$1" "${CONFIGURE_FLAGS[*]}"
	} | sha256sum | cut -c1-16
}

# The stamp's contents: the key, then the hash of each installed program, so that a
# program replaced behind the harness's back is rebuilt too.
stamp_text() {
	local guest
	printf 'key %s\n' "$1"
	for guest in "${!PROGRAMS[@]}"; do
		printf '%s %s\n' "$guest" "$(sha256sum < "$ROOTFS$guest" 2>/dev/null | cut -c1-16)"
	done | sort
}

# deb-src lines for trixie and its update suites, made from the guest's own apt
# sources, one-line (sources.list, *.list) and deb822 (*.sources) alike.
deb_src_lines() {
	local f
	for f in "$ROOTFS/etc/apt/sources.list" "$ROOTFS"/etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -nE 's/^deb([[:space:]].*[[:space:]]trixie(-[a-z]+)?([[:space:]].*)?)$/deb-src\1/p' "$f"
	done
	for f in "$ROOTFS"/etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = comps = key = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:/) types = substr($i, 7)
				else if ($i ~ /^URIs:/) uris = substr($i, 6)
				else if ($i ~ /^Suites:/) suites = substr($i, 8)
				else if ($i ~ /^Components:/) comps = substr($i, 12)
				else if ($i ~ /^Signed-By:[[:space:]]*\//) key = substr($i, 11)
				else if ($i ~ /^Enabled:[[:space:]]*no/) types = ""
			}
			if (types !~ /(^|[[:space:]])deb([[:space:]]|$)/) next
			gsub(/^[[:space:]]+/, "", key)
			opt = key == "" ? "" : "[signed-by=" key "] "
			nu = split(uris, u, /[[:space:]]+/)
			ns = split(suites, s, /[[:space:]]+/)
			for (j = 1; j <= nu; j++)
				for (k = 1; k <= ns; k++)
					if (u[j] != "" && s[k] ~ /^trixie(-[a-z]+)?$/)
						print "deb-src " opt u[j] " " s[k] comps
		}' "$f"
	done
}

# apt_src DIR ARGS...: apt-get ARGS in the guest's directory DIR, with the deb-src
# entries of the build directory alone and lists of their own there, so that the
# guest's apt state is left as it was.
apt_src() {
	local dir=$1
	shift
	in_root_at "$dir" apt-get -q -o Dir::Etc::SourceList="$BUILD/apt/sources.list" \
		-o Dir::Etc::SourceParts="$BUILD/apt/parts" -o Dir::State::Lists="$BUILD/apt/lists" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

install_deps() {
	cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf" 2>/dev/null || true
	# nfs-kernel-server and nfs-common come along so that the programs are built from
	# the source of the packages the guest has.
	in_root apt-get update -q >> "$LOG" 2>&1 &&
		in_root apt-get install -y -q --no-install-recommends "${BUILD_DEPS[@]}" \
			nfs-kernel-server nfs-common >> "$LOG" 2>&1 &&
		in_root apt-get clean
}

fetch_source() {
	local version=$1 lines
	lines=$(deb_src_lines)
	[ -n "$lines" ] || die "no trixie 'deb' entry in $ROOTFS/etc/apt to derive a deb-src entry from: rebuild the guest root (rm -rf $ROOTFS; make rootfs)"
	if ! { mkdir -p "$ROOTFS$BUILD/apt/parts" "$ROOTFS$BUILD/apt/lists/partial" "$ROOTFS$BUILD/dl" &&
		printf '%s\n' "$lines" > "$ROOTFS$BUILD/apt/sources.list" &&
		in_root chown -R _apt:root "$BUILD/apt/lists" "$BUILD/dl"; }; then
		die "cannot prepare $ROOTFS$BUILD: check the disk space and rerun"
	fi
	apt_src / update >> "$LOG" 2>&1 ||
		die "apt-get update of the deb-src entries ($(tr '\n' ';' <<< "$lines")) failed (see $LOG): check the network and rerun"
	apt_src "$BUILD/dl" source --download-only "nfs-utils=$version" >> "$LOG" 2>&1 ||
		die "Debian's archive has no source of nfs-utils $version, the version in $ROOTFS (see $LOG): upgrade it (chroot $ROOTFS apt-get install nfs-kernel-server) or rebuild the guest root, then rerun"
	# shellcheck disable=SC2016  # expanded by the guest's shell
	in_root sh -c 'dpkg-source -x "$1"/dl/*.dsc "$1/src"' sh "$BUILD" >> "$LOG" 2>&1 ||
		die "dpkg-source could not unpack nfs-utils $version (see $LOG): remove $ROOTFS$BUILD and rerun"
}

apply_patches() {
	local version=$1 p
	while read -r p; do
		in_root patch -d "$BUILD/src" -p1 --forward --batch --dry-run < "$p" >> "$LOG" 2>&1 ||
			die "nfs-utils/$(basename "$p") does not apply to Debian's nfs-utils $version (see $LOG): rebase it onto that version as nfs-utils/README says, then rerun"
		in_root patch -d "$BUILD/src" -p1 --forward --batch < "$p" >> "$LOG" 2>&1 ||
			die "nfs-utils/$(basename "$p") failed to apply after a clean dry run (see $LOG): rerun"
	done < <(patch_files)
}

build() {
	# shellcheck disable=SC2016  # expanded by the guest's shell
	in_root sh -euc '
		cd "$1"
		shift
		eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
		./configure "$@"
		for d in support/misc support/nfs support/export; do make -j"$(nproc)" -C "$d"; done
		make -C support/reexport libreexport.a
		make -j"$(nproc)" -C utils/exportfs
		make -j"$(nproc)" -C utils/mountd
	' sh "$BUILD/src" "${CONFIGURE_FLAGS[@]}" >> "$LOG" 2>&1
}

# Divert the packaged programs (kept as NAME.distrib; a package upgrade writes there
# too) and put the built ones in their place.
install_programs() {
	local guest
	for guest in "${!PROGRAMS[@]}"; do
		in_root dpkg-divert --local --rename --add "$guest" > /dev/null ||
			die "dpkg-divert of $guest in $ROOTFS failed: see 'chroot $ROOTFS dpkg-divert --list'"
		if ! { install -m 0755 "$ROOTFS$BUILD/src/${PROGRAMS[$guest]}" "$ROOTFS$guest.harness-new" &&
			mv -f "$ROOTFS$guest.harness-new" "$ROOTFS$guest"; }; then
			die "cannot install $guest in $ROOTFS: check the disk space and rerun"
		fi
	done
}

rebuild() {
	local version
	rm -f "$STAMP" "$LOG"
	rm -rf "${ROOTFS:?}$BUILD"
	defer "rm -rf '$ROOTFS$BUILD'"
	step "nfs-utils: install the build dependencies in the guest root" install_deps ||
		die "apt-get in $ROOTFS failed (see $LOG): check the network, or rebuild the guest root (rm -rf $ROOTFS; make rootfs)"
	version=$(nfs_version)
	[ -n "$version" ] || die "nfs-kernel-server is not installed in $ROOTFS: rebuild the guest root (rm -rf $ROOTFS; make rootfs)"
	step "nfs-utils: fetch Debian's nfs-utils $version source" fetch_source "$version"
	step "nfs-utils: apply nfs-utils/series" apply_patches "$version"
	step "nfs-utils: build exportfs and rpc.mountd" build ||
		die "the build of nfs-utils $version with nfs-utils/series failed (see $LOG): fix the patch, then rerun"
	install_programs
	stamp_text "$(build_key "$version")" > "$STAMP" || die "cannot write $STAMP: check the disk space and rerun"
	log "nfs-utils: exportfs and rpc.mountd of Debian's nfs-utils $version with nfs-utils/series installed in $ROOTFS"
}

main() {
	local version
	need_root "scripts/nfs-utils.sh" rootfs
	[ -f "$ROOTFS/.harness-rootfs" ] || die "no guest root at $ROOTFS: run 'make rootfs'"
	patch_files > /dev/null
	version=$(nfs_version)
	if [ -n "$version" ] && [ -f "$STAMP" ] &&
		[ "$(cat "$STAMP")" = "$(stamp_text "$(build_key "$version")")" ]; then
		log "nfs-utils: up to date"
		return 0
	fi
	step "nfs-utils: patched exportfs and rpc.mountd into the guest root" rebuild
}
main "$@"
