#!/usr/bin/env python3
"""Ground truth of the planted host-time cases (host_plants.py, issue 20): for each plant, the
file, function and line where its time is spent, the GPU-idle category stepscope should blame,
and the measured ms/step that removing it saves (bad minus fixed, plain runs, interleaved,
several repetitions).

    python3 bench/workloads/host/make_truth.py --locate                 # the locations only
    python3 bench/workloads/host/make_truth.py --reps 5 --prime --out DIR   # measure, then write
                                                                        # DIR/host_truth.json
    python3 bench/workloads/host/make_truth.py --from DIR               # from a run_twins.py
                                                                        # truth run in DIR

The location is found in the source, never typed in: the line that carries the comment
`# PLANT: <case>` (exactly one per case), and the innermost function around it (ast). The file
is given relative to the repository root; a report names it by the path Python ran it from, so
compare by suffix. Savings: per repetition, bad minus fixed of the same repetition (the twins
run back to back), then median and range over the repetitions.
"""
import argparse
import ast
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(WORKLOADS))
PLANTS_FILE = os.path.join(HERE, "host_plants.py")
sys.path.insert(0, WORKLOADS)
import run_truth as RT  # noqa: E402

# The category of GPU-idle time each plant must be blamed for (BRIEF.md's attribution model),
# and the categories that may take part of it: the Python loop's time is split between the
# launch calls it makes and the Python between them.
CATEGORY = {"collate": ("data", []), "item": ("sync", []), "pyloop": ("host", ["launch"])}
MARKER = re.compile(r"#\s*PLANT:\s*(\w+)\s*$")


def enclosing_function(tree, line):
    """Name of the innermost function whose body holds `line` (None at module level)."""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.lineno <= line <= node.end_lineno:
                if best is None or node.lineno >= best.lineno:
                    best = node
    return best.name if best else None


def locate(path=PLANTS_FILE):
    """{case: {file, function, line, code}} from the `# PLANT: <case>` comments."""
    with open(path) as f:
        source = f.read()
    tree = ast.parse(source)
    found = {}
    for number, text in enumerate(source.splitlines(), 1):
        m = MARKER.search(text)
        if not m:
            continue
        case = m.group(1)
        if case in found:
            raise ValueError("%s: two '# PLANT: %s' lines (%d and %d)"
                             % (path, case, found[case]["line"], number))
        found[case] = {"file": os.path.relpath(path, REPO), "line": number,
                       "function": enclosing_function(tree, number),
                       "code": text.split("#")[0].strip()}
    missing = sorted(set(CATEGORY) - set(found))
    if missing:
        raise ValueError("%s: no '# PLANT: ...' line for %s" % (path, ", ".join(missing)))
    return found



def savings_from_runs(out_dir, program):
    bad, fixed = {}, {}
    runs_dir = os.path.join(out_dir, "runs")
    for name in sorted(os.listdir(runs_dir)) if os.path.isdir(runs_dir) else ():
        run = RT.read_json(os.path.join(runs_dir, name))
        if not run or run.get("status") != "ok" or "rep" not in run:
            continue
        if run["config"] == program + "-bad":
            bad[run["rep"]] = run["ms_per_step"]
        elif run["config"] == program + "-fixed":
            fixed[run["rep"]] = run["ms_per_step"]
    return [bad[r] - fixed[r] for r in sorted(set(bad) & set(fixed))]


def build(out_dir, locations):
    truth = {e["program"]: e for e in RT.read_json(os.path.join(out_dir, "truth.json")) or []}
    entries = []
    for case, where in locations.items():
        program = "host_" + case
        e = truth.get(program, {})
        pairs = savings_from_runs(out_dir, program)
        category, also = CATEGORY[case]
        entries.append(dict(
            where, plant=case, program=program, category=category, also_categories=also,
            planted=e.get("planted"), fix=e.get("fix"),
            bad_ms=(e.get("bad") or {}).get("median_ms"),
            fixed_ms=(e.get("fixed") or {}).get("median_ms"),
            saving_ms=e.get("saving_ms"),
            saving_per_rep_ms=[RT.rounded(s) for s in pairs],
            saving_median_ms=RT.rounded(RT.percentile(pairs, 0.5)),
            saving_min_ms=RT.rounded(min(pairs) if pairs else None),
            saving_max_ms=RT.rounded(max(pairs) if pairs else None),
            reps=len(pairs),
            bad_runs=(e.get("bad") or {}).get("runs"),
            fixed_runs=(e.get("fixed") or {}).get("runs")))
    return entries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locate", action="store_true", help="print the plant locations and exit")
    ap.add_argument("--from", dest="from_dir", help="a run_twins.py truth folder to read")
    ap.add_argument("--out", help="measure into this folder (run_twins.py truth)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--prime", action="store_true")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--budget-s", type=float, default=0)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--extra", default="", help="extra run_twins.py options")
    args = ap.parse_args(argv)
    locations = locate()
    if args.locate:
        for case, w in locations.items():
            print("%-7s %s:%d %s()  %s" % (case, w["file"], w["line"], w["function"], w["code"]))
        return 0
    out_dir = args.from_dir or args.out
    if not out_dir:
        ap.error("give --locate, --from DIR or --out DIR")
    if not args.from_dir:
        import run_twins
        rc = run_twins.main(["truth", "--programs", "host", "--reps", str(args.reps),
                             "--out", out_dir, "--device", args.device, "--python", args.python,
                             "--budget-s", str(args.budget_s)] + (["--prime"] if args.prime else [])
                            + args.extra.split())
        if rc:
            return rc
    entries = build(out_dir, locations)
    path = os.path.join(out_dir, "host_truth.json")
    RT.write_json(path, entries)
    for e in entries:
        print("%-7s %s:%d %s()  %s: saving %s ms/step (median of %d reps, %s..%s)" % (
            e["plant"], e["file"], e["line"], e["function"], e["category"],
            e["saving_median_ms"], e["reps"], e["saving_min_ms"], e["saving_max_ms"]))
    print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
