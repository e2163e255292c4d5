#!/usr/bin/env python3
"""Where an A/A's difference lives: several identical A/A experiments (the same file under different names) in each of
several invocations (`perflab run a b c --aa --invocations N`). For each (invocation, experiment), the mean of its blocks'
paired log ratios of CPU per request (the kernel's, then at the cores' full speed) over its standard error from the
pooled within-block slot-pair SD. If what lasts an invocation belongs to the perflab process (or anything else one
invocation shares), the experiments of one invocation agree with each other more than the invocations do: the
within-invocation chi-square sits near its degrees of freedom while the invocations' means do not. If it belongs to
each experiment's own start, or to the machine over minutes, the experiments of one invocation differ as much.
Each block's own part shows as the blocks' SD above what the slots predict. Usage: bench/variance/aa_levels.py RESULTS.json..."""
import json, math, statistics as st, sys

from block_spread import block_ratios, slot_costs


def slots(run, full):
    costs = slot_costs(run)
    return [c / w["slowdown"] for c, w in zip(costs, run["cost"]["windows"])] if full else costs


def cells(paths, full):
    """(invocation, experiment) -> (mean log ratio, slot pairs, block means), and the pooled within-block slot-pair SD."""
    out, squares, dof = {}, 0.0, 0
    for k, path in enumerate(paths):
        for e in json.load(open(path))["experiments"]:
            other = next(v for v in e["variants"] if v != e["baseline"])
            ratios = block_ratios(e, other, lambda r: slots(r, full))
            squares += sum(st.variance(r) * (len(r) - 1) for r in ratios)
            dof += sum(len(r) - 1 for r in ratios)
            means = [st.mean(r) for r in ratios]
            out[(k, e["name"])] = (st.mean(means), sum(len(r) for r in ratios), means)
    return out, math.sqrt(squares / dof), dof


def report(paths, full):
    table, pooled, dof = cells(paths, full)
    print(f"== CPU per request{' at full speed' if full else ' (kernel)'}: pooled within-block slot-pair SD {100 * pooled:.2f} % "
          f"({dof} degrees of freedom)")
    z = {}
    for (k, name), (mean, n, means) in sorted(table.items()):
        z[(k, name)] = mean / (pooled / math.sqrt(n))
        predicted = pooled / math.sqrt(n / len(means))
        print(f"  invocation {k + 1} {name}: {len(means)} blocks, mean {100 * mean:+.2f} %, blocks' SD {100 * st.stdev(means):.2f} % "
              f"(slots predict {100 * predicted:.2f} %), mean / standard error {z[(k, name)]:+.2f}")
    invocations = sorted({k for k, _ in z})
    of = {k: [v for (i, _), v in z.items() if i == k] for k in invocations}
    within = sum((v - st.mean(of[k])) ** 2 for k in invocations for v in of[k])
    within_df = len(z) - len(invocations)
    between = sum(len(of[k]) * st.mean(of[k]) ** 2 for k in invocations)
    print(f"  experiments within an invocation: chi-square {within:.1f} on {within_df} degrees of freedom; "
          f"invocations' means against zero: chi-square {between:.1f} on {len(invocations)}; all against zero: "
          f"{sum(v * v for v in z.values()):.1f} on {len(z)} (each near its degrees of freedom when nothing lasts)")


if __name__ == "__main__":
    for full in (False, True):
        report(sys.argv[1:], full)
