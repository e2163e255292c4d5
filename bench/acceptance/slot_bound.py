"""A campaign's invocations judged again with the slots' bound under the interval (python3 slot_bound.py CAMPAIGN_OUT).

perflab's paired interval on CPU per request is never narrower than the slots inside the blocks allow (SlotSpread,
docs/methodology.md): the slot pairs' log ratios about their block's mean give a standard deviation s on
B·(S − 1) degrees of freedom, the mean of the blocks a standard error s·√(Σ 1/Sᵦ)/B, and a half-width t·SE. This
replays that rule on invocations measured before it existed: each invocation's recorded interval on its deciding
metric, widened to the slots' half-width where that is wider, judged with the floor perflab's rule gave at that moment
(floor_verdicts.py: the A/A invocations before it). It prints, per invocation, the blocks' own spread against what
the slots predict for it (s/√S), and the verdicts before and after."""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from floor_verdicts import count, decide, deciding_of, floor_of, stamp  # noqa: E402
from verdicts import num, t975  # noqa: E402
import glob  # noqa: E402
import json  # noqa: E402


def window_figure(window, metric):
    """A window's CPU per request (ms), at full speed for that metric: the reader perflab's Metric.OfWindow holds."""
    if window["requests"] <= 0:
        return None
    ms = (window["appCpuSeconds"] + (window.get("databaseCpuSeconds") or 0)) * 1000 / window["requests"]
    if metric == "cpu-per-request-full-speed":
        return ms / window["slowdown"] if window.get("slowdown") else None
    return ms


def slot_blocks(folder, metric):
    """Per block, the log ratios of the variant's slots against the baseline's (window k against window k)."""
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        experiment = json.load(f)["experiments"][0]
    ok = [r for r in experiment["runs"] if r["status"].lower() == "ok" and (r.get("cost") or {}).get("windows")]
    base = experiment["baseline"]
    variant = next(r["variant"] for r in ok if r["variant"] != base)
    blocks = []
    for block in sorted({r["repetition"] for r in ok}):
        a = [r for r in ok if r["repetition"] == block and r["variant"] == base]
        b = [r for r in ok if r["repetition"] == block and r["variant"] == variant]
        if a and b:
            logs = []
            for x, y in zip(a[0]["cost"]["windows"], b[0]["cost"]["windows"]):
                fx, fy = window_figure(x, metric), window_figure(y, metric)
                if fx and fy and fx > 0 and fy > 0:
                    logs.append(math.log(fy / fx))
            if logs:
                blocks.append(logs)
    return blocks


def slot_half_width(blocks):
    """SlotSpread.FromBlocks: the log-scale half-width and the pieces behind it; None below two degrees of freedom."""
    df = sum(len(b) - 1 for b in blocks)
    if len(blocks) < 2 or df < 2:
        return None
    squares = sum(sum((x - statistics.mean(b)) ** 2 for x in b) for b in blocks)
    sd = math.sqrt(squares / df)
    se = sd * math.sqrt(sum(1 / len(b) for b in blocks)) / len(blocks)
    return t975(df) * se, sd, df


def main(out):
    folders = sorted((f for f in glob.glob(f"{out}/aa-[0-9]*-*[0-9]") + glob.glob(f"{out}/slow*-[0-9]*-*[0-9]")
                      if os.path.exists(f"{f}/results.json")), key=stamp)
    recorded, ratios, widenings = [], [], []
    verdicts = {rule: {"A/A": [], "slowed": []} for rule in ("recorded interval", "with the slots' bound")}
    print("| invocation | blocks | change [95 % interval] | blocks' SD / slots' prediction | slots' half-width | with it "
          "| floor | verdict | with the slots' bound |")
    print("|---|---:|---|---:|---:|---|---:|---|---|")
    for folder in folders:
        c = deciding_of(folder)
        kind = "A/A" if os.path.basename(folder).startswith("aa-") else "slowed"
        blocks = slot_blocks(folder, c["metric"])
        bound = slot_half_width(blocks)
        change, low, high = (math.log1p(num(c[k]) / 100) for k in ("changePercent", "lowPercent", "highPercent"))
        half = max(change - low, high - change)
        observed = statistics.stdev([statistics.mean(b) for b in blocks]) if len(blocks) >= 2 else math.nan
        ratio = observed / (bound[1] / math.sqrt(statistics.mean(len(b) for b in blocks))) if bound else math.nan
        if math.isfinite(ratio):
            ratios.append(ratio)
        wide = max(half, bound[0]) if bound else half
        if wide > half:
            widenings.append((math.expm1(wide) - math.expm1(half)) * 100)
        widened = dict(c, lowPercent=math.expm1(change - wide) * 100, highPercent=math.expm1(change + wide) * 100)
        floor = floor_of(recorded)
        before, after = decide(c, floor), decide(widened, floor)
        verdicts["recorded interval"][kind].append(before)
        verdicts["with the slots' bound"][kind].append(after)
        shown = f"±{math.expm1(bound[0]) * 100:.1f} %" if bound else "none"
        print(f"| {os.path.basename(folder)} | {len(blocks)} | {num(c['changePercent']):+.1f} % [{num(c['lowPercent']):+.1f}, "
              f"{num(c['highPercent']):+.1f}] | {ratio:.2f} | {shown} | [{widened['lowPercent']:+.1f}, "
              f"{widened['highPercent']:+.1f}] | {floor:.2f} % | {before} | **{after}** |")
        if kind == "A/A":
            recorded.append((round(abs(num(c["changePercent"])), 3), None))
    print()
    print(f"blocks' SD over the slots' prediction (s/√S): median {statistics.median(ratios):.2f} over {len(ratios)}, "
          f"mean square {statistics.mean(r * r for r in ratios):.2f}")
    if widenings:
        print(f"intervals widened: {len(widenings)} of {len(folders)}, each side by {min(widenings):.1f}-{max(widenings):.1f} points")
    for rule, by_kind in verdicts.items():
        for kind, judged in by_kind.items():
            if judged:
                count(f"{kind}, {rule}:", judged)


if __name__ == "__main__":
    main(sys.argv[1])
