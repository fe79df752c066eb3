#!/usr/bin/env bash
# In the VM, one boot of the crash-durability test (scripts/check-crash.sh):
# verify what the previous boot's WRITE replies promised (if it logged any),
# then, unless told to stop, stream WRITEs to a fresh file until the host kills
# the VM.
#   crash.sh ITER MODE PROTO STABLE EXPORT | crash.sh verify-only
#     ITER    the iteration's number: the file is data-ITER, so that what an
#             iteration lost (the negative control loses its file) never shows
#             up in the verdict of the next
#     MODE    NFSD's io_cache_write (0-4), or MODE+FLOOR to export with the
#             floor's export option too (0+data_sync)
#     PROTO   v3: nfsd_crash's own NFSv3 client, which logs each reply's
#             committed level and post-op mtime; v4: the kernel client on an
#             NFSv4.2 mount of the export, O_DIRECT write()s; v2: the kernel
#             client on an NFSv2 mount of a wdelay export, O_DIRECT write()s
#             of whole 8 KiB WRITEs (nfsd_crash -a), which NFSD's direct modes
#             write without a buffered part
#     STABLE  the stable_how the v3 WRITEs ask for (0-2); "-" for v2 and v4
#     EXPORT  sync, or async: the negative control, which must lose data
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"

MNT=/mnt
KMNT=/run/crash-kclient
NFSD_DEBUG=/sys/kernel/debug/nfsd
# Fewer durable replies than this and the iteration proves nothing.
MIN_DURABLE=8

# verify_prev: check the file the previous boot's log names against that log.
verify_prev() {
	local name rc=0
	name=$(sed -n '1s/^# nfsd_crash log: name=\([^ ]*\).*/\1/p' "$RESULTS/prev.log")
	"$RESULTS/bin/nfsd_crash" verify -m "$MIN_DURABLE" "$MNT/export/${name:-unnamed}" \
		"$RESULTS/prev.log" > "$RESULTS/verify.txt" 2>&1 || rc=$?
	echo "$rc" > "$RESULTS/verify.rc"
}

# export_plan DIR SYNC PROTO FLOOR: export DIR as start_nfsd does, but SYNC (sync, or
# async for the negative control), with FLOOR (data_sync, file_sync; none: no
# option) and, for NFSv4, as the root of the server's pseudo
# filesystem (fsid=0): mountd's automatic one would be the guest's root, a 9p
# filesystem that NFSD cannot export. exportfs updates start_nfsd's export in place;
# the check makes sure, as a negative control run on a sync export would fail for
# the wrong reason.
export_plan() {
	local dir=$1 sync=$2 proto=$3 floor=$4 opts shown
	opts=rw,$sync,no_root_squash,insecure,no_subtree_check
	[ "$proto" != v4 ] || opts+=,fsid=0
	[ "$proto" != v2 ] || opts+=,wdelay
	[ "$floor" = none ] || opts+=,$floor
	exportfs -i -o "$opts" "127.0.0.1:$dir"
	shown=$(exportfs -v)
	if ! grep -q "[(,]${sync}[,)]" <<< "$shown" ||
		{ [ "$floor" != none ] && ! grep -q "[(,]${floor}[,)]" <<< "$shown"; } ||
		{ [ "$proto" = v4 ] && ! grep -q '[(,]fsid=0[,)]' <<< "$shown"; } ||
		{ [ "$proto" = v2 ] && ! grep -q '[(,]wdelay[,)]' <<< "$shown"; }; then
		printf 'could not export %s %s:\n%s\n' "$dir" "$opts" "$shown" >&2
		return 1
	fi
}

# offer_nfsv2: NFSD's threads started again with NFSv2 on: rpc.nfsd no longer
# offers it, nfsdctl does, and only while no thread runs.
offer_nfsv2() {
	rpc.nfsd 0
	nfsdctl version +2
	nfsdctl listener +tcp:127.0.0.1:2049
	nfsdctl threads 4
}

main() {
	local iter=$1 mode=${2:-} proto=${3:-} stable=${4:-} exp=${5:-} floor=none name rc=0
	guest_setup
	trap save_dmesg EXIT
	build_selftest nfsd nfsd_crash
	[ -f "$RESULTS/formatted" ] || { mkfs.xfs -q -f "$SCRATCH1"; touch "$RESULTS/formatted"; }
	mount "$SCRATCH1" "$MNT"
	[ ! -f "$RESULTS/prev.log" ] || verify_prev
	[ "$iter" != verify-only ] || { umount "$MNT"; return 0; }

	case $exp:$proto in
	sync:v2|sync:v3|sync:v4|async:v3|async:v4) ;;
	*) echo "unknown plan: export '$exp', protocol '$proto'" >&2; return 2 ;;
	esac
	name=data-$iter
	mkdir -p "$MNT/export"
	# The previous file is verified: start this one from nothing, on disk.
	rm -f "$MNT/export"/data-*
	sync
	# The plan alone decides how stable a WRITE is made, floor included.
	if [[ $mode == *+* ]]; then
		floor=${mode#*+}
		mode=${mode%%+*}
	fi
	start_nfsd "$MNT/export"
	export_plan "$MNT/export" "$exp" "$proto" "$floor"
	echo "$mode" > "$NFSD_DEBUG/io_cache_write"
	# The writer creates $RESULTS/started once its first WRITE is logged: the
	# host's cue to pick the moment of the power-off. It only ever returns on
	# an error; the host then fails the iteration.
	case $proto in
	v3)
		"$RESULTS/bin/nfsd_crash" write -s "$RESULTS/started" -t "export=$exp" \
			"$MNT/export" "$name" "$RESULTS/cur.log" "$stable" || rc=$?
		;;
	v4)
		mkdir -p "$KMNT"
		# The export is the pseudo filesystem's root: see export_plan.
		mount -t nfs -o vers=4.2,hard,timeo=600 127.0.0.1:/ "$KMNT"
		"$RESULTS/bin/nfsd_crash" kwrite -s "$RESULTS/started" -t "export=$exp nfs=4.2" \
			"$KMNT" "$name" "$RESULTS/cur.log" || rc=$?
		;;
	v2)
		offer_nfsv2
		mkdir -p "$KMNT"
		# mount.nfs no longer mounts NFSv2; the kernel does, given the address.
		mount -i -t nfs -o vers=2,hard,timeo=600,addr=127.0.0.1,nolock \
			"127.0.0.1:$MNT/export" "$KMNT"
		"$RESULTS/bin/nfsd_crash" kwrite -a -s "$RESULTS/started" \
			-t "export=$exp,wdelay nfs=2" "$KMNT" "$name" "$RESULTS/cur.log" || rc=$?
		;;
	esac
	echo "the writer stopped before the power-off (exit status $rc)" > "$RESULTS/writer-stopped"
	return 1
}
main "$@"
