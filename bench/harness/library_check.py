#!/usr/bin/env python3
"""The library check over a build cache: every built library's findings and what reading
it cost (kbharness/symcheck.py, as an evaluation runs it, with the strictest policy).

    python3 bench/harness/library_check.py BUILD_DIR

BUILD_DIR is a harness build cache, e.g. the tests' (BUILD/harness-build-cache after a CTest
run). Prints one row per distinct library (the newest copy of each name), the findings'
rules, the number of imported names, and the seconds `nm` and `objdump` took; then the
totals. Exit status 0.
"""

import glob
import os
import sys
import time

HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "resources", "harness")
sys.path.insert(0, HARNESS)
from kbharness import symcheck  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    libs = glob.glob(os.path.join(sys.argv[1], "**", "*.so"), recursive=True)
    newest = {}
    for p in libs:
        name = os.path.basename(p)
        if name not in newest or os.path.getmtime(p) > os.path.getmtime(newest[name]):
            newest[name] = p
    print("library | KB | imported names | nm s | objdump s | findings")
    print("--- | --- | --- | --- | --- | ---")
    flagged = 0
    for name in sorted(newest):
        p = newest[name]
        t0 = time.perf_counter()
        names = symcheck.imported_names(p)
        t1 = time.perf_counter()
        symcheck.system_call_instructions(p)
        t2 = time.perf_counter()
        rules = sorted({f.rule for f in symcheck.check_library(p, False, frozenset())})
        flagged += bool(rules)
        row = (name, os.path.getsize(p) / 1024, len(names), t1 - t0, t2 - t1, ", ".join(rules) or "-")
        print("%s | %.0f | %d | %.3f | %.3f | %s" % row)
    print("\n%d files, %d distinct libraries, %d with findings" % (len(libs), len(newest), flagged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
