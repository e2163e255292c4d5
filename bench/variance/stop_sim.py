#!/usr/bin/env python3
"""How often the adaptive stop calls a difference that is not there, by simulation against known inputs.
Each block's paired log ratio is drawn normal with a known SD (sigma) and mean (delta, 0 for an A/A). The runner's rule
(StoppingRule with Statistics.ComparePaired): from MIN blocks on, stop once the 95 % t interval's half-width is at most
TARGET, or at MAX blocks; the verdict calls a difference when that interval excludes zero (no noise floor here).
Printed per sigma, for each rule: the share of A/A runs called either way, the share of runs with a true +5 % change
called worse, and the mean blocks run. Rules:
  as built   the runner's rule: minimum 3, target 5 %, maximum 20
  min 5      the same from 5 blocks
  planned    the blocks planned once from the first 3 (Stein-like: 3 x (half-width / target)^2), none added after
  97.5 %     as built, but the verdict at the 97.5 % interval
Usage: bench/variance/stop_sim.py [RUNS per cell, default 6000]"""
import math, random, statistics as st, sys

# Student's t quantiles for 1..20 degrees of freedom: 0.975 (the 95 % interval) and 0.9875 (the 97.5 % interval).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
T975 = [25.452, 6.205, 4.177, 3.495, 3.163, 2.969, 2.841, 2.752, 2.685, 2.634,
        2.593, 2.560, 2.533, 2.510, 2.490, 2.473, 2.458, 2.445, 2.433, 2.423]
TARGET, MAX = 5.0, 20


def half_width(x, t=T95):
    return t[len(x) - 2] * st.stdev(x) / math.sqrt(len(x))


def adaptive(d, lo):
    n = next((n for n in range(lo, MAX) if half_width(d[:n]) <= TARGET), MAX)
    return d[:n]


RULES = {
    "as built": lambda d: (x := adaptive(d, 3), half_width(x)),
    "min 5": lambda d: (x := adaptive(d, 5), half_width(x)),
    "planned": lambda d: (x := d[:min(MAX, max(3, math.ceil(3 * (half_width(d[:3]) / TARGET) ** 2)))], half_width(x)),
    "97.5 %": lambda d: (x := adaptive(d, 3), half_width(x, T975)),
}


def cell(rule, sigma, delta, runs, rng):
    called = blocks = 0
    for _ in range(runs):
        x, h = rule([rng.gauss(delta, sigma) for _ in range(MAX)])
        mean = sum(x) / len(x)
        called += abs(mean) > h and (delta == 0 or mean > 0)
        blocks += len(x)
    return called / runs * 100, blocks / runs


def main(runs):
    print(f"{runs} simulated runs a cell; each rule: A/A called / a true +5 % called worse / mean blocks")
    print("| block SD | " + " | ".join(RULES) + " |\n|---|" + "---|" * len(RULES))
    for sigma in (3, 5, 8, 11):
        cells = []
        for rule in RULES.values():
            aa, blocks = cell(rule, sigma, 0, runs, random.Random(sigma))
            power, _ = cell(rule, sigma, 5, runs, random.Random(100 + sigma))
            cells.append(f"{aa:.1f} % / {power:.0f} % / {blocks:.1f}")
        print(f"| {sigma} % | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6000)
