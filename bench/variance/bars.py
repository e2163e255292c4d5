#!/usr/bin/env python3
"""Issue 46's precision bars over default runs: each run's noise line and how many of its CPU-bound comparisons
(gc, logging, serializer, platform) have a cost half-width within 5 and 8 %.

    python3 bench/variance/bars.py OUT [OUT...]

OUT is a default run's output folder; its console output, time-stamped, is read from OUT.log beside it when there is
one (for the noise line). The half-width is perflab's: the narrower of the interval's half-width in points and its
ratio reading, sqrt(high/low) - 1 (Statistics.HalfWidth).
"""
import argparse, json, os, re

CPU_BOUND = ("gc", "logging", "serializer", "platform")


def half_widths(results):
    for e in results["experiments"]:
        if e["name"] not in CPU_BOUND:
            continue
        for c in e["comparisons"]:
            if c["scenario"] != "all" or c["metric"] != e.get("decidingMetric"):
                continue
            points = (c["highPercent"] - c["lowPercent"]) / 2
            ratio = (((100 + c["highPercent"]) / (100 + c["lowPercent"])) ** 0.5 - 1) * 100
            yield e["name"], c["variant"], min(points, ratio)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="OUT", help="a default run's output folder")
    args = parser.parse_args()
    print("| run | started | noise line: RPS, CPU per request slot to slot | within ±5 % | within ±8 % | widest |")
    print("|---|---|---|---:|---:|---|")
    for out in args.runs:
        results = json.load(open(os.path.join(out, "results.json")))
        log = open(out.rstrip("/") + ".log").read() if os.path.exists(out.rstrip("/") + ".log") else ""
        noise = re.search(r"RPS varies ([0-9.]+) % slot to slot, CPU per request ([0-9.]+) %", log)
        hws = sorted(half_widths(results), key=lambda h: -h[2])
        widest = ", ".join(f"{e} {v} ±{h:.1f} %" for e, v, h in hws[:2])
        print(f"| {os.path.basename(out.rstrip('/'))} | {results.get('startedAt', '')[11:16]} | "
              f"{f'{noise.group(1)} %, {noise.group(2)} %' if noise else '(no log)'} | "
              f"{sum(h <= 5.05 for *_, h in hws)} of {len(hws)} | {sum(h <= 8.05 for *_, h in hws)} of {len(hws)} | {widest} |")


if __name__ == "__main__":
    main()
