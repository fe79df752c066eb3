#!/usr/bin/env python3
"""Report of an interleaved stock-vs-patched bench run (scripts/bench.sh).

    report.py DIR [--parse PATH/parse-results.sh]

Reads DIR/raw/rep<N>-<kernel>/ (one VM boot each), writes DIR/reps.csv with one
row per repetition, kernel, run and fio job group, then DIR/report.md and
DIR/plots/. Without DIR/raw (a committed run) it reports from DIR/reps.csv.

Every cell is the median over the repetitions with the min-max beside it.
Ratios within one kernel (dontcache / buffered) are taken per boot; ratios
between kernels pair the stock and patched boots of the same repetition.
Verdicts compare a distribution-free interval of the median (order statistics,
sign test, >= 90% coverage when n allows) with the target (RULE below).
"""

import argparse
import csv
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys

KERNELS = ("stock", "patched")
KEY = ("target", "workload", "mode", "job")

# Rows of the per-workload tables: (metric, label).
TABLE_METRICS = [
    ("write_mbs", "write MB/s"), ("read_mbs", "read MB/s"), ("lat_p99_ms", "p99 ms"),
    ("lat_p999_ms", "p99.9 ms"), ("peak_dirty_mb", "peak Dirty MB"),
    ("peak_cached_mb", "peak Cached MB"), ("other_dirty_mb", "other file dirty MB"),
    ("other_written_mb", "other file written MB"),
    ("dontcache_cached_mb", "dontcache file cached MB"), ("cpu_s_per_gb", "guest CPU s/GB"),
    ("nfsd_cpu_s_per_gb", "nfsd CPU s/GB"), ("kworker_cpu_s_per_gb", "kworker CPU s/GB"),
    ("srv_commit", "srv COMMIT"),
    ("flushes_per_write", "disk flushes per WRITE"), ("reads_per_write", "disk reads per WRITE"),
    ("cli_commit", "cli COMMIT"),
    ("path_direct", "WRITE direct"), ("path_split", "WRITE split"),
    ("path_fallback", "WRITE fallback"), ("wb_flushed", "wb flushed"),
    ("wb_skip_busy", "wb skip busy"), ("wb_skip_guard", "wb skip guard"),
    ("wb_pressure", "wb pressure"), ("wb_batching", "wb batching"), ("wb_nowait", "wb nowait"),
    ("wb_kicked", "wb kicked"), ("wb_submit_s", "wb writer submit s"),
    ("fairness", "clients: slowest / fastest"),
]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v):
    if v is None:
        return "-"
    if v == int(v) and (v == 0 or abs(v) >= 10):
        return "%d" % v
    a = abs(v)
    return "%.*f" % (0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3, v)


def spread(vals):
    """'median [min-max]' of numbers, or '-'."""
    vals = [v for v in vals if v is not None]
    if len(vals) < 2:
        return fmt(median(vals))
    return "%s [%s–%s]" % (fmt(median(vals)), fmt(min(vals)), fmt(max(vals)))


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


# ---------------------------------------------------------------------------
# Collecting the rows.


def collect(run_dir, parse):
    rows, fields = [], None
    for boot in sorted(glob.glob(os.path.join(run_dir, "raw", "rep*-*"))):
        m = re.match(r"rep(\d+)-([\w.]+)$", os.path.basename(boot))
        if not m:
            continue
        rep, kernel = int(m.group(1)), m.group(2)
        limit = read_json(os.path.join(boot, "limits-odirect.json"))
        try:
            rows.append({"kernel": kernel, "rep": rep, "target": "disk",
                         "workload": "raw-odirect", "mode": "direct", "job": "odirect",
                         "write_mbs": limit["jobs"][0]["write"]["bw_bytes"] / 1e6})
        except (TypeError, KeyError, IndexError):
            pass  # no limits-odirect.json, or fio wrote no result
        seen = set()
        suites = glob.glob(os.path.join(boot, "run*-*"))
        for suite in sorted(suites, key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)))):
            if not os.path.isdir(suite):
                continue
            target = suite.rsplit("-", 1)[1]
            out = subprocess.run([parse, "--reps", suite], check=False,
                                 capture_output=True, text=True)
            for r in csv.DictReader(out.stdout.splitlines() if out.returncode == 0 else []):
                fields = fields or list(r.keys())
                r = dict(r)
                r.update(kernel=kernel, rep=rep, target=target)
                # A job run again later in the same boot (the noise profile's O_DIRECT).
                if (target, r["workload"], r["mode"], r["job"]) in seen:
                    r["workload"] += AGAIN
                seen.add((target, r["workload"], r["mode"], r["job"]))
                rows.append(r)
    # What the devices reported, once per distinct answer.
    disks = {}
    for path in sorted(glob.glob(os.path.join(run_dir, "raw", "rep*-*", "disks.csv"))):
        kernel = os.path.basename(os.path.dirname(path)).split("-", 1)[1]
        for r in read_csv(path):
            disks.setdefault((kernel,) + tuple(r.values()), dict(kernel=kernel, **r))
    disks = list(disks.values())
    if disks:
        with open(os.path.join(run_dir, "disks.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(disks[0].keys()))
            w.writeheader()
            w.writerows(disks)
    cols = ["kernel", "rep", "target", "workload", "mode", "job"]
    cols += [c for c in (fields or ["write_mbs"]) if c not in cols]
    with open(os.path.join(run_dir, "reps.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", restval="-")
        w.writeheader()
        for r in sorted(rows, key=lambda r: (r["target"], r["workload"], r["mode"],
                                             r["job"], r["kernel"], int(r["rep"]))):
            w.writerow(r)


class Data:
    """Per-repetition values: data[(kernel, target, workload, mode, job)][rep][metric].
    controls: (kernel, rep, next rep) of the identical-code control pairs."""

    def __init__(self, rows, controls=()):
        for r in rows:
            r["rep"] = int(r["rep"])
        self.controls = controls
        self.v = {}
        self.reps = sorted({r["rep"] for r in rows})
        self.keys = list(dict.fromkeys(tuple(r[k] for k in KEY) for r in rows))
        for r in rows:
            self.v.setdefault((r["kernel"],) + tuple(r[k] for k in KEY), {})[r["rep"]] = r

    def get(self, kernel, key, metric):
        """{rep: value} of one metric."""
        reps = self.v.get((kernel,) + tuple(key), {})
        return {rep: num(r.get(metric)) for rep, r in reps.items()
                if num(r.get(metric)) is not None}

    def vals(self, kernel, key, metric):
        return list(self.get(kernel, key, metric).values())

    def ratio_within(self, kernel, key_a, key_b, metric):
        """Per boot: value of key_a / value of key_b, same kernel."""
        return div(self.get(kernel, key_a, metric), self.get(kernel, key_b, metric))

    def ratio_paired(self, key, metric):
        """Per repetition: patched / stock."""
        return self.paired(lambda kern: self.get(kern, key, metric))[0]

    def paired(self, per_kernel):
        """per_kernel(kernel) -> {rep: value}: ({rep: patched / stock}, [control ratios]).
        A control ratio is a kernel's value in the first boot of a repetition over its
        value in the last boot of the one before (the same image booted twice in a row)."""
        v = {k: per_kernel(k) for k in KERNELS}
        ctl = [v[k][r2] / v[k][r1] for k, r1, r2 in self.controls
               if k in v and v[k].get(r1) and r2 in v[k]]
        return div(v["patched"], v["stock"]), ctl


def control_pairs(boots):
    """(kernel, rep, next rep) wherever a kernel booted last in a repetition and first in
    the next (every repetition reverses the order, so one kernel always does): two boots
    of identical code, back to back, like the boots of a stock/patched pair."""
    order = {}
    for b in boots:
        if b.get("status") == "ok":
            order.setdefault(int(b["rep"]), []).append((int(b["boot"]), b["kernel"]))
    seq = {rep: [k for _, k in sorted(v)] for rep, v in order.items()}
    return [(seq[r][-1], r, r + 1) for r in sorted(seq)
            if r + 1 in seq and seq[r][-1] == seq[r + 1][0]]


def first_kernel(boots):
    """{rep: the kernel that booted first in it} (ok boots only)."""
    first = {}
    for b in sorted((b for b in boots if b.get("status") == "ok"), key=lambda b: int(b["boot"])):
        first.setdefault(int(b["rep"]), b["kernel"])
    return first


def order_effect(d, boots):
    """Lines of a table: P0's and P6's paired ratios split by the kernel that booted
    first in the repetition, so that an effect of the order is seen, and how unevenly
    the repetitions fall on the two orders."""
    first = first_kernel(boots)
    if len(set(first.values())) < 2:
        return []
    rows = []
    for what, key in (("1 writer, dontcache", ("local", "seq-write", "uncached", "seq-write")),
                      ("32 files, dontcache", ("local", "files32-write", "uncached", "files32-write")),
                      ("NFSD mode 1", ("nfs", "seq-write", "mode1", "seq-write"))) + tuple(
                          (w, k) for k, w in UNTOUCHED[:2]):
        ratios = d.ratio_paired(key, "write_mbs")
        if not ratios:
            continue
        rows.append([what] + [spread([v for r, v in ratios.items() if first.get(r) == k])
                              + " (%d)" % sum(first.get(r) == k for r in ratios)
                              for k in KERNELS])
    if not rows:
        return []
    return ["## Kernel order", ""] + md_table(
        ["MB/s, patched / %s (paired)" % KERNELS[0]] + ["%s booted first" % k for k in KERNELS],
        rows) + ["", "The paired ratios of the repetitions that booted each kernel first "
                 "(how many in brackets). With an odd number of repetitions one order has "
                 "one more; a difference between the columns larger than their spreads is "
                 "an effect of the order, which ABBA only balances when the counts are equal.", ""]


def div(a, b):
    """{rep: a / b} of two {rep: value}, for the reps both have (and b is not 0)."""
    return {r: a[r] / b[r] for r in a if b.get(r)}


# ---------------------------------------------------------------------------
# Verdicts.

AGAIN = " (again)"
UNTOUCHED = [
    (("local", "seq-write", "buffered", "seq-write"), "buffered streaming write"),
    (("local", "seq-write", "direct", "seq-write"), "O_DIRECT streaming write"),
    (("disk", "raw-odirect", "direct", "odirect"), "raw O_DIRECT to the scratch disk"),
    (("local", "seq-write" + AGAIN, "direct", "seq-write"),
     "O_DIRECT streaming write, again at the end of the boot"),
]
CONF = 0.90

RULE = ("Verdicts: the interval of a row's median is the narrowest pair of order statistics "
        "[x(k), x(n+1−k)] of its values whose coverage (sign test) is at least 90%, else "
        "[min, max] with the coverage reached (75% for n = 3, 87.5% for n = 4), which "
        "decides nothing: a verdict needs 5 values or more. *met*: the interval is wholly "
        "on the goal's side of the target (P6: inside 0.97–1.03; equality goals: every value "
        "equals the target); *not met*: wholly on the other side; *undecided*: it straddles "
        "the target, and N more pairs would decide if the share q of values on the median's "
        "side held: N + n is the least at which a sign test of round(q·(N + n)) out of N + n "
        "rejects at two-sided 10%. *meet*: how many values meet the target. A row that "
        "compares the kernels (patched / stock of a repetition) has an identical-code "
        "control: the same kernel booted twice in a row, at the turn of two repetitions "
        "(later / earlier). If 1 + c is the largest factor by which the interval of the "
        "control ratios (by the same rule; [min, max] while they are few) differs from 1 "
        "(a ratio of 0.8 counts as 1.25), such a row is met or not met only when its "
        "median also lies beyond target·(1 + c) or target/(1 + c) on its side; else it is "
        "*undecided (within the identical-code control's ±c)*. A row within 1 ± t (P6) "
        "is met only if c ≤ t as well, and not met only if its median lies outside "
        "(1 ± t) widened by 1 + c.")


def interval(vals):
    """(lo, hi, coverage): the narrowest order-statistic interval [x(k), x(n+1-k)] of the
    median whose coverage 1 - 2 P(Bin(n, 1/2) < k) is >= CONF, else [min, max]."""
    x, n = sorted(vals), len(vals)
    k, below = 1, 1  # below: sum of C(n, i) for i < k
    while k < (n + 1) // 2 and 1 - 2 * (below + math.comb(n, k)) / 2 ** n >= CONF:
        below += math.comb(n, k)
        k += 1
    return x[k - 1], x[n - k], 1 - 2 * below / 2 ** n


def meet(vals, op, target):
    """'k/n': how many of the values meet the target."""
    return "%d/%d" % (sum({">=": v >= target, "<=": v <= target, "==": v == target,
                           "±": abs(v - 1) <= target}[op] for v in vals), len(vals))


def verdict(vals, op, target, ctl=()):
    """met / **not met** / undecided (with the pairs needed) for the values of one row;
    ctl: control ratios of identical code; the median of a kernel-against-kernel row must
    lie beyond the target by their largest factor from 1 (RULE) to be met or not met."""
    if op == "==":
        return "met" if all(v == target for v in vals) else "**not met**"
    n = len(vals)
    lo, hi, cov = interval(vals)
    if cov < CONF:  # [min, max] of 4 values covers the median with 87.5%, of 3 with 75%
        return "undecided (%d value%s: the interval covers %.1f%%, 5 are needed for %.0f%%)" % (
            n, "" if n == 1 else "s", 100 * cov, 100 * CONF)
    m = median(vals)
    if op == ">=":
        ok, bad, bounds = lo >= target, hi < target, [target]
    elif op == "<=":
        ok, bad, bounds = hi <= target, lo > target, [target]
    else:  # within 1 ± target: the bounds the interval crosses, or the one the median is past
        a, b = 1 - target, 1 + target
        ok, bad = a <= lo and hi <= b, hi < a or lo > b
        bounds = [t for t, out in ((a, lo < a), (b, hi > b)) if out] if a <= m <= b \
            else [a if m < a else b]
    # The control's band: the interval of its ratios (their [min, max] until there are
    # enough of them for a narrower one at the coverage above), as a factor from 1.
    band = math.exp(max(abs(math.log(c)) for c in interval(ctl)[:2])) if ctl and min(ctl) > 0 else 1
    if (ok or bad) and op in (">=", "<=") and target / band < m < target * band:
        return "undecided (within the identical-code control's ±%.0f%%)" % (100 * (band - 1))
    # Within 1 ± t: met only if identical code itself stays within it; not met only
    # if the median is also beyond the control's band.
    if ok and op == "±" and band - 1 > target:
        return "undecided (the identical-code control's ±%.0f%% exceeds ±%g)" % (100 * (band - 1), target)
    if bad and op == "±" and (1 - target) / band <= m <= (1 + target) * band:
        return "undecided (within the identical-code control's ±%.0f%%)" % (100 * (band - 1))
    if ok or bad:
        return "met" if ok else "**not met**"
    more = []
    for t in bounds:
        # The share q on the median's side; the n at which pairs split like that,
        # round(q n) on that side (+1) and the rest not (-1), give an interval above 0.
        q = sum(v > t if m > t else v < t for v in vals) / n
        if q <= 0.5:
            return "undecided (pairs split evenly; more pairs will not decide)"
        more.append(next((n2 - n for n2 in range(n + 1, 501) if interval(
            [1] * round(q * n2) + [-1] * (n2 - round(q * n2)))[0] > 0), None))
    if None in more:
        return "undecided (need > %d more pairs)" % (500 - n)
    return "undecided (need ~%d more pairs)" % max(more)


def ci(vals):
    """'[lo–hi] coverage%' of the median's interval, or '-'."""
    lo, hi, cov = interval(vals) if vals else (None, None, 0)
    return "[%s–%s] %.1f%%" % (fmt(lo), fmt(hi), 100 * cov) if vals else "-"


def cached_share(d, kernel, key):
    """kara-mixed, per boot: the dontcache file's MB still cached / the MB its writer wrote."""
    cached = d.get(kernel, key, "dontcache_cached_mb")
    wrote = d.get(kernel, key, "write_gb")
    return {r: cached[r] / (wrote[r] * 1000) for r in cached if wrote.get(r)}


def goals(d, ram_gb):
    """(table rows, what was not measured, P1 throughput verdicts of both kernels or False)."""
    L = "local"
    seqb, sequ = ((L, "seq-write", m, "seq-write") for m in ("buffered", "uncached"))
    f32b, f32u = ((L, "files32-write", m, "files32-write") for m in ("buffered", "uncached"))
    nfs0, nfs1 = (("nfs", "seq-write", m, "seq-write") for m in ("mode0", "mode1"))
    comp = (L, "competing-writers", "buffered", "buffered-writer")
    solo = (L, "solo-writer", "buffered", "buffered-writer")
    m2, m4 = (("nfsmount", "split-write", m, "split-write") for m in ("mode2", "mode4"))
    mis = ("nfs", "misaligned-write", "mode2", "misaligned-write")
    kara = (L, "kara-mixed", "buffered", "dontcache-writer")
    many = (L, "many-inodes", "buffered", "dontcache-writer")
    rdalone = (L, "readers-alone", "buffered", "readers")
    rdbeside = (L, "readers-beside-writer", "buffered", "readers")

    def both(a, b, metric):
        """(stock, patched): per boot, a / b."""
        return tuple(d.ratio_within(kern, a, b, metric) for kern in KERNELS)

    out, measured, missing = [], set(), []

    def goal(name, what, s, p, op, target, sized=(), ctl=()):
        """s, p: {rep: value} of stock and patched; s is None when p holds paired ratios,
        and ctl their identical-code control ratios.
        sized: the runs that must each write more than the guest's RAM (into a data set
        of twice the RAM) for reclaim to happen during the run (P1-P3)."""
        if not s and not p:
            missing.append((name, what))
            return
        measured.add(name)
        pv = list(p.values())
        verd = verdict(pv, op, target, ctl) if pv else "not measured on patched"
        wrote = [x for k in sized for kern in KERNELS for x in d.vals(kern, k, "write_gb")]
        if wrote and ram_gb and min(wrote) < ram_gb:
            verd = "cannot judge (a run wrote %.2f GB, less than the RAM)" % min(wrote)
        ps = list(div(p, s).values()) if s else []
        out.append((name, what, spread(s.values()) if s else "-", spread(pv),
                    "%s %s" % (fmt(median(ps)), ci(ps)) if ps else "-",
                    spread(ctl),
                    {"==": "= %g", "±": "1 ± %g"}.get(op, op + " %g") % target,
                    meet(pv, op, target) + (" (stock %s)" % meet(s.values(), op, target)
                                            if s else ""), ci(pv), verd))

    def kernels(name, what, per_kernel, op, target):
        """A goal on patched / stock of the same repetition, with its control."""
        p, ctl = d.paired(per_kernel)
        goal(name, what + ", patched / stock (paired)", None, p, op, target, ctl=ctl)

    for what, key in (("1 writer", sequ), ("32 files", f32u), ("NFSD mode 1", nfs1)):
        kernels("P0", "%s, dontcache MB/s" % what,
                lambda kern, key=key: d.get(kern, key, "write_mbs"), ">=", 1.0)
    for what, a, b in (("1 writer, dontcache / buffered", sequ, seqb),
                       ("32 files, dontcache / buffered", f32u, f32b),
                       ("NFSD, mode 1 / mode 0", nfs1, nfs0)):
        kernels("P0", "%s of the same boot" % what,
                lambda kern, a=a, b=b: d.ratio_within(kern, a, b, "write_mbs"), ">=", 1.0)
    goal("P1", "dontcache / buffered streaming write (per boot)",
         *both(sequ, seqb, "write_mbs"), ">=", 0.95, (seqb, sequ))
    goal("P1", "peak Cached, dontcache / buffered",
         *both(sequ, seqb, "peak_cached_mb"), "<=", 0.10, (seqb, sequ))
    goal("P2", "32 files, dontcache / buffered",
         *both(f32u, f32b, "write_mbs"), ">=", 0.95, (f32b, f32u))
    goal("P3", "buffered writer beside a dontcache writer / the same writer alone",
         *both(comp, solo, "write_mbs"), ">=", 0.90, (comp, solo))
    goal("P4", "client COMMITs, split-write in mode 4 (stock: mode 2)",
         d.get("stock", m2, "cli_commit"), d.get("patched", m4, "cli_commit"), "==", 0)
    goal("P4", "nfsd CPU per GB, mode 4 / mode 2 (split-write)",
         None, d.ratio_within("patched", m4, m2, "nfsd_cpu_s_per_gb"), "<=", 0.75)
    goal("P5", "disk reads per misaligned 47008-byte WRITE, mode 2",
         d.get("stock", mis, "reads_per_write"), d.get("patched", mis, "reads_per_write"),
         "<=", 0.1)
    kernels("P5", "misaligned 47008-byte WRITEs, mode 2",
            lambda kern: d.get(kern, mis, "write_mbs"), ">=", 2.0)
    kernels("P7", "other file written back beside a dontcache writer",
            lambda kern: d.get(kern, kara, "other_written_mb"), "<=", 0.10)
    goal("P7", "dontcache file cached at the end / its data set",
         cached_share(d, "stock", kara), cached_share(d, "patched", kara), "<=", 0.10)
    # A dontcache stream beside 100000 dirty inodes, whose pass must find the
    # stream's among them: the series against the base kernel of this section (v7.3.4;
    # with BENCH_BASE=stock,scoped also patch 2's pass alone, but never scoped against
    # v7.3.4, which the run's README works out from reps.csv).
    for metric, what, op in (("write_mbs", "MB/s", ">="),
                             ("kworker_cpu_s_per_gb", "kworker CPU s/GB", "<=")):
        kernels("P7", "dontcache stream beside 100000 dirty inodes, " + what,
                lambda kern, metric=metric: d.get(kern, many, metric), op, 1.0)
    goal("P8", "random readers beside a dontcache writer / alone, MB/s (per boot)",
         *both(rdbeside, rdalone, "read_mbs"), ">=", 0.90)
    goal("P8", "random readers beside a dontcache writer / alone, p99 (per boot)",
         *both(rdbeside, rdalone, "lat_p99_ms"), "<=", 1.5)
    # What the series does to the readers' share, against what stock does to it.
    kernels("P8", "random readers beside a dontcache writer / alone, MB/s",
            lambda kern: d.ratio_within(kern, rdbeside, rdalone, "read_mbs"), ">=", 1.0)
    kernels("P8", "random readers beside a dontcache writer / alone, p99",
            lambda kern: d.ratio_within(kern, rdbeside, rdalone, "lat_p99_ms"), "<=", 1.0)
    for key, what in UNTOUCHED[:2]:
        kernels("P6", what, lambda kern, key=key: d.get(kern, key, "write_mbs"), "±", 0.03)
    unmeasured = ", ".join(sorted({g for g, _ in missing} - measured))
    rows = "; ".join('%s "%s"' % m for m in missing if m[0] in measured)
    unmeasured += ("; rows " if unmeasured else "rows ") + rows if rows else ""
    p1 = [list(v.values()) for v in both(sequ, seqb, "write_mbs")]
    return out, unmeasured, all(p1) and tuple(verdict(v, ">=", 0.95) for v in p1)


# ---------------------------------------------------------------------------
# Writing the report.


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_csv(path, delimiter=","):
    try:
        with open(path) as f:
            return list(csv.DictReader(f, delimiter=delimiter))
    except OSError:
        return []


def shape(run_dir):
    """The VM shape the boots really had (vm.sh writes it), kept in vm.json."""
    bench = read_json(os.path.join(run_dir, "bench.json")) or {}
    kernels, mem, cpus, shapes = set(), set(), set(), []
    for boot in glob.glob(os.path.join(run_dir, "raw", "rep*-*")):
        vm = read_json(os.path.join(boot, "vm.json"))
        if vm:
            vm.pop("kernel_build", None)
            if vm not in shapes:
                shapes.append(vm)
        try:
            with open(os.path.join(boot, "uname.txt")) as f:
                kernels.add(f.read().strip())
            with open(os.path.join(boot, "shape.txt")) as f:
                c, m = f.read().split()
                cpus.add(c)
                mem.add(int(m))
        except (OSError, ValueError):
            pass
    if shapes:
        if len(shapes) > 1:
            sys.exit("error: the boots of %s had different VM shapes: %s" % (run_dir, shapes))
        with open(os.path.join(run_dir, "vm.json"), "w") as f:
            json.dump(shapes[0], f)
    saved = os.path.join(run_dir, "guest.json")
    if kernels:
        with open(saved, "w") as f:
            json.dump({"kernels": sorted(kernels), "memtotal_kb": sorted(mem),
                       "cpus": sorted(cpus)}, f)
    vm = read_json(os.path.join(run_dir, "vm.json")) or {}
    vm.update(bench)
    return vm, read_json(saved) or {}


def suite_meta(run_dir):
    """Sizes and runtimes per target/workload from the suite's meta.json files."""
    seen = {}
    for meta in glob.glob(os.path.join(run_dir, "raw", "rep*-*", "run*-*", "meta.json")):
        m = read_json(meta) or {}
        for wl in m.get("workloads", []):
            seen[(m.get("target"), wl)] = (m.get("size_bytes"), m.get("runtime_s"),
                                           m.get("filesystem"), m.get("nfsd_threads"),
                                           m.get("vm_dirty"))
    saved = os.path.join(run_dir, "runs.json")
    if seen:
        with open(saved, "w") as f:
            json.dump([{"target": t, "workload": w, "size_bytes": v[0], "runtime_s": v[1],
                        "filesystem": v[2], "nfsd_threads": v[3], "vm_dirty": v[4]}
                       for (t, w), v in sorted(seen.items())], f, indent=1)
    return read_json(saved) or []


def plot(run_dir, d, target, workload, metric, label):
    """Bars of stock and patched, median with min-max error bars, per mode and job."""
    keys = [k for k in d.keys if k[0] == target and k[1] == workload]
    lines = []
    for k in keys:
        cells = []
        for kern in KERNELS:
            v = d.vals(kern, k, metric)
            cells += [median(v), min(v), max(v)] if v else [None] * 3
        if all(c is None for c in cells):
            continue
        name = k[2] if k[3] in (workload, "-") else "%s %s" % (k[2], k[3])
        lines.append("\t".join([name] + ["-" if c is None else repr(c) for c in cells]))
    if not lines:
        return None
    pdir = os.path.join(run_dir, "plots")
    os.makedirs(pdir, exist_ok=True)
    base = "%s-%s-%s" % (target, workload, metric)
    with open(os.path.join(pdir, base + ".tsv"), "w") as f:
        f.write("# label\tstock median\tmin\tmax\tpatched median\tmin\tmax\n")
        f.write("\n".join(lines) + "\n")
    script = "\n".join([
        "set terminal pngcairo size 900,480 noenhanced",
        "set output '%s.png'" % base,
        "set title '%s %s: %s (median, bars min-max over %d repetitions)'"
        % (target, workload, label, len(d.reps)),
        "set datafile separator tab",
        "set datafile missing '-'",
        "set style data histograms",
        "set style histogram errorbars gap 2 lw 1.5",
        "set style fill solid 0.7 border -1",
        "set ylabel '%s'" % label,
        "set yrange [0:*]",
        "set grid ytics",
        "set key outside top center horizontal",
        "plot '%s.tsv' using 2:3:4:xtic(1) title 'stock v7.3.4' lc rgb '#8c8c8c', "
        "'' using 5:6:7 title 'patched' lc rgb '#1f77b4'" % base,
    ])
    return "plots/%s.png" % base if gnuplot(pdir, script) else None


def bw_per_second(rdir):
    """MB/s per whole second of the run, summed over the jobs' fio bandwidth logs."""
    total = {}
    for log in glob.glob(os.path.join(rdir, "*_bw.*.log")):
        with open(log) as f:
            for line in f:
                fields = [x.strip() for x in line.split(",")]
                if len(fields) < 2:
                    continue
                sec = int(fields[0]) // 1000
                total[sec] = total.get(sec, 0.0) + int(fields[1]) * 1024 / 1e6
    return sorted(total.items())


def time_series(run_dir, target, workload):
    """MB/s and page cache over the run, stock and patched, buffered and dontcache
    (repetition 1 of each kernel): one PNG with two panels, or None."""
    series = []
    for kern in KERNELS:
        for mode, name in (("buffered", "buffered"), ("uncached", "dontcache")):
            rdir = os.path.join(run_dir, "raw", "rep1-" + kern, "run*-" + target, workload,
                                mode, "rep1")
            rdir = (glob.glob(rdir) or [None])[0]
            if not rdir:
                continue
            bw = bw_per_second(rdir)
            cached = [(float(r["time_s"]), int(r["cached_kb"]) / 1024)
                      for r in read_csv(os.path.join(rdir, "meminfo.tsv"), delimiter="\t")]
            if not bw and not cached:
                continue
            series.append(("%s %s" % (kern if kern == "patched" else "stock v7.3.4", name),
                           bw, cached))
    base = "%s-%s-timeseries" % (target, workload)
    if not series:
        # A committed run keeps its plot, not the raw files it was drawn from.
        png = os.path.join("plots", base + ".png")
        return png if os.path.exists(os.path.join(run_dir, png)) else None
    pdir = os.path.join(run_dir, "plots")
    os.makedirs(pdir, exist_ok=True)
    plots_bw, plots_c = [], []
    # One time axis for both panels: the longer of fio's log and the samples.
    xmax = max([t for _, bw, cached in series for t, _ in bw + cached] or [1])
    for i, (title, bw, cached) in enumerate(series):
        for kind, pts, acc in (("bw", bw, plots_bw), ("cached", cached, plots_c)):
            tsv = "%s-%d-%s.tsv" % (base, i, kind)
            with open(os.path.join(pdir, tsv), "w") as f:
                f.write("# %s: seconds\t%s\n" % (title, "MB/s" if kind == "bw" else "Cached MB"))
                f.writelines("%s\t%s\n" % (t, v) for t, v in pts)
            if pts:
                acc.append("'%s' using 1:2 with lines lw 2 dt %d lc rgb '%s' title '%s'"
                           % (tsv, 1 if "buffered" in title else 2,
                              "#1f77b4" if title.startswith("patched") else "#8c8c8c", title))
    script = "\n".join([
        "set terminal pngcairo size 900,720 noenhanced",
        "set output '%s.png'" % base,
        "set datafile separator tab",
        "set multiplot layout 2,1 title '%s %s over time (repetition 1 of each kernel)'"
        % (target, workload),
        "set grid", "set key outside right", "set xlabel 'seconds'",
        "set xrange [0:%s]" % xmax,
        "set ylabel 'write MB/s'", "set yrange [0:*]",
        "plot " + ", ".join(plots_bw) if plots_bw else "",
        "set ylabel 'page cache (Cached) MB'", "set yrange [0:*]",
        "plot " + ", ".join(plots_c) if plots_c else "",
        "unset multiplot",
    ])
    return "plots/%s.png" % base if gnuplot(pdir, script) and plots_bw else None


def gnuplot(pdir, script):
    """Run a gnuplot script in pdir; True if it worked."""
    return subprocess.run(["gnuplot"], input=script, text=True, cwd=pdir,
                          capture_output=True, check=False).returncode == 0


def kernel_rows(d, keys, metrics):
    """(key, kernel, median [min-max] of each metric) for every key and kernel that
    has a value of the first metric."""
    return [(k, kern, tuple(spread(d.vals(kern, k, m)) for m in metrics))
            for k in keys for kern in KERNELS if d.vals(kern, k, metrics[0])]


def report(run_dir):
    """report.md of the first base kernel against patched, and report-<base>.md of
    every other base a multi-kernel run (BENCH_BASE=stock,NAME) booted."""
    rows = read_csv(os.path.join(run_dir, "reps.csv"))
    boots = read_csv(os.path.join(run_dir, "boots.csv"))
    bench = read_json(os.path.join(run_dir, "bench.json")) or {}
    bases = bench.get("bases") or ["stock"]
    run = shape(run_dir) + (suite_meta(run_dir),)
    controls = control_pairs(boots)
    for i, base in enumerate(bases):
        # The base under comparison takes the "stock" slot; other bases are left out.
        def slot(r):
            return dict(r, kernel="stock") if r["kernel"] == base else r
        mine = [slot(r) for r in rows if r["kernel"] in (base, "patched")]
        booted = [slot(b) for b in boots if b["kernel"] in (base, "patched")]
        ctl = [("stock" if k == base else k, r1, r2) for k, r1, r2 in controls
               if k in (base, "patched")]
        # Older runs booted their one base as "stock" and named it in "base".
        report_one(run_dir, run, mine, booted, ctl, bench.get("base", base), i == 0,
                   len(bases) > 1)


def report_one(run_dir, run, rows, boots, controls, base, first, several):
    """One report of base (in the "stock" slot of rows and boots) against patched:
    report.md with the plots for the first base, report-<base>.md for the others.
    run: (vm, guest, metas) of the whole run; controls: see Data.
    A repetition with a boot that ran beside other host load (bench.sh flags it
    loaded-during) is left out, its control pairs too."""
    loaded = sorted({int(b["rep"]) for b in boots if "loaded-during" in (b.get("flag") or "")})
    rows = [r for r in rows if int(r["rep"]) not in loaded]
    controls = [c for c in controls if c[1] not in loaded and c[2] not in loaded]
    d = Data(rows, controls)
    vm, guest, metas = run
    outname = "report.md" if first else "report-%s.md" % base
    mem_kb = (guest.get("memtotal_kb") or [None])[0]
    # The deterministic profile's null_blk disks live in guest RAM the page cache
    # cannot use: what reclaim is measured against is the rest.
    disk_kb = int(vm.get("disk_ram_mib") or 0) * 1024
    ram_gb = (mem_kb - disk_kb) * 1024 / 1e9 if mem_kb else None
    out = ["# nfsd-io-bench: stock v7.3.4 vs the series, interleaved", ""]
    name = os.path.basename(os.path.abspath(run_dir))
    if vm.get("rounds"):
        out += ["Run `%s`, profile `%s`: %d repetitions, %d in each boot of one image, the "
                "bench variant `ab` (config/variants/ab.diff), whose dontcache policy is "
                "switched at run time: `%s` (%s) and the series' (\"patched\"). Each "
                "repetition runs the profile once per policy (since 5ae95b0 each run back "
                "to back for every policy), in reverse order in every other repetition "
                "(ABBA): the two sides of a pair differ in "
                "nothing else, neither build nor boot. Below, a \"boot\" is one policy's "
                "turn in a repetition, and the identical-code control is the same policy "
                "run twice in a row, at the turn of two repetitions." % (
                    name, vm.get("profile", "?"), len(d.reps), vm["rounds"], base,
                    "v7.3.4's dontcache path" if base == "stock" else "scripts/bench-profiles.sh, "
                    "ab_policy"), ""]
    else:
        out += ["Run `%s`, profile `%s`: %d repetitions; each repetition boots every kernel "
                "once, in reverse order in every other repetition (ABBA), so that drifting "
                "host load falls on the kernels alike." % (name, vm.get("profile", "?"),
                                                           len(d.reps)), ""]
    out += ["VM: QEMU %s, %s vCPUs, %s RAM (the guest sees %s MiB), "
            "scratch disks: %s. Kernels: %s, built from the same config "
            "without debug options (no lockdep). NFS server and client share the guest "
            "(127.0.0.1): guest CPU includes both; nfsd CPU is the server's threads alone. "
            "Under TCG buffered I/O is CPU-bound: compare the kernels and modes with each "
            "other, not with real hardware.%s"
            % (("TCG (no KVM)" if vm.get("accel", "tcg") == "tcg" else vm.get("accel"))
               + (", -icount shift=%s (guest time counted in instructions)" % vm["icount"]
                  if vm.get("icount") else ""),
               vm.get("cpus", "?"), vm.get("mem", "?"),
               mem_kb // 1024 if mem_kb else "?", vm.get("disk", "?"),
               ", ".join(guest.get("kernels", [])) or "?",
               (" Under icount a guest second is 10^9 / 2^%s guest instructions (of the "
                "vCPUs together), whatever the host's speed: every time and CPU figure "
                "below (MB/s, latency, CPU s/GB) is a count of guest instructions." % vm["icount"])
               if vm.get("deterministic") else ""), ""]
    if metas:
        out += ["Data sets and runtimes: " + "; ".join(
            "%s %s %s MiB for %s s" % (m["target"], m["workload"],
                                       (m["size_bytes"] or 0) >> 20, m["runtime_s"])
            for m in metas) + ". Runs are time-based: the `written GB` column says how "
            "much each wrote.", ""]
        dirty = next((m["vm_dirty"] for m in metas if m.get("vm_dirty")), None)
        if dirty:
            out += ["Guest settings: " + ", ".join("vm.%s=%s" % kv for kv in sorted(dirty.items()))
                    + "; filesystem %s; nfsd threads %s."
                    % (next((m["filesystem"] for m in metas if m.get("filesystem")), "?"),
                       next((m["nfsd_threads"] for m in metas if m.get("nfsd_threads")), "?")),
                    ""]

    out += ["## Boots", ""]
    failed = [b for b in boots if b.get("status") != "ok"]
    load = bool(boots) and "load1_before" in boots[0]
    out += md_table(["rep", "kernel", "order", "seconds", "status"] + (
        ["host load1", "CPU pressure", "IO pressure", "busiest before", "flag"] if load else []),
        [(b["rep"], b["kernel"], b["boot"], b["seconds"], b["status"]) + (tuple(
            "%s → %s" % (b[x + "_before"], b[x + "_after"])
            for x in ("load1", "cpu_psi", "io_psi")) + (b["busy_before"], b["flag"])
            if load else ()) for b in boots])
    out += ["", "Failed boots: " + (", ".join("rep %s %s" % (b["rep"], b["kernel"])
                                              for b in failed) or "none") + ".", ""]
    if any("load1_during" in b for b in boots):
        out += ["Repetitions left out of every figure below because a boot of theirs ran "
                "beside other host load (the median of the host's load1, sampled every 10 s "
                "during the boot, above the vCPUs + 1: flag `loaded-during`): "
                + (", ".join(map(str, loaded)) or "none") + ".", ""]
    if load:
        out += ["Host load before → after each boot: the 1-minute load average and the "
                "share of time some task waited for CPU or IO (PSI some avg60, %%); the "
                "busiest other host process (over 5%% CPU) before it. Before each boot the "
                "bench waits up to a minute for 10 s of CPU pressure avg10 < 5%% and IO "
                "pressure < 1%% (load1 is recorded, not waited for: after a VM it takes "
                "minutes to decay); boots flagged `loaded` started without that: %d of %d."
                % (sum(b["flag"] == "loaded" for b in boots), len(boots)), ""]
    else:
        out += ["Host load was not recorded for this run's boots.", ""]
    if not vm.get("rounds"):
        out += order_effect(d, boots)
    missing = ["%s %s %s %s (%s): rep %s" % (key + (k, ",".join(map(str, lost))))
               for key in d.keys for k in KERNELS
               for lost in [[r for r in d.reps if r not in d.v.get((k,) + key, {})]]
               if lost and (k == "patched" or not re.match(r"mode[34]$", key[2]))]
    out += ["Runs without a result (left out of the medians): " +
            ("; ".join(missing) if missing else "none") + ".", ""]

    disks = read_csv(os.path.join(run_dir, "disks.csv"))
    if disks:
        out += ["## Devices, as the guest sees them", ""]
        out += md_table(list(disks[0].keys()), [list(r.values()) for r in disks])
        out += ["", "NFSD can split a WRITE into O_DIRECT and buffered parts only when the "
                "payload's offset in the receive buffer (4-byte aligned) meets dio_mem_align: "
                "NVMe's dma_alignment 3 allows it, virtio-blk's 511 does not.", ""]

    out += ["## Noise of untouched code", ""]
    noise, ctls = [], []
    for i, (key, what) in enumerate(UNTOUCHED):
        p, ctl = d.paired(lambda kern, key=key: d.get(kern, key, "write_mbs"))
        r = list(p.values())
        if i < 2:  # the rows P6 judges
            ctls += ctl
        if r:
            noise.append((what, fmt(median(r)), ci(r), meet(r, "±", 0.03),
                          spread(ctl), meet(ctl, "±", 0.03) if ctl else "-")
                         + tuple(spread(d.vals(k, key, "write_mbs")) for k in KERNELS))
    out += md_table(["what", "patched / stock (paired)", "interval (coverage)",
                     "within 1 ± 0.03", "identical-code control", "within 1 ± 0.03",
                     "stock MB/s", "patched MB/s"], noise)
    out += ["", "Code the series does not change, patched/stock of the same repetition; "
            "MB/s as median [min–max]. P6 is judged from the first two rows. The "
            "identical-code control: one kernel's boot that opens a repetition over its "
            "boot that closed the one before (the same image booted twice in a row), %s."
            % ("; ".join("%s, reps %d and %d" % c for c in d.controls)
               or "none in this run"), ""]
    if ctls:
        inside = sum(abs(c - 1) <= 0.03 for c in ctls)
        out += ["How close the run came to ±3%%: the buffered and O_DIRECT writes of one "
                "image booted twice in a row agree within ±3%% in %d of %d control pairs "
                "(largest deviation %.0f%%). %s" % (
                    inside, len(ctls), 100 * max(abs(c - 1) for c in ctls),
                    "Boots of identical code already differ by more than P6's ±3%, so the "
                    "patched/stock intervals of this run cannot reach it either."
                    if inside < len(ctls) else
                    "Identical code stays within ±3% here."), ""]

    out += ["## Goals", ""]
    rows, unmeasured, p1_verdicts = goals(d, ram_gb)
    out += md_table(["goal", "what", "stock", "patched", "patched / stock (paired)",
                     "identical-code control", "target", "meet", "interval (coverage)",
                     "verdict"], rows)
    if unmeasured:
        out += ["", "Not measured by this profile: %s." % unmeasured]
    p1 = "" if not p1_verdicts else (
        "P1 compares dontcache with buffered writes within one kernel, and stock v7.3.4 has "
        "dontcache too, so P1 cannot judge the series" + (
            ": under TCG both kernels meet it. " if p1_verdicts == ("met", "met") else
            " (its throughput row in this run, stock: %s; patched: %s). " % p1_verdicts))
    out += ["", "Values are medians [min–max] over the repetitions of per-boot ratios "
            "(within one kernel) or of patched/stock ratios of the same repetition (P0, P5, "
            "P6, P7's first row). P0 is the series' own effect: dontcache on the patched "
            "kernel against dontcache on stock. " + p1 +
            "P1–P3 are judged only when every run they use wrote more than the guest's RAM "
            "(%s GB%s) into its data set of twice the RAM, so that writeback and reclaim happen "
            "during the run." % ("%.2f" % ram_gb if ram_gb else "?",
                                 ", besides its null_blk disks" if disk_kb else ""),
            "", RULE, ""]

    nfs_keys = [k for k in d.keys if k[0] in ("nfs", "nfsmount")
                and re.match(r"mode[234]$", k[2])]
    if nfs_keys:
        out += ["## How NFSD wrote the WRITEs of its direct modes", ""]
        prow = []
        for k in nfs_keys:
            for kern in KERNELS:
                dv, sv, fv = (d.get(kern, k, "path_" + x) for x in ("direct", "split", "fallback"))
                if not (dv or sv or fv):
                    continue
                share = [sv.get(r, 0) / t for r in d.reps
                         for t in [dv.get(r, 0) + sv.get(r, 0) + fv.get(r, 0)] if t]
                prow.append((k[0], k[1], k[2], kern, spread(dv.values()),
                             spread(sv.values()), spread(fv.values()),
                             spread([100 * s for s in share])))
        out += md_table(["target", "workload", "mode", "kernel", "direct", "split",
                         "fallback", "split %"], prow)
        out += ["", "Per WRITE (xid), from the tracepoints nfsd_write_direct and "
                "nfsd_write_vector: *direct* only O_DIRECT, *split* O_DIRECT plus buffered "
                "ends, *fallback* wholly buffered. Target: ≥ 90% split for split-write and "
                "misaligned-write.", ""]

    commit_keys = [k for k in d.keys if k[0] == "nfsmount"
                   and k[1] in ("split-write", "split-write-buffered")]
    if commit_keys:
        out += ["## COMMITs per mode: the kernel client, O_DIRECT and buffered", ""]
        crow = [(k[1], k[2], kern) + cells for k, kern, cells in kernel_rows(
            d, commit_keys, ("srv_write", "cli_commit", "srv_commit", "flushes_per_write",
                             "write_mbs"))]
        out += md_table(["workload", "mode", "kernel", "WRITEs", "client COMMITs",
                         "server COMMITs", "disk flushes per WRITE", "write MB/s"], crow)
        out += ["", "split-write's client writes O_DIRECT, split-write-buffered's through its "
                "page cache and closes the file (flush and COMMIT). Mode 2 replies UNSTABLE, "
                "mode 3 at least DATA_SYNC, mode 4 FILE_SYNC. A buffered Linux client still "
                "COMMITs after DATA_SYNC replies (nfs_write_need_commit()); only FILE_SYNC "
                "ends them. Stock NFSD has no modes 3 and 4.", ""]

    fair_keys = [k for k in d.keys if any(d.vals(kern, k, "clients") for kern in KERNELS)]
    if fair_keys:
        out += ["## Clients: the jobs of one fio section", ""]
        frow = [k + (kern, "%d" % max(d.vals(kern, k, "clients"))) + cells[1:]
                for k, kern, cells in kernel_rows(
                    d, fair_keys, ("clients", "client_min_mbs", "client_max_mbs",
                                   "fairness"))]
        out += md_table(["target", "workload", "mode", "section", "kernel", "clients",
                         "slowest MB/s", "fastest MB/s", "fairness (slowest / fastest)"], frow)
        out += ["", "A client is one job of a fio section run as several jobs (numjobs); "
                "its MB/s is the mean of its fio bandwidth log (one sample a second, "
                "parse-results.sh). files32-write is one writer over 32 files, so it has "
                "no clients to compare.", ""]

    out += ["## All results", "",
            "Each cell: median [min–max] over the repetitions; `p/s` is the median [min–max] "
            "of the per-repetition patched/stock ratios.", ""]
    for target, wl in dict.fromkeys(k[:2] for k in d.keys):
        keys = [k for k in d.keys if k[0] == target and k[1] == wl]
        trows = []
        for metric, label in TABLE_METRICS:
            for k in keys:
                s, p = d.vals("stock", k, metric), d.vals("patched", k, metric)
                if not s and not p:
                    continue
                trows.append((label, k[2], k[3], spread(s), spread(p),
                              spread(d.ratio_paired(k, metric).values())))
        if not trows:
            continue
        out += ["### %s: %s" % (target, wl), ""]
        out += md_table(["metric", "mode", "job", "stock", "patched", "p/s"], trows)
        out += [""]
        # Bars of what the workload moves: readers-only workloads write nothing.
        wrote = any(v for k in keys for kern in KERNELS for v in d.vals(kern, k, "write_mbs"))
        mbs = ("write_mbs", "write MB/s") if wrote else ("read_mbs", "read MB/s")
        for metric, label in (mbs, ("lat_p99_ms", "p99 latency ms")):
            png = first and plot(run_dir, d, target, wl, metric, label)
            if png and metric == mbs[0]:
                out += ["![%s %s](%s)" % (target, wl, png), ""]
        if first and target == "local" and wl in ("seq-write", "files32-write"):
            png = time_series(run_dir, target, wl)
            if png:
                out += ["![%s %s over time](%s)" % (target, wl, png), ""]
    if several:
        out.insert(2, "This run booted more kernels in turn than this report compares (see "
                   "bench.json); each other one has its own report-<kernel>.md.")
        out.insert(3, "")
    if base != "stock":
        # The base slot ran another kernel: name it wherever the text says stock.
        out.insert(2, "The base slot booted `bench-%s`, not stock v7.3.4; \"patched\" is "
                   "the series as it is now." % base)
        out.insert(3, "")
        out = [re.sub(r"\bstock( v7\.3\.4)?\b", base, line) if i != 2 else line
               for i, line in enumerate(out)]
    with open(os.path.join(run_dir, outname), "w") as f:
        f.write("\n".join(out).replace("\n\n\n", "\n\n"))
    # The goals section, for the terminal.
    start = out.index("## Goals")
    end = next((i for i in range(start + 1, len(out)) if out[i].startswith("## ")), len(out))
    print("\n".join(out[start:end]))


def main():
    ap = argparse.ArgumentParser(description="Report of a bench run (scripts/bench.sh).")
    ap.add_argument("run_dir", metavar="DIR")
    ap.add_argument("--parse", metavar="PATH/parse-results.sh")
    args = ap.parse_args()
    run_dir, parse = args.run_dir, args.parse
    if os.path.isdir(os.path.join(run_dir, "raw")):
        cache = os.environ.get("CACHE_DIR", "/var/cache/dontcache-series")
        for cand in (parse,
                     os.path.join(cache, "bench-src/tools/testing/nfsd-io-bench/parse-results.sh"),
                     os.path.join(cache, "linux/tools/testing/nfsd-io-bench/parse-results.sh")):
            if cand and os.access(cand, os.X_OK):
                parse = cand
                break
        else:
            sys.exit("error: no parse-results.sh: run 'make tree' (the suite is part of the series)")
        collect(run_dir, parse)
    elif not os.path.exists(os.path.join(run_dir, "reps.csv")):
        sys.exit("error: %s has neither raw/ nor reps.csv: is it a bench results directory?" % run_dir)
    report(run_dir)


if __name__ == "__main__":
    main()
