#!/usr/bin/env python3
"""make numbers: every "median [min-max]" figure that the README, the cover letter and
the commit messages quote must be recomputed from the committed results it names.

A figure's source is the results/<run> directories its paragraph (text between blank
lines; each list item is a paragraph of its own) names ("results/<run>" or "run <run>") or, if it names none, the last
paragraph before it in the same file that did (a table under the sentence that names its
run, a sub-item under its item). Each such run's reports are rebuilt from its
committed reps.csv (scripts/report.py, into a temporary copy), and every figure must appear
in one of the rebuilt reports of its sources; a run without reps.csv (kselftest logs) is
searched as committed. A figure must also sit where its text puts it: one quoted right
after a kernel's name ("stock 1.18 [...]", "the series 0 [...]") must be in a cell of
that kernel's column or of a ratio column, and one whose clause names one goal ("P8's
p99 ...", or a table row that opens with "P8") in that goal's row, whenever the report
holds it in any goal's row. Prints one line per problem and exits 1 if there is any.

    check-numbers.py [FILE...]    (default: README.md, config/cover-letter.txt, patches/*.patch,
                                   results/*/README.md, where the run itself is a source too)
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A figure may be wrapped between its median and its interval: it is still checked.
FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s+\[(\d+(?:\.\d+)?)[–-](\d+(?:\.\d+)?)\]")
PARAGRAPH = re.compile(r"\n\s*\n|\n(?=[ \t]*(?:[-*]|\d+\.) )")
# A run is named as results/<run> or, in a patch message meant for a mailing list that
# cannot open the repository, as "run <run>".
RUN = re.compile(r"(?:results/|\brun\s+)(\d{4}-\d\d-\d\d-[\w-]+?)(?=[/)`'\s.,;:]|$)")


def norm(text):
    return text.replace("–", "-")


def rebuilt(run, cache={}):
    """The text of RUN's report, rebuilt from its committed files, or None."""
    if run not in cache:
        src = os.path.join(TOP, "results", run)
        cache[run] = None
        if os.path.exists(os.path.join(src, "reps.csv")):
            with tempfile.TemporaryDirectory() as tmp:
                dst = os.path.join(tmp, run)
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("plots", "raw"))
                subprocess.run([sys.executable, os.path.join(TOP, "scripts", "report.py"), dst],
                               check=True, capture_output=True)
                cache[run] = norm("".join(open(p).read() for p in
                                          sorted(glob.glob(os.path.join(dst, "report*.md")))))
        elif os.path.isdir(src):
            # Runs without reps.csv (kselftest logs): the figures are in their files.
            cache[run] = norm("".join(open(p, errors="replace").read()
                                      for p in glob.glob(os.path.join(src, "*")) if os.path.isfile(p)))
    return cache[run]


KERNEL_WORD = re.compile(r"patched\s*/\s*stock|stock\s*/\s*patched|\bstock\b|\bpatched\b|\bthe series\b")
GOAL_WORD = re.compile(r"\bP(\d)\b")
GOAL_ROW = re.compile(r"\s*P\d\b")


def cells(report):
    """{figure: [(goal or None, column kind)]} of every table cell of REPORT; a column
    is "stock", "patched" or "other" (ratios, controls, intervals) by its header."""
    where, header = {}, None
    for line in report.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = row
            continue
        goal = row[0] if re.fullmatch(r"P\d", row[0]) else None
        for name, cell in zip(header, row):
            kind = name.split()[0] if name in ("stock", "patched", "stock MB/s", "patched MB/s") else "other"
            for fig in FIGURE.findall(cell):
                where.setdefault("%s [%s-%s]" % fig, []).append((goal, kind))
    return where


# A kernel named right before a figure ("stock 1.18 [...]", "the series 0 [...]",
# "stock's mode 2 370 [...]"): at most three words between them.
KERNEL_BEFORE = re.compile(r"(?<![/\w])(stock|patched|the series)(?:'s)?(?![/\w])(?:\s+[^\s\[\]]+){0,3}\s+$")


JOINING = {"and", "or", "but", "against", "than", "to", "vs", "versus", "from", "with",
           "kernel", "kernel's"}


def misplaced(para, start, places):
    """Why the figure at START of PARA is quoted for another kernel or goal than every
    cell of the report that holds it, or None. Only what the text makes plain is
    checked: a kernel named right before the figure, and the one goal its clause names."""
    before = para[:start]
    m = KERNEL_BEFORE.search(before[-60:])
    # "on stock and 0.005 [...]", "the patched kernel against 0.859 [...]": the figure
    # belongs to what comes after the joining word.
    if m and JOINING & set(m.group(0).split()):
        m = None
    kernel = m and {"the series": "patched"}.get(m.group(1), m.group(1))
    if kernel and all(k not in (kernel, "other") for _, k in places):
        return "quoted for %s, but the report has it for the other kernel only" % kernel
    clause = before[max(before.rfind(". "), before.rfind("; "), before.rfind("\n\n"), 0):]
    # A table row of a patch message or the cover letter ("  P6 untouched ... 0.998
    # [...]") is a clause of its own: the rows above it name other goals.
    line = before[before.rfind("\n") + 1:]
    if GOAL_ROW.match(line):
        clause = line
    goals = set(GOAL_WORD.findall(clause))
    rows = {g for g, _ in places if g}
    if len(goals) == 1 and rows and "P" + min(goals) not in rows:
        return "quoted under P%s, but the report has it in %s only" % (
            min(goals), ", ".join(sorted(rows)))
    return None


def check(path):
    problems = []
    with open(path) as f:
        text = f.read()
    # A run's own README quotes that run wherever it names no other.
    own = os.path.relpath(path, os.path.join(TOP, "results")).split(os.sep)
    own = [own[0]] if len(own) == 2 and own[1] == "README.md" else []
    runs = own
    for para in PARAGRAPH.split(text):
        runs = sorted(set(RUN.findall(para)) | set(own)) if RUN.findall(para) else runs
        figures = FIGURE.findall(para)
        if not figures:
            continue
        where = "%s: %r" % (os.path.relpath(path, TOP), para.strip()[:60])
        if not runs:
            problems.append("%s...: quotes %s but no results/<run> names its source"
                            % (where, "%s [%s-%s]" % figures[0]))
            continue
        reports = [(r, rebuilt(r)) for r in runs]
        for r, rep in reports:
            if rep is None:
                problems.append("%s...: results/%s does not exist" % (where, r))
        texts = [rep for _, rep in reports if rep]
        places = {}
        for t in texts:
            for fig, at in cells(t).items():
                places.setdefault(fig, []).extend(at)
        for m in FIGURE.finditer(para):
            quoted = "%s [%s-%s]" % m.groups()
            if texts and not any(quoted in t for t in texts):
                problems.append("%s...: %s is not in the rebuilt report of %s"
                                % (where, quoted, ", ".join("results/" + r for r in runs)))
            elif quoted in places:
                why = misplaced(norm(para), m.start(), places[quoted])
                if why:
                    problems.append("%s...: %s %s" % (where, quoted, why))
    return problems


def main():
    files = sys.argv[1:] or ([os.path.join(TOP, "README.md"),
                              os.path.join(TOP, "config", "cover-letter.txt")]
                             + sorted(glob.glob(os.path.join(TOP, "patches", "0*.patch")))
                             + sorted(glob.glob(os.path.join(TOP, "results", "*", "README.md"))))
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    print("numbers: %d problem(s) in %d file(s)" % (len(problems), len(files)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
