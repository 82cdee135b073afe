#!/usr/bin/env python3
"""Merges the truth.json of several run_truth.py batches (e.g. one per GPU of a machine, run at
the same time) into one list, in the case order of cases.py; a case found in several files
takes the last file's entry. Each entry gets `source` (the file it came from).

    python3 bench/workloads/merge_truth.py -o truth.json A/truth.json B/truth.json ...
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
import cases as C  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()
    by_case = {}
    for path in args.inputs:
        with open(path) as f:
            for entry in json.load(f):
                entry["source"] = path
                by_case[entry["case"]] = entry
    merged = [by_case[c] for c in C.CASES if c in by_case]
    with open(args.output, "w") as f:
        json.dump(merged, f, indent=1)
    print("%d cases -> %s" % (len(merged), args.output))


if __name__ == "__main__":
    main()
