#!/usr/bin/env python3
"""Short windows against 2 s slots, from results.json files (issue 46 part 2): per experiment, the slot pairs' SD of
CPU per request at full speed (window k of the baseline against window k of each variant, in each block; the SD of
their log ratios around each comparison's own mean, as a percent), over all pairs and over the pairs the rule of
docs/cost.md "Short windows" keeps (slowdowns within 10 % of each other; applied to windows under 1 s only, as
perflab does), the pairs kept, the cost comparisons' 95 % half-widths, the wall time and duty cycle.
Usage: bench/variance/pair_sd.py RESULTS.json..."""
import json, math, statistics as st, sys

SPEED_MATCH = 1.10


def cost(w):
    cpu = w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0)
    return cpu * 1000 / w["requests"] / w["slowdown"] if w["requests"] > 0 and w.get("slowdown") else None


def matched(x, y):
    if x["requests"] <= 0 or y["requests"] <= 0 or not x.get("slowdown") or not y.get("slowdown"):
        return False
    r = x["slowdown"] / y["slowdown"]
    return max(r, 1 / r) <= SPEED_MATCH


def pooled_sd(groups):
    squares = sum(sum((v - st.mean(g)) ** 2 for v in g) for g in groups if len(g) > 1)
    df = sum(len(g) - 1 for g in groups if len(g) > 1)
    return (math.exp(math.sqrt(squares / df)) - 1) * 100 if df > 0 else float("nan")


def experiment_figures(e):
    baseline = e["baseline"] if "baseline" in e else e["runs"][0]["variant"]
    ok = [r for r in e["runs"] if r["status"].lower() == "ok" and r.get("cost")]
    all_pairs, kept_pairs, count = {}, {}, [0, 0]
    for rep in sorted({r["repetition"] for r in ok}):
        block = [r for r in ok if r["repetition"] == rep]
        base = next((r for r in block if r["variant"] == baseline), None)
        if base is None:
            continue
        for other in (r for r in block if r["variant"] != baseline):
            for x, y in zip(base["cost"]["windows"], other["cost"]["windows"]):
                cx, cy = cost(x), cost(y)
                if cx is None or cy is None:
                    continue
                log = math.log(cy / cx)
                all_pairs.setdefault(other["variant"], []).append(log)
                count[0] += 1
                short = x["seconds"] < 1 and y["seconds"] < 1
                if not short or matched(x, y):
                    kept_pairs.setdefault(other["variant"], []).append(log)
                    count[1] += 1
    widths = [f"{c['variant']} {(c['highPercent'] - c['lowPercent']) / 2:.1f}"
              for c in e.get("comparisons", []) if c["metric"] == "cpu-per-request-full-speed" and c["scenario"] == "all"
              and c.get("lowPercent") is not None]
    time = e.get("time") or {}
    blocks = len({r["repetition"] for r in ok})
    return (e["name"], blocks, count, pooled_sd(list(all_pairs.values())), pooled_sd(list(kept_pairs.values())), widths,
            time.get("wallSeconds", float("nan")), time.get("measuredSeconds", float("nan")))


def main(paths):
    print("| file | experiment | blocks | pairs kept / all | pair SD, all | pair SD, kept | cost ± (full speed, %) | wall | duty |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|")
    for path in paths:
        for e in json.load(open(path, encoding="utf-8"))["experiments"]:
            name, blocks, (n, k), sd_all, sd_kept, widths, wall, measured = experiment_figures(e)
            print(f"| {path} | {name} | {blocks} | {k} / {n} | {sd_all:.1f} % | {sd_kept:.1f} % | {', '.join(widths)} | "
                  f"{wall:.0f} s | {100 * measured / wall:.1f} % |")


if __name__ == "__main__":
    main(sys.argv[1:])
