"""A campaign's invocations judged on each cost metric (python3 metric_replay.py CAMPAIGN_OUT): the kernel's CPU per
request (`cpu-per-request`) and the same at the cores' full speed (`cpu-per-request-full-speed`, what `decide: cost`
compares when the cores were sampled). Both are in every invocation's results.json, measured on the same slots; for
each, in the order the invocations ran: its all-scenario interval, the floor perflab's rule gives from the A/A
invocations before it on that metric (floor_verdicts.py), the verdict, and over the campaign the verdicts counted,
the median half-width and the slot pairs' SD within blocks (pooled). Last, a rule written down after the campaign's
first two invocations had been read: each invocation decided on whichever of the two its own slot pairs spread less
(pooled SD within blocks), judged on that metric's interval and floor. The adaptive stop read the full-speed metric, so the blocks are the ones it asked
for; the kernel's figure rides along."""
import glob
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from floor_verdicts import count, decide, floor_of, stamp  # noqa: E402
from slot_bound import slot_blocks  # noqa: E402
from verdicts import num  # noqa: E402
import json  # noqa: E402

METRICS = ("cpu-per-request", "cpu-per-request-full-speed")


def comparison(folder, metric):
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        experiment = json.load(f)["experiments"][0]
    return next((c for c in experiment["comparisons"] if c["scenario"] == "all" and c["metric"] == metric), None)


def pair_squares(folder, metric):
    """The slot pairs' squared deviations about their block's mean, and their degrees of freedom."""
    blocks = slot_blocks(folder, metric)
    squares = sum(sum((x - statistics.mean(b)) ** 2 for x in b) for b in blocks if len(b) > 1)
    return squares, sum(len(b) - 1 for b in blocks)


def main(out):
    folders = sorted((f for f in glob.glob(f"{out}/aa-[0-9]*-*[0-9]") + glob.glob(f"{out}/slow*-[0-9]*-*[0-9]")
                      if os.path.exists(f"{f}/results.json")), key=stamp)
    recorded = {m: [] for m in METRICS}
    verdicts = {m: {"A/A": [], "slowed": []} for m in METRICS}
    halves = {m: {"A/A": [], "slowed": []} for m in METRICS}
    squares = {m: [0.0, 0] for m in METRICS}
    chosen = {"A/A": [], "slowed": []}
    picks = []
    print("| invocation | " + " | ".join(f"{m} [95 % interval] | floor | verdict" for m in METRICS) + " |")
    print("|---|" + "---|---:|---|" * len(METRICS))
    for folder in folders:
        kind = "A/A" if os.path.basename(folder).startswith("aa-") else "slowed"
        cells, own = [], {}
        for m in METRICS:
            c = comparison(folder, m)
            if c is None:
                cells.append("- | - | -")
                continue
            change, low, high = (num(c[k]) for k in ("changePercent", "lowPercent", "highPercent"))
            floor = floor_of(recorded[m])
            verdict = decide(c, floor)
            verdicts[m][kind].append(verdict)
            halves[m][kind].append(max(high - change, change - low))
            s, df = pair_squares(folder, m)
            squares[m][0] += s
            squares[m][1] += df
            cells.append(f"{change:+.1f} % [{low:+.1f}, {high:+.1f}] | {floor:.2f} % | {verdict}")
            own[m] = (s / df if df else math.inf, verdict, max(high - change, change - low))
            if kind == "A/A":
                recorded[m].append((round(abs(change), 3), None))
        if own:
            pick = min(own, key=lambda m: own[m][0])
            picks.append(pick)
            chosen[kind].append((own[pick][1], own[pick][2]))
        print(f"| {os.path.basename(folder)} | " + " | ".join(cells) + " |")
    print()
    for m in METRICS:
        s, df = squares[m]
        sd = f"{100 * math.sqrt(s / df):.1f} % on {df} df" if df else "none"
        for kind in ("A/A", "slowed"):
            if halves[m][kind]:
                print(f"{m}, {kind}: median half-width ±{statistics.median(halves[m][kind]):.1f} % "
                      f"({min(halves[m][kind]):.1f}-{max(halves[m][kind]):.1f})")
                count(f"{m}, {kind}:", verdicts[m][kind])
        print(f"{m}: slot pairs' SD within blocks, pooled over the campaign: {sd}; the less spread in {picks.count(m)} "
              f"of {len(picks)} invocations")
    for kind, judged in chosen.items():
        if judged:
            print(f"the less spread of the two, {kind}: median half-width ±{statistics.median(h for _, h in judged):.1f} %")
            count(f"the less spread of the two, {kind}:", [v for v, _ in judged])


if __name__ == "__main__":
    main(sys.argv[1])
