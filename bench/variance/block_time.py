"""Where each alternating experiment's block time goes, from the progress of a run whose every line was time-stamped
as it was printed (HH:MM:SS, then the line):
  dotnet BIN/perflab.dll run -o OUT 2>&1 | while IFS= read -r l; do printf '%s %s\n' "$(date +%H:%M:%S)" "$l"; done > LOG
  python3 bench/variance/block_time.py LOG
A block lasts from its first "[n/N] experiment:" line to its "block k done" line: its SUTs' start, feeds and warm-ups
(up to "warmed up"), its slots (up to "slots taken in", with the seconds measured in them), block 1's traces ("tracing"
to the last "traced", plus that trace's own second) and what is left (stopping the SUTs). One-second resolution; a run
that passes midnight counts on into the next day."""
import re
import sys
from datetime import datetime, timedelta


def stamps():
    """HH:MM:SS to a time that keeps growing past midnight (a stamp earlier than the one before is the next day's)."""
    state = {"last": None, "days": 0}

    def stamp(text):
        at = datetime.strptime(text, "%H:%M:%S")
        if state["last"] is not None and at < state["last"]:
            state["days"] += 1
        state["last"] = at
        return at + timedelta(days=state["days"])
    return stamp


def blocks(path):
    """Each finished alternating block: (experiment, its marks)."""
    current, last, stamp = {}, None, stamps()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"(\d\d:\d\d:\d\d) (.*)", line.rstrip("\n"))
        if not m:
            continue
        at, text = stamp(m.group(1)), m.group(2).strip()
        starting = re.match(r"\[\d+/\d+\] ([\w-]+):", text)
        if starting:
            last = starting.group(1)
            if last not in current or "done" in current[last]:
                current[last] = {"start": at}
            continue
        if last is None:
            continue
        b = current[last]
        if text.startswith("warmed up"):
            b["warm"] = at
        elif text.startswith("slots taken"):
            b["slots"] = at
            b["measured"] = float(re.search(r"([\d.]+) s of them measured", text).group(1))
        elif text.startswith("tracing "):
            b.setdefault("trace0", at)
        elif text.startswith("traced "):
            b["trace1"] = at
        elif re.match(rf"{re.escape(last)}: block \d+ done", text):
            b["done"] = at
            if "warm" in b and "slots" in b:
                yield last, b


def main(path):
    totals = {}
    for name, b in blocks(path):
        t = totals.setdefault(name, dict(blocks=0, start=0.0, slots=0.0, measured=0.0, trace=0.0, rest=0.0, wall=0.0))
        trace = (b["trace1"] - b["trace0"]).total_seconds() + 1 if "trace0" in b else 0
        t["blocks"] += 1
        t["start"] += (b["warm"] - b["start"]).total_seconds()
        t["slots"] += (b["slots"] - b["warm"]).total_seconds()
        t["measured"] += b["measured"]
        t["trace"] += trace
        t["rest"] += (b["done"] - b["slots"]).total_seconds() - trace
        t["wall"] += (b["done"] - b["start"]).total_seconds()
    print("| experiment | blocks | wall | starts, feeds, warm-ups | slots (measured) | traces | after |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, t in totals.items():
        w = t["wall"]
        print(f"| {name} | {t['blocks']} | {w:.0f} s | {t['start']:.0f} s ({100 * t['start'] / w:.0f} %) "
              f"| {t['slots']:.0f} s ({t['measured']:.0f} s: {100 * t['measured'] / w:.1f} %) "
              f"| {t['trace']:.0f} s ({100 * t['trace'] / w:.0f} %) | {t['rest']:.0f} s |")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(f"# {p}")
        main(p)
