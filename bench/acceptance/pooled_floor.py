"""What the slowed invocations of a campaign would have been called had the noise floor come from all the A/A
invocations before each of them, pooled, instead of the last one alone (python3 pooled_floor.py CAMPAIGN_OUT).

perflab records as the floor the farther end of the last A/A invocation's interval (NoiseFloors.Record): that end
carries the A/A's own random error, which the slowed invocation's interval already carries for itself. Pooled as
`--invocations` pools (the mean of the log-ratios; a Student t interval across them, never narrower than the root of
their summed squared half-widths over N), the A/A invocations estimate what the method itself shifts. With one A/A
before it the pooled floor is that A/A's own. The verdict rule is perflab's (Statistics.Decide): better or worse when
the interval excludes zero and the change exceeds the floor. A recomputation on measured results, not a measurement;
the rule is not built."""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from verdicts import deciding, fmt, num, pooled  # noqa: E402


def deciding_of(folder):
    """The invocation's all-scenario comparison of its deciding metric."""
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        key, alls = deciding(json.load(f)["experiments"][0])
    return next(c for c in alls if c["metric"] == key)


def log_ratio(percent):
    return math.log1p(num(percent) / 100)


def pooled_floor(aas):
    logs = [log_ratio(c["changePercent"]) for c in aas]
    halves = [(log_ratio(c["highPercent"]) - log_ratio(c["lowPercent"])) / 2 for c in aas]
    mean, spread = pooled(logs)
    half = max(math.sqrt(sum(h * h for h in halves)) / len(logs), spread)
    return max(abs(math.expm1(mean - half)), abs(math.expm1(mean + half))) * 100


def decide(c, floor):
    change, low, high = (num(c[k]) for k in ("changePercent", "lowPercent", "highPercent"))
    if (low > 0 or high < 0) and abs(change) > floor:
        return "worse" if change > 0 else "better"
    return "equivalent" if low >= -floor and high <= floor else "inconclusive"


def stamp(folder):
    return folder.rstrip("/").split("-")[-1]


if __name__ == "__main__":
    out = sys.argv[1]
    aas = sorted((f for f in glob.glob(f"{out}/aa-[0-9]*-*[0-9]") if os.path.exists(f"{f}/results.json")), key=stamp)
    slows = sorted((f for f in glob.glob(f"{out}/slow*-[0-9]*-*[0-9]") if os.path.exists(f"{f}/results.json")), key=stamp)
    print("| slowed invocation | change [95 % interval] | floor as recorded | its verdict | A/A before it | pooled floor | verdict |")
    print("|---|---|---:|---|---:|---:|---|")
    called = 0
    for s in slows:
        c = deciding_of(s)
        before = [deciding_of(a) for a in aas if stamp(a) < stamp(s)]
        floor = pooled_floor(before)
        verdict = decide(c, floor)
        called += verdict == "worse"
        print(f"| {s.split('/')[-1]} | {fmt(c)} | {num(c['noiseFloorPercent']):.1f} % | {c['verdict']} | {len(before)} "
              f"| {floor:.1f} % | **{verdict}** |")
    print(f"\nworse with the pooled floor: {called} of {len(slows)}")
