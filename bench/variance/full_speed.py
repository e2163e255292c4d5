#!/usr/bin/env python3
"""The kernel's CPU per request against the same at the cores' full speed, from results.json files (one experiment with
two variants each, e.g. the acceptance A/A): per invocation, each metric's mean paired log ratio over the blocks and
its standard deviation; over all of them, the spread of adjacent slots' log ratios, and how fast a window's cost rises
with its slowdown (the slope of log cost on log slowdown, each run's windows about their own mean).
Usage: bench/variance/full_speed.py RESULTS.json..."""
import json, math, statistics as st, sys


def window_cost(w, full_speed):
    cpu = w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0)
    return (cpu / w["slowdown"] if full_speed else cpu) * 1000 / w["requests"]


def blocks_of(path):
    e = json.load(open(path))["experiments"][0]
    base = e["baseline"]
    other = next(v for v in e["variants"] if v != base)
    blocks = {}
    for r in e["runs"]:
        if r["status"].lower() == "ok" and r.get("cost"):
            blocks.setdefault(r["repetition"], {})[r["variant"]] = r["cost"]
    return [(b[base], b[other]) for b in blocks.values() if base in b and other in b]


def main(paths):
    slot_sd = {False: [], True: []}
    xs, ys = [], []
    for path in paths:
        pairs = blocks_of(path)
        line = [path, f"{len(pairs)} blocks"]
        for full in (False, True):
            key = "fullSpeedMsPerRequest" if full else "msPerRequest"
            logs = [math.log(o[key] / a[key]) * 100 for a, o in pairs if a.get(key) and o.get(key)]
            if len(logs) > 1:
                line.append(f"{'full speed' if full else 'kernel'}: {st.mean(logs):+.1f} %, SD {st.stdev(logs):.1f} %")
            for a, o in pairs:
                if full:
                    for run in (a, o):
                        sampled = [w for w in run["windows"] if w.get("slowdown") and w["requests"]]
                        if len(sampled) > 1:
                            lx = [math.log(w["slowdown"]) for w in sampled]
                            ly = [math.log(window_cost(w, False)) for w in sampled]
                            xs += [x - st.mean(lx) for x in lx]
                            ys += [y - st.mean(ly) for y in ly]
                if all(w.get("slowdown") for w in a["windows"] + o["windows"]) or not full:
                    ratios = [math.log(window_cost(y, full) / window_cost(x, full)) for x, y in zip(a["windows"], o["windows"])]
                    if len(ratios) > 1:
                        slot_sd[full].append(st.variance(ratios))
        print("; ".join(line))
    for full in (False, True):
        if slot_sd[full]:
            print(f"adjacent slots' log ratio, {'full speed' if full else 'kernel'}: SD {math.sqrt(st.mean(slot_sd[full])) * 100:.1f} %")
    if len(xs) > 2 and any(xs):
        slope = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
        print(f"log cost on log slowdown within runs: slope {slope:.2f}, correlation {st.correlation(xs, ys):.2f} ({len(xs)} windows)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
