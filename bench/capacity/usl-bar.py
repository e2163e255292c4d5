#!/usr/bin/env python3
"""The bar of issue 48 on a users sweep's results.json: per variant, σ, κ and N* each present with a finite 95 %
interval around it (low <= value <= high), as `perflab run sync-async-scaling` writes them (sweeps[].scalability[]).
With κ held at zero the law has no peak: N* is then absent and the bar takes the ceiling λ/σ (peakRps) in its place,
saying so. Also the run's time (startedAt to finishedAt: the build and a first PostgreSQL start come before it) against
MAX_MINUTES (default 10, the issue's bound for the quick profile). Prints one line per variant and the time; exits 1
when a figure or interval is missing or the run took longer, 2 when the file has no sweep.

Usage: [MAX_MINUTES=10] bench/capacity/usl-bar.py results.json [experiment]   (default experiment: sync-async-scaling)
"""
import json
import math
import os
import re
import sys
from datetime import datetime, timedelta


def interval(p):
    """'0.051 [0, 0.131]' for a {value, low, high}; None when any is missing, not finite or out of order."""
    if not isinstance(p, dict):
        return None
    v, lo, hi = (p.get(k) for k in ("value", "low", "high"))
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (v, lo, hi)) or not lo <= v <= hi:
        return None
    return f"{v:.4g} [{lo:.4g}, {hi:.4g}]"


def stamp(text):
    """An ISO time of .NET's (7 fractional digits, which Python's older parsers refuse) as a datetime."""
    m = re.match(r"([^.+Z]+)(?:\.(\d+))?", text)
    return datetime.fromisoformat(m.group(1)) + timedelta(microseconds=int((m.group(2) or "0")[:6].ljust(6, "0")))


def main():
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "sync-async-scaling"
    results = json.load(open(path))
    sweeps = [s for s in results.get("sweeps") or [] if s.get("experiment") == name]
    if not sweeps or not sweeps[0].get("scalability"):
        print(f"{path}: no users sweep of {name} with a scalability fit (sweeps[].scalability)")
        return 2
    failed = False
    for fit in sweeps[0]["scalability"]:
        figures = {k: interval(fit.get(k)) for k in ("sigma", "kappa", "peakUsers", "peakRps")}
        peak = figures["peakUsers"]
        no_peak = peak is None and fit.get("peakUsers") is None and (fit.get("kappa") or {}).get("value") == 0
        if no_peak:
            peak = "none (κ = 0: no peak; ceiling λ/σ " + (figures["peakRps"] or "missing") + " RPS)"
        ok = figures["sigma"] and figures["kappa"] and (figures["peakUsers"] or (no_peak and figures["peakRps"]))
        failed |= not ok
        print(f"{fit.get('variant')}: σ {figures['sigma'] or 'MISSING'}, κ {figures['kappa'] or 'MISSING'}, "
              f"N* {peak or 'MISSING'}, peak {figures['peakRps'] or 'MISSING'} RPS; {fit.get('blocks')} blocks, "
              f"intervals from {fit.get('intervalsFrom')}: {'ok' if ok else 'FAILED'}")
    started, finished = (stamp(results[k]) for k in ("startedAt", "finishedAt"))
    minutes, limit = (finished - started).total_seconds() / 60, float(os.environ.get("MAX_MINUTES", "10"))
    print(f"run: {results['startedAt']} to {results['finishedAt']}, {minutes:.1f} min (bar: at most {limit:g}): "
          f"{'ok' if minutes <= limit else 'FAILED'}")
    return 1 if failed or minutes > limit else 0


if __name__ == "__main__":
    sys.exit(main())
