#!/usr/bin/env python3
"""What moves a slot's CPU per request, from results.json files of slotted runs: over every pair of adjacent slots of
one run, the SD per slot (log differences over √2, as a percent) of the requests the slot completed, of the CPU it used
(app and PostgreSQL backends), of CPU per request and of CPU per request at the cores' full speed (divided by the
window's slowdown factor); the correlation of the slot-to-slot changes in log requests and in log cost; the core-seconds
a slot used per 2 s; and the app's median CPU per request. When a slot's CPU is nearly fixed (a saturated machine),
cost per request follows the requests completed, and the correlation nears -1.
Usage: bench/variance/slot_cost.py RESULTS.json..."""
import json, math, statistics as st, sys


def windows(paths):
    """Each Ok run's cost windows, in order."""
    for path in paths:
        for experiment in json.load(open(path))["experiments"]:
            for run in experiment["runs"]:
                if run["status"].lower() == "ok" and run.get("cost"):
                    yield run["cost"]["windows"]


def cpu(w):
    return w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0)


def main(paths):
    requests, used, cost, full, app, busy, slowdowns = [], [], [], [], [], [], []
    for ws in windows(paths):
        app += [w["appCpuSeconds"] * 1000 / w["requests"] for w in ws]
        busy += [cpu(w) / w["seconds"] * 2 for w in ws]
        slowdowns += [w["slowdown"] for w in ws if w.get("slowdown")]
        for a, b in zip(ws, ws[1:]):
            requests.append(math.log(b["requests"] / a["requests"]))
            used.append(math.log(cpu(b) / cpu(a)))
            cost.append(used[-1] - requests[-1])
            if a.get("slowdown") and b.get("slowdown"):
                full.append(cost[-1] - math.log(b["slowdown"] / a["slowdown"]))
    if len(requests) < 3:
        sys.exit("fewer than three pairs of adjacent slots: nothing to say")
    per_slot = lambda logs: (math.exp(st.stdev(logs) / math.sqrt(2)) - 1) * 100
    print(f"{len(requests)} pairs of adjacent slots ({len(app)} slots); SD per slot: requests {per_slot(requests):.1f} %, "
          f"CPU {per_slot(used):.1f} %, CPU per request {per_slot(cost):.1f} %, "
          + (f"at full speed {per_slot(full):.1f} %" if len(full) >= 3 else "at full speed not sampled"))
    print(f"slot to slot, log requests and log cost correlate at {st.correlation(requests, cost):.2f}; "
          f"app and PostgreSQL used {st.mean(busy):.2f} core-seconds per 2 s; the app's CPU per request: median "
          f"{st.median(app):.2f} ms" + (f"; slowdown factor {min(slowdowns):.2f}-{max(slowdowns):.2f}" if slowdowns else ""))


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit(__doc__))
