"""Prints the noise breakdown of result folders as one Markdown table: python3 table.py LABEL=FOLDER ..."""
import json
import sys


def fmt(value, digits=1):
    return "n/a" if value is None or value != value else f"{value:.{digits}f}"


def widest_half_width(experiment):
    widths = [(c["highPercent"] - c["lowPercent"]) / 2 for c in experiment["comparisons"]
              if c["scenario"] == "all" and c["metric"] == "rps"]
    return max(widths) if widths else None


print("| setting | experiment | runs | within a run, per second (CV %) | expected run to run from it (%) "
      "| run to run, drift removed (CV %) | drift (% per run) | drift's share | widest RPS half-width (%) | method |")
print("|---|---|---|---|---|---|---|---|---|---|")
for argument in sys.argv[1:]:
    label, folder = argument.split("=", 1)
    with open(f"{folder}/results.json", encoding="utf-8") as f:
        results = json.load(f)
    for experiment in results["experiments"]:
        noise = experiment.get("noise") or {}
        methods = sorted({c.get("method", "welch") for c in experiment["comparisons"] if c["scenario"] == "all"})
        print(f"| {label} | {experiment['name']} | {noise.get('runs', 0)} | {fmt(noise.get('withinRunCvPercent'))} "
              f"| {fmt(noise.get('expectedRunToRunCvPercent'))} | {fmt(noise.get('runToRunCvPercent'))} "
              f"| {fmt(noise.get('driftPercentPerRun'), 2)} | {fmt(noise.get('driftShare'), 2)} "
              f"| {fmt(widest_half_width(experiment))} | {', '.join(methods)} |")
