"""A campaign's invocations judged as a user's comparison is judged (python3 floor_verdicts.py CAMPAIGN_OUT): in the
order they ran, each with the floor perflab's rule gave at that moment (NoiseFloors: the 95th percentile of the |change|
the A/A invocations before it recorded for the deciding metric, type-7 interpolation, 5 % until 5 are recorded) and
the verdict rule (Statistics.Decide: better or worse when the interval excludes zero and the change exceeds the floor).
Beside it, an alternative measured and not adopted (docs/benchmarks/floor.md): the floor read at the invocation's own
stretch, each recorded change scaled by the ratio of the invocation's slot-to-slot spread to its own; and how an A/A
change follows that spread, alone and over the square root of the invocation's blocks.

An A/A invocation (`--aa`) judges itself against zero, since its job is to record the spread; here it is judged as the
comparison of two identical variants would be, against the floor its predecessors had set. A slowed invocation's
floor and verdict are replayed and printed beside the ones its results.json recorded, which agree when the perflab
that ran it applied this rule (the campaign's cache had no A/A record before its first invocation)."""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from verdicts import clopper_pearson, deciding, fmt, num, pooled  # noqa: E402

DEFAULT_FLOOR = 5.0
MARGIN = 5.0  # orders.yaml states none: the default margin of "equivalent"
MINIMUM_RUNS = 5


def deciding_of(folder):
    """The invocation's all-scenario comparison of its deciding metric."""
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        key, alls = deciding(json.load(f)["experiments"][0])
    return next(c for c in alls if c["metric"] == key)


def percentile(values, p):
    """Type 7 (numpy's and R's default), as NoiseFloors.PercentileOf."""
    s = sorted(values)
    pos = (len(s) - 1) * p
    below = math.floor(pos)
    above = min(below + 1, len(s) - 1)
    return s[below] + (pos - below) * (s[above] - s[below])


COST = ("cpu-per-request", "cpu-per-request-full-speed")


def stretch_of(folder, key):
    """The experiment's slot-to-slot spread (results.json machineNoise) of cost (cost metrics) or RPS (the others)."""
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        noise = json.load(f)["experiments"][0].get("machineNoise") or {}
    if noise.get("source") != "measured":
        return None
    value = noise.get("costCvPercent" if key in COST else "rpsCvPercent")
    return value if value is not None and math.isfinite(float(value)) and float(value) > 0 else None


def floor_of(recorded, stretch=None):
    """recorded: (|change|, its stretch or None) in the order recorded; perflab's rule (unscaled) when stretch is None."""
    if len(recorded) < MINIMUM_RUNS:
        return DEFAULT_FLOOR
    known = [(c, s) for c, s in recorded if s]
    values = [c * stretch / s for c, s in known] if stretch and len(known) >= MINIMUM_RUNS else [c for c, _ in recorded]
    return round(percentile(values, 0.95), 2)


def decide(c, floor):
    change, low, high = (num(c[k]) for k in ("changePercent", "lowPercent", "highPercent"))
    if (low > 0 or high < 0) and abs(change) > floor:
        return "worse" if change > 0 else "better"
    return "equivalent" if low >= -MARGIN and high <= MARGIN else "inconclusive"


def stamp(folder):
    return folder.rstrip("/").split("-")[-1]


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1  # ties share their mean rank
        i = j + 1
    return r


def spearman(xs, ys):
    """Rank correlation: does an A/A invocation's |change| grow with its stretch, as the scaled floor assumes?"""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


def count(label, verdicts):
    n = len(verdicts)
    for verdict in sorted(set(verdicts)):
        k = verdicts.count(verdict)
        low, high = clopper_pearson(k, n)
        print(f"{label} {verdict}: {k} of {n} (exact 95 % interval {low * 100:.1f}-{high * 100:.1f} %)")


def blocks_of(folder):
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        runs = json.load(f)["experiments"][0]["runs"]
    return len({r["repetition"] for r in runs if r["status"].lower() == "ok"})


def main(out):
    folders = sorted((f for f in glob.glob(f"{out}/aa-[0-9]*-*[0-9]") + glob.glob(f"{out}/slow*-[0-9]*-*[0-9]")
                      if os.path.exists(f"{f}/results.json")), key=stamp)
    recorded, blocks = [], []
    kinds = {rule: {"A/A": [], "slowed": []} for rule in ("perflab's floor", "the floor at its stretch")}
    logs = {"A/A": [], "slowed": []}
    print("| invocation | change [95 % interval] | A/A before it | floor | floor and verdict recorded by perflab | verdict "
          "| its stretch | floor at its stretch | verdict at its stretch |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|")
    for folder in folders:
        c = deciding_of(folder)
        aa = os.path.basename(folder).startswith("aa-")
        stretch = stretch_of(folder, c["metric"])
        floor, scaled = floor_of(recorded), floor_of(recorded, stretch)
        # An A/A invocation judged as two identical variants would be; a slowed one as perflab judged it, replayed (its
        # own results.json says the floor and verdict of the perflab that ran it, which may be an earlier rule's).
        verdict, alternative = decide(c, floor), decide(c, scaled)
        own = "(against zero)" if aa else f"{num(c['noiseFloorPercent']):.2f} %, {c['verdict']}"
        shown = f"{stretch:.1f} %" if stretch else "none"
        print(f"| {os.path.basename(folder)} | {fmt(c)} | {len(recorded)} | {floor:.2f} % | {own} | **{verdict}** "
              f"| {shown} | {scaled:.2f} % | {alternative} |")
        kind = "A/A" if aa else "slowed"
        kinds["perflab's floor"][kind].append(verdict)
        kinds["the floor at its stretch"][kind].append(alternative)
        logs[kind].append(math.log1p(num(c["changePercent"]) / 100))
        if aa:
            # As an A/A record keeps a change: three decimals.
            recorded.append((round(abs(num(c["changePercent"])), 3), round(stretch, 3) if stretch else None))
            blocks.append(blocks_of(folder))
    print()
    for rule, by_kind in kinds.items():
        for kind, verdicts in by_kind.items():
            if verdicts:
                count(f"{kind}, {rule}:", verdicts)
    known = [(c, st, b) for (c, st), b in zip(recorded, blocks) if st]
    if len(known) >= 3:
        changes = [c for c, _, _ in known]
        print(f"A/A |change| against its stretch over {len(known)}: Spearman {spearman(changes, [st for _, st, _ in known]):+.2f}; "
              f"against its stretch over the square root of its blocks: "
              f"{spearman(changes, [st / math.sqrt(b) for _, st, b in known]):+.2f}; its blocks against its stretch: "
              f"{spearman([b for _, _, b in known], [st for _, st, _ in known]):+.2f}; |change| {min(changes):.1f}-"
              f"{max(changes):.1f} %, stretch {min(st for _, st, _ in known):.1f}-{max(st for _, st, _ in known):.1f} %, "
              f"blocks {min(b for _, _, b in known)}-{max(b for _, _, b in known)}")
    for kind in logs:
        if len(logs[kind]) >= 2:
            mean, half = pooled(logs[kind])
            print(f"{kind} pooled over {len(logs[kind])}: {math.expm1(mean) * 100:+.1f} % "
                  f"[{math.expm1(mean - half) * 100:+.1f}, {math.expm1(mean + half) * 100:+.1f}]")


if __name__ == "__main__":
    main(sys.argv[1])
