"""Each experiment's duty cycle, the share of its blocks' wall time inside measured windows, from a results.json
(python3 duty_cycle.py RESULTS.json). Results written since issue 46 keep it (experiments[].time); for older ones it is
reconstructed from the runs' start times: a block lasts from its first run's start to the next block's (any
experiment's; the last one to the run's end), which counts the database reset before a block, as the runner does."""
import json
import sys
from datetime import datetime


def measured(run):
    """A successful run's measured seconds: its cost windows (its slots), or its timeline's seconds."""
    if run["status"].lower() != "ok":
        return 0
    windows = (run.get("cost") or {}).get("windows", [])
    return sum(w["seconds"] for w in windows) or len(run["timeline"])


def main(path):
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    blocks = []
    for e in results["experiments"]:
        for rep in sorted({r["repetition"] for r in e["runs"]}):
            runs = [r for r in e["runs"] if r["repetition"] == rep]
            start = min(datetime.fromisoformat(r["startedAt"]) for r in runs)
            failed = sum(r["status"].lower() != "ok" for r in runs)
            blocks.append((start, e["name"], sum(measured(r) for r in runs), failed))
    blocks.sort()
    end = datetime.fromisoformat(results["finishedAt"])
    totals = {}
    for i, (start, name, seconds, failed) in enumerate(blocks):
        following = blocks[i + 1][0] if i + 1 < len(blocks) else end
        t = totals.setdefault(name, [0.0, 0.0, 0, 0])
        t[0] += (following - start).total_seconds()
        t[1] += seconds
        t[2] += 1
        t[3] += failed
    print("| experiment | blocks | failed runs | wall (s) | measured (s) | duty cycle | recorded by perflab |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for e in results["experiments"]:
        wall, seconds, n, failed = totals[e["name"]]
        kept = e.get("time")
        recorded = f"{100 * kept['measuredSeconds'] / kept['wallSeconds']:.1f} % of {kept['wallSeconds']:.0f} s" if kept else "no"
        print(f"| {e['name']} | {n} | {failed} | {wall:.0f} | {seconds:.0f} | {100 * seconds / wall:.1f} % | {recorded} |")


if __name__ == "__main__":
    main(sys.argv[1])
