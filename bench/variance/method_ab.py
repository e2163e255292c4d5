"""Fresh-process against in-process blocks of one comparison (issue 46, part 3), from one results.json per arm
(python3 method_ab.py A/results.json B/results.json ...): per arm its method, complete blocks, failed runs, wall time,
measured time and duty cycle, then per compared variant the deciding metric's change with its 95 % interval and
half-width, and each variant's CPU per request (all its runs' windows together, ms, the kernel's and at full speed)."""
import json
import sys


def complete_blocks(e):
    by_block = {}
    for r in e["runs"]:
        by_block.setdefault(r["repetition"], []).append(r["status"].lower() == "ok")
    return sum(all(oks) for oks in by_block.values()), len(by_block)


def cost(e, variant):
    windows = [w for r in e["runs"] if r["variant"] == variant and r["status"].lower() == "ok"
               for w in (r.get("cost") or {}).get("windows", [])]
    requests = sum(w["requests"] for w in windows)
    if requests == 0:
        return "-"
    cpu = sum(w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0) for w in windows)
    full = sum((w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0)) / w["slowdown"] for w in windows
               if w.get("slowdown")) if all(w.get("slowdown") for w in windows) else None
    text = f"{cpu * 1000 / requests:.2f}"
    return text + (f" ({full * 1000 / requests:.2f})" if full is not None else "")


def main(paths):
    print("| arm | method | blocks complete/run | failed runs | wall | measured | duty cycle | variant | change [95 % CI] "
          "| half-width | CPU/req ms (full speed) |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---:|---|")
    for path in paths:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
        for e in results["experiments"]:
            done, ran = complete_blocks(e)
            failed = sum(r["status"].lower() != "ok" for r in e["runs"])
            t = e.get("time") or {}
            wall, meas = t.get("wallSeconds", 0), t.get("measuredSeconds", 0)
            duty = f"{100 * meas / wall:.1f} %" if wall else "-"
            head = f"| {path} | {e.get('method', 'fresh-process')} | {done}/{ran} | {failed} | {wall:.0f} s | {meas:.0f} s | {duty}"
            print(f"{head} | {e['baseline']} (baseline) | | | {cost(e, e['baseline'])} |")
            for c in e["comparisons"]:
                if c["metric"] != e["decidingMetric"] or c["scenario"] != "all":
                    continue
                lo, hi = c.get("lowPercent"), c.get("highPercent")
                ci = f"{c['changePercent']:+.1f} % [{lo:+.1f}, {hi:+.1f}]" if lo is not None else f"{c['changePercent']:+.1f} % (none)"
                half = f"±{(hi - lo) / 2:.1f} %" if lo is not None else "-"
                print(f"| | | | | | | | {c['variant']} | {ci} | {half} | {cost(e, c['variant'])} |")


if __name__ == "__main__":
    main(sys.argv[1:])
