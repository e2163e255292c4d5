"""Counts the verdicts of result folders (python3 verdicts.py FOLDER...): per folder the deciding comparison (the
all-scenario comparison of the metric that decided, results.json's decidingMetric: cost per request for orders.yaml,
at the cores' full speed when sampled, RPS where no cost was measured) with its interval and verdict, the RPS change
beside it, then how many called a difference, with an exact (Clopper-Pearson) 95 % interval, and the plain variant's
CPU per request (to size EXTRA as 5 % of it)."""
import json
import math
import sys


def binom_cdf(k, n, p):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def bisect(f, target):
    """The p in [0, 1] where the increasing function f crosses target."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return (lo + hi) / 2


def clopper_pearson(k, n):
    # Lower: P(X >= k | p) = 2.5 %; upper: P(X <= k | p) = 2.5 % (both tails of the exact binomial).
    low = 0.0 if k == 0 else bisect(lambda p: 1 - binom_cdf(k - 1, n, p), 0.025)
    high = 1.0 if k == n else bisect(lambda p: -binom_cdf(k, n, p), -0.025)
    return low, high


def t975(df):
    """Two-sided 95 % Student t quantile (table; enough for the counts these scripts see)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
             11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 19: 2.093, 29: 2.045}
    return table.get(df) or table[min((k for k in table if k >= df), default=29)]


def pooled(logs):
    """The invocations' log-ratios pooled: their mean and its 95 % Student t half-width across them (0 for one)."""
    n = len(logs)
    mean = sum(logs) / n
    if n < 2:
        return mean, 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    return mean, t975(n - 1) * sd / math.sqrt(n)


def deciding(experiment):
    """The all-scenario comparisons of the deciding metric, as perflab wrote it (decidingMetric): cost at the cores'
    full speed when that was compared, RPS when the metric asked was not compared."""
    alls = [c for c in experiment["comparisons"] if c["scenario"] == "all"]
    if "decidingMetric" not in experiment:
        sys.exit(f"{experiment['name']}: results.json has no decidingMetric (written before perflab recorded it); rerun it")
    return experiment["decidingMetric"], alls


def num(value):
    """A figure of results.json as a float: null (schema 1: the string "NaN") when it could not be computed is NaN."""
    return math.nan if value is None else float(value)


def fmt(c):
    return f"{num(c['changePercent']):+.1f} % [{num(c['lowPercent']):+.1f}, {num(c['highPercent']):+.1f}]" if c else "-"


def main(folders):
    rows, verdicts, logs, costs = [], {}, [], []
    for folder in folders:
        try:
            with open(f"{folder}/results.json", encoding="utf-8") as f:
                results = json.load(f)
        except FileNotFoundError:
            print(f"{folder}: no results.json (the invocation failed; see {folder}.log)", file=sys.stderr)
            continue
        for e in results["experiments"]:
            costs += [r["cost"]["msPerRequest"] for r in e["runs"]
                      if r.get("cost") and r["variant"] == e["baseline"] and r["status"].lower() == "ok"]
            key, alls = deciding(e)
            for c in (c for c in alls if c["metric"] == key):
                rps = next((r for r in alls if r["metric"] == "rps" and r["variant"] == c["variant"]), None)
                rows.append(f"| {folder.rstrip('/').split('/')[-1]} | {e['blocks']} | {key} | {fmt(c)} | {c.get('method')} "
                            f"| {num(c['noiseFloorPercent']):.1f} % | **{c['verdict']}** | {fmt(rps)} {rps['verdict'] if rps else ''} |")
                verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
                if math.isfinite(num(c["changePercent"])):
                    logs.append(math.log1p(num(c["changePercent"]) / 100))
    print("| run | blocks | deciding metric | its all-scenario change [95 % interval] | method | floor | verdict | RPS change beside it |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if costs:
        costs.sort()
        print(f"\nbaseline's CPU per request over {len(costs)} runs: median {costs[len(costs) // 2]:.3f} ms "
              f"(range {costs[0]:.3f}-{costs[-1]:.3f}); 5 % of the median: {costs[len(costs) // 2] * 50:.0f} µs")
    n = sum(verdicts.values())
    for verdict, k in sorted(verdicts.items()):
        low, high = clopper_pearson(k, n)
        print(f"\n{verdict}: {k} of {n} ({k / n * 100:.0f} %, exact 95 % interval {low * 100:.1f}-{high * 100:.1f} %)")

    # The effect as measured over all the invocations together (each one's estimate is one observation): what a
    # "known" slowdown really was on this machine, whatever the configured cost.
    if len(logs) >= 2:
        mean, half = pooled(logs)
        pct = lambda x: (math.exp(x) - 1) * 100
        print(f"\npooled over the {len(logs)} invocations: {pct(mean):+.1f} % [{pct(mean - half):+.1f}, {pct(mean + half):+.1f}]"
              f" (mean of the log-ratios, Student t across invocations)")


if __name__ == "__main__":
    main(sys.argv[1:])
