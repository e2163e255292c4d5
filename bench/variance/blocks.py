#!/usr/bin/env python3
"""Each block of an experiment, from results.json files: its length (from its first run's start to the next block's, the
last to the run's end; meaningful when the experiment ran alone, since a run of several takes their first blocks in
turns), its runs' warm-ups and how many settled before the cap, and each variant's app CPU per request
(the median over its slots, µs) minus the baseline's in that block. The figures docs/benchmarks/framework.md gives for framework's
blocks and warm-ups and for the slowed variant's added app CPU.
Usage: bench/variance/blocks.py RESULTS.json..."""
import json, statistics as st, sys
from datetime import datetime


def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def app_us(run):
    windows = (run.get("cost") or {}).get("windows") or []
    return st.median(w["appCpuSeconds"] * 1e6 / w["requests"] for w in windows) if windows else None


def main(paths):
    for path in paths:
        results = json.load(open(path))
        for e in results["experiments"]:
            blocks = {}
            for run in e["runs"]:
                blocks.setdefault(run["repetition"], []).append(run)
            starts = [min(at(r["startedAt"]) for r in blocks[b]) for b in sorted(blocks)]
            ends = starts[1:] + [at(results["finishedAt"])]
            warmups = [r["warmupSeconds"] for r in e["runs"] if r.get("warmupSeconds") is not None]
            print(f"{path} {e['name']}: {len(blocks)} blocks of {', '.join(f'{(b - a).total_seconds():.0f}' for a, b in zip(starts, ends))} s; "
                  f"warm-ups {min(warmups):.0f}-{max(warmups):.0f} s, {sum(1 for r in e['runs'] if r.get('settled'))} of "
                  f"{len(e['runs'])} settled")
            for b in sorted(blocks):
                base = next((app_us(r) for r in blocks[b] if r["variant"] == e["baseline"]), None)
                diffs = [f"{r['variant']} {app_us(r) - base:+.0f}" for r in blocks[b]
                         if r["variant"] != e["baseline"] and base is not None and app_us(r) is not None]
                if diffs:
                    print(f"  block {b}: app CPU per request minus {e['baseline']}'s: {', '.join(diffs)} µs")


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit(__doc__))
