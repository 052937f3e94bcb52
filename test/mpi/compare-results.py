#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Compares two results directories of ai-fabric-runner (test/mpi/runner-ranks-test.sh): every
# field of summary.json but the run's cost (sim.wall_s, sim.peak_rss_mb, sim.events, sim.ranks),
# and every CSV and JSON file byte for byte (config.json with its attribute values that are
# object addresses masked: they differ between any two processes). Prints the differences (at
# most 40) or "identical"; exit 0 when identical, 1 when not.
import filecmp
import json
import os
import re
import sys

COST = {("sim", "wall_s"), ("sim", "peak_rss_mb"), ("sim", "events"), ("sim", "ranks")}


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if tuple(path[-1:] + [k]) in COST:
                continue
            if k not in a or k not in b:
                out.append("/".join(path + [k]) + ": in one only")
            else:
                walk(a[k], b[k], path + [k], out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("/".join(path) + ": %d against %d entries" % (len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, path + [str(i)], out)
    elif a != b or type(a) is not type(b):
        out.append("/".join(path) + ": %r against %r" % (a, b))


def main():
    a, b = sys.argv[1], sys.argv[2]
    out = []
    walk(json.load(open(os.path.join(a, "summary.json"))),
         json.load(open(os.path.join(b, "summary.json"))), [], out)
    for root, _, files in os.walk(a):
        for f in sorted(files):
            if not f.endswith((".csv", ".json")) or f == "summary.json":
                continue
            pa = os.path.join(root, f)
            rel = os.path.relpath(pa, a)
            pb = os.path.join(b, rel)
            if not os.path.exists(pb):
                out.append(rel + ": missing")
            elif f == "config.json":
                mask = lambda p: re.sub(r"0x[0-9a-f]+", "0x", open(p).read())
                if mask(pa) != mask(pb):
                    out.append(rel + ": differs")
            elif not filecmp.cmp(pa, pb, shallow=False):
                out.append(rel + ": differs")
    print("\n".join(out[:40]) if out else "identical")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
