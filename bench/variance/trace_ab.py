"""The traces' own figures of several runs side by side (python3 trace_ab.py A/results.json B/results.json ...): per
experiment and traced variant, the CPU ms per request the trace charged (all components), its lock-blocked and
blocking-wait ms per request, and the findings it named; the findings that differ between the runs are listed after.
Used to see whether traces taken beside the next block's starts read what traces taken alone read
(docs/benchmarks/duty-cycle.md, "The first block's traces beside the second block's starts")."""
import json
import sys


def figures(path):
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    out = {}
    for e in results["experiments"]:
        findings = {}
        for finding in e.get("findings") or []:
            findings.setdefault(finding.get("variant"), set()).add(finding.get("kind"))
        for ev in e.get("evidence") or []:
            cpu = sum((ev.get("cpuMsPerRequest") or {}).values())
            out[(e["name"], ev["variant"])] = (cpu, ev.get("lockBlockedMsPerRequest") or 0,
                                               ev.get("blockingWaitMsPerRequest") or 0,
                                               ",".join(sorted(findings.get(ev["variant"], set()))))
    return out


def main(paths):
    runs = [figures(p) for p in paths]
    keys = sorted({k for r in runs for k in r})
    print("| experiment | variant | " + " | ".join(f"run {i + 1}: CPU ms/req, lock, wait" for i in range(len(paths))) + " |")
    print("|---|---|" + "---|" * len(paths))
    for key in keys:
        cells = []
        for r in runs:
            if key in r:
                cpu, lock, wait, _ = r[key]
                cells.append(f"{cpu:.3f}, {lock:.3f}, {wait:.3f}")
            else:
                cells.append("-")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    print()
    for key in keys:
        kinds = [r[key][3] if key in r else "-" for r in runs]
        if len(set(kinds)) > 1:
            print(f"findings differ for {key[0]} {key[1]}: " + " / ".join(kinds))


if __name__ == "__main__":
    main(sys.argv[1:])
