#!/usr/bin/env bash
# Write DIR/report.md from a stock-vs-patched bench run (scripts/bench.sh): the VM
# shape, the limits, the performance goals P1-P6 as measured, the ratio tables and
# the plots. Prints the goals table at the end.
#   report.sh DIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PARSE=$CACHE_DIR/bench-src/tools/testing/nfsd-io-bench/parse-results.sh
[ -x "$PARSE" ] || PARSE=$TREE/tools/testing/nfsd-io-bench/parse-results.sh
DIR=""

# metric KERNEL TARGET WORKLOAD MODE JOB COLUMN: one median from parse-results' CSV.
metric() {
	local csv=$DIR/$1/$2.csv
	[ -s "$csv" ] || { echo -; return 0; }
	awk -F, -v w="$3" -v m="$4" -v j="$5" -v c="$6" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == w && $2 == m && $3 == j { v = $col[c]; print (v == "" ? "-" : v); found = 1; exit }
		END { if (!found) print "-" }' "$csv"
}

# ratio A B: A/B to two decimals, or - if either is missing.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f\n", a / b }'
}

# verdict VALUE OP TARGET: met / not met / not measured.
verdict() {
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (v == "-") { print "not measured"; exit }
		ok = (op == ">=") ? v + 0 >= t : (op == "<=") ? v + 0 <= t : (v + 0 >= 1 - t && v + 0 <= 1 + t)
		print ok ? "met" : "**not met**" }'
}

odirect_mbs() {
	jq -r '.jobs[0].write.bw_bytes / 1e6 | floor' "$DIR/$1/limits-odirect.json" 2>/dev/null || echo -
}

# The same code path measured differently on the two kernels means the host was
# not equally loaded during the two runs: say so next to the numbers.
warn_load() {
	local r
	r=$(ratio "$(odirect_mbs patched)" "$(odirect_mbs stock)")
	awk -v r="$r" 'BEGIN { exit !(r != "-" && (r < 0.9 || r > 1.1)) }' || return 0
	echo
	echo "**Unequal load:** the raw O_DIRECT bandwidth differs between the two runs" \
		"(patched/stock $r), so the host was busier during one of them. Compare ratios" \
		"within one kernel's run; patched/stock ratios of absolute numbers are not meaningful here."
}

goal_row() {
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$(verdict "$3" "$5" "$6")"
}

goals() {
	local buf_stock buf_patched p1s p1 c1 p2 p3 p4c p4cpu p5 p6b p6d
	buf_stock=$(metric stock local seq-write buffered seq-write write_mbs)
	buf_patched=$(metric patched local seq-write buffered seq-write write_mbs)
	p1s=$(ratio "$(metric stock local seq-write uncached seq-write write_mbs)" "$buf_stock")
	p1=$(ratio "$(metric patched local seq-write uncached seq-write write_mbs)" "$buf_patched")
	c1=$(ratio "$(metric patched local seq-write uncached seq-write peak_cached_mb)" \
		"$(metric patched local seq-write buffered seq-write peak_cached_mb)")
	p2=$(ratio "$(metric patched local files32-write uncached files32-write write_mbs)" \
		"$(metric patched local files32-write buffered files32-write write_mbs)")
	p3=$(ratio "$(metric patched local competing-writers buffered buffered-writer write_mbs)" \
		"$buf_patched")
	p4c=$(metric patched nfsmount split-write mode4 split-write srv_commit)
	p4cpu=$(ratio "$(metric patched nfsmount split-write mode4 split-write cpu_s_per_gb)" \
		"$(metric patched nfsmount split-write mode2 split-write cpu_s_per_gb)")
	p5=$(ratio "$(metric patched nfs misaligned-write mode2 misaligned-write write_mbs)" \
		"$(metric stock nfs misaligned-write mode2 misaligned-write write_mbs)")
	p6b=$(ratio "$buf_patched" "$buf_stock")
	p6d=$(ratio "$(metric patched local seq-write direct seq-write write_mbs)" \
		"$(metric stock local seq-write direct seq-write write_mbs)")
	echo "| goal | what | measured | target | verdict |"
	echo "|---|---|---:|---|---|"
	goal_row P1 "dontcache / buffered streaming write, patched (stock: $p1s)" "$p1" ">= 0.95" ">=" 0.95
	goal_row P1 "peak Cached, dontcache / buffered, patched" "$c1" "<= 0.10" "<=" 0.10
	goal_row P2 "32 files, dontcache / buffered, patched" "$p2" ">= 0.95" ">=" 0.95
	goal_row P3 "buffered writer beside a dontcache writer / solo, patched" "$p3" ">= 0.90" ">=" 0.90
	goal_row P4 "COMMITs in mode 4 (split writes, v3 mount)" "$p4c" "0" "<=" 0
	goal_row P4 "server CPU per GB, mode 4 / mode 2" "$p4cpu" "<= 0.75" "<=" 0.75
	goal_row P5 "misaligned 47008-byte writes, mode 2, patched / stock" "$p5" ">= 2" ">=" 2
	goal_row P6 "buffered streaming write, patched / stock" "$p6b" "1 +- 0.03" "~" 0.03
	goal_row P6 "direct streaming write, patched / stock" "$p6d" "1 +- 0.03" "~" 0.03
}

main() {
	local k t
	DIR=$(cd "${1:?usage: report.sh DIR}" && pwd)
	[ -x "$PARSE" ] || die "no $PARSE: run 'make tree' (the suite is part of the series)"
	for k in stock patched; do
		for t in local nfs nfsmount; do
			if [ -d "$DIR/$k/$t" ]; then
				"$PARSE" --csv "$DIR/$k/$t" > "$DIR/$k/$t.csv" 2>/dev/null || true
			fi
		done
	done
	{
		echo "# nfsd-io-bench: stock v7.3.4 vs the series"
		echo
		echo "Run $(basename "$DIR"): kernels $(cat "$DIR/stock/uname.txt" 2>/dev/null) and" \
			"$(cat "$DIR/patched/uname.txt" 2>/dev/null), one after the other in the same VM:"
		echo "QEMU TCG (no KVM), 2 vCPUs, 2 GiB RAM, xfs on a virtio-blk scratch disk opened"
		echo "with cache=none, NFS server and client on 127.0.0.1 in the guest. Sizes and"
		echo "repetitions: see each table's header. TCG numbers are CPU-bound: compare the"
		echo "two kernels and the modes with each other, not with real hardware."
		echo
		echo "## Limits measured in the same VM"
		echo
		echo "| | stock | patched |"
		echo "|---|---:|---:|"
		echo "| raw O_DIRECT write to the scratch disk, MB/s | $(odirect_mbs stock) | $(odirect_mbs patched) |"
		echo "| buffered streaming write (local xfs), MB/s | $(metric stock local seq-write buffered seq-write write_mbs | cut -d. -f1) | $(metric patched local seq-write buffered seq-write write_mbs | cut -d. -f1) |"
		warn_load
		echo
		echo "## Performance goals"
		echo
		goals
		for t in local nfs nfsmount; do
			if [ ! -d "$DIR/stock/$t" ] || [ ! -d "$DIR/patched/$t" ]; then
				continue
			fi
			echo
			echo "## Target $t: patched / stock"
			echo
			"$PARSE" --compare "$DIR/stock/$t" "$DIR/patched/$t" 2>/dev/null | sed 's/^#/##/'
			echo
			echo "## Target $t: patched, absolute"
			echo
			"$PARSE" "$DIR/patched/$t" 2>/dev/null | sed 's/^#/##/'
			"$PARSE" --plot "$DIR/plots/$t" --compare "$DIR/stock/$t" "$DIR/patched/$t" >/dev/null 2>&1 || true
		done
	} > "$DIR/report.md"
	sed -n '/^## Limits/,/^## Target/p' "$DIR/report.md" | sed '$d'
}
main "$@"
