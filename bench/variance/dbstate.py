"""Summarizes bench/variance/dbstate.sh's samples: one Markdown row per invocation. python3 dbstate.py SAMPLES.tsv OUT"""
import csv
import json
import sys


def number(row, key):
    try:
        return int(row[key])
    except (KeyError, TypeError, ValueError):
        return None


def delta(first, last, key):
    a, b = number(first, key), number(last, key)
    return "n/a" if a is None or b is None else str(b - a)


def signed(value):
    """A percentage with its sign; results.json writes a figure it could not compute as null (schema 1: the string "NaN")."""
    return f"{value:+.1f}" if isinstance(value, (int, float)) else "n/a" if value is None else str(value)


def verdict(folder):
    """The async-against-sync all-scenario RPS change of the run, with its interval and verdict."""
    try:
        with open(f"{folder}/results.json", encoding="utf-8") as f:
            results = json.load(f)
    except OSError:
        return "no results.json"
    for experiment in results["experiments"]:
        for c in experiment["comparisons"]:
            if c["scenario"] == "all" and c["metric"] == "rps":
                return (f"{c['variant']} {signed(c['changePercent'])} % [{signed(c['lowPercent'])}, {signed(c['highPercent'])}] "
                        f"{c['verdict']}, {experiment['blocks']} blocks")
    return "no comparison"


samples_path, out = sys.argv[1], sys.argv[2]
with open(samples_path, encoding="utf-8") as f:
    rows = [r for r in csv.DictReader(f, delimiter="\t") if r.get("blks_hit")]
print("| run | buffer hits | reads from outside shared buffers | autovacuum / autoanalyze on the lab's tables "
      "| statistics changed | checkpoints timed / requested (buffers written) | dead tuples at most | backends at most "
      "| lab pages cached: before, lowest during, after (of) | async vs sync |")
print("|---|---|---|---|---|---|---|---|---|---|")
for run in sorted({r["run"] for r in rows}, key=int):
    mine = [r for r in rows if r["run"] == run]
    first, last = mine[0], mine[-1]
    during = [r for r in mine if r["when"] == "during"] or mine
    hashes = [r["stats_md5"] for r in mine]
    cached = [number(r, "lab_pages_cached") for r in during if number(r, "lab_pages_cached") is not None]
    print(f"| {run} | {delta(first, last, 'blks_hit')} | {delta(first, last, 'blks_read')} "
          f"| {delta(first, last, 'autovacuums')} / {delta(first, last, 'autoanalyzes')} "
          f"| {'yes' if len(set(hashes)) > 1 else 'no'} ({hashes[0]}) "
          f"| {delta(first, last, 'ckpt_timed')} / {delta(first, last, 'ckpt_req')} ({delta(first, last, 'buffers_checkpoint')}) "
          f"| {max(number(r, 'dead') or 0 for r in mine)} | {max(number(r, 'backends') or 0 for r in mine)} "
          f"| {first.get('lab_pages_cached')}, {min(cached) if cached else 'n/a'}, {last.get('lab_pages_cached')} "
          f"({last.get('lab_pages')}) | {verdict(f'{out}/run-{run}')} |")
