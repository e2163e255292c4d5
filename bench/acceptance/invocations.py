#!/usr/bin/env python3
"""What lasts an invocation, from A/A results (results.json files, one experiment with two identical variants each):
per invocation the blocks' paired log ratios of cost per request at the cores' full speed (the kernel's figure where a
run has none), their mean, standard deviation and count; the block SD pooled over all invocations; each invocation's
mean over its standard error, once with its own SD (what its interval used) and once with the pooled one; the
standard deviation of the latter over the invocations (1.0 when the blocks' spread explains how far the invocations'
means fall apart), and the invocation-level SD that would explain the rest (method of moments: the mean of each
mean's square less its blocks' share, pooled SD^2 / n); and the blocks' mean by which variant ran first in them.
Usage: bench/acceptance/invocations.py RESULTS.json..."""
import json, math, statistics as st, sys


def cost(run):
    c = run.get("cost") or {}
    return c.get("fullSpeedMsPerRequest") or c.get("msPerRequest")


def blocks_of(path):
    """Per block: the other variant's log ratio to the baseline (%), and whether the baseline ran first."""
    e = json.load(open(path))["experiments"][0]
    base = e["baseline"]
    blocks = {}
    for r in e["runs"]:
        if r["status"].lower() == "ok" and cost(r):
            blocks.setdefault(r["repetition"], {})[r["variant"]] = r
    pairs = [(b[base], next(v for k, v in b.items() if k != base)) for b in blocks.values() if len(b) == 2 and base in b]
    return [(math.log(cost(o) / cost(a)) * 100, a["order"] < o["order"]) for a, o in pairs]


def main(paths):
    blocks = {p: blocks_of(p) for p in paths}
    rows = [(p, [x for x, _ in b]) for p, b in blocks.items() if len(b) > 1]
    if not rows:
        sys.exit("no A/A results with two blocks or more")
    df = sum(len(l) - 1 for _, l in rows)
    pooled = math.sqrt(sum((len(l) - 1) * st.variance(l) for _, l in rows) / df)
    print(f"{len(rows)} invocations; block SD pooled over them {pooled:.2f} % ({df} degrees of freedom)")
    zs, excess = [], []
    for p, l in rows:
        n, m, sd = len(l), st.mean(l), st.stdev(l)
        z = m / (pooled / math.sqrt(n))
        zs.append(z)
        excess.append(m * m - pooled * pooled / n)
        print(f"  {p}: {n} blocks, mean {m:+.2f} %, SD {sd:.2f} %, mean/SE with its own SD {m / (sd / math.sqrt(n)):+.2f}, with the pooled SD {z:+.2f}")
    if len(zs) > 2:
        print(f"SD of mean/SE (pooled) over the invocations: {st.stdev(zs):.2f} (1.0 if the blocks' spread explains the invocations')")
        print(f"invocation-level SD of the difference between identical variants: {math.sqrt(max(0.0, st.mean(excess))):.2f} %")
    for first in (True, False):
        xs = [x for b in blocks.values() for x, f in b if f == first]
        if len(xs) > 1:
            print(f"blocks with the baseline {'first' if first else 'second'}: {len(xs)}, mean {st.mean(xs):+.2f} %, SD {st.stdev(xs):.2f} %")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
