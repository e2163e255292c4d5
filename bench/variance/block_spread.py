#!/usr/bin/env python3
"""Where the spread of an experiment's blocks comes from, from results.json files of alternating blocks: for each variant
against the baseline, the SD of its slots' paired log ratios of CPU per request (the kernel's, slot against the
baseline's slot of the same round) within a block, the SD of a block's mean that this alone predicts, and the SD of the
blocks' means as measured. When the two last agree, the processes (new in every block) add nothing that shows, and
more slots a block narrow the blocks. Over several invocations of the same two-variant comparison (an A/A), the last
line weighs each invocation's mean against its standard error from the pooled slot SD: their mean square is 1 when
nothing lasts an invocation. Usage: bench/variance/block_spread.py [--experiment NAME] RESULTS.json... (default: each
file's first experiment; NAME picks one out of a default run's results.json)."""
import argparse, json, math, statistics as st, sys


def slot_costs(run):
    return [(w["appCpuSeconds"] + (w.get("databaseCpuSeconds") or 0)) / w["requests"] for w in run["cost"]["windows"]]


def block_ratios(experiment, variant, costs=slot_costs):
    """Per block where both ran: the log ratios of the variant's slots against the baseline's, slot by slot."""
    base, blocks = experiment["baseline"], {}
    for r in experiment["runs"]:
        if r["status"].lower() == "ok" and r.get("cost"):
            blocks.setdefault(r["repetition"], {})[r["variant"]] = costs(r)
    return [[math.log(o / a) for a, o in zip(b[base], b[variant])] for b in blocks.values() if base in b and variant in b]


def main(args):
    parser = argparse.ArgumentParser(description="Where the spread of an experiment's blocks comes from.")
    parser.add_argument("--experiment", help="the experiment to read (default: each file's first)")
    parser.add_argument("paths", nargs="+", metavar="RESULTS.json")
    options = parser.parse_args(args)
    name, paths = options.experiment, options.paths
    invocations, squares, dof, compared = [], 0.0, 0, set()
    for path in paths:
        experiments = json.load(open(path))["experiments"]
        e = next((x for x in experiments if x["name"] == name), None) if name else experiments[0]
        if e is None:
            sys.exit(f"{path}: no experiment named {name} (it has {', '.join(x['name'] for x in experiments)})")
        base = e["baseline"]
        for variant in (v for v in e["variants"] if v != base):
            ratios = [r for r in block_ratios(e, variant) if len(r) > 1]
            means = [st.mean(r) for r in ratios]
            variances = [st.variance(r) for r in ratios]
            slots = [len(r) for r in ratios]
            within = math.sqrt(st.mean(variances))
            invocations.append((st.mean(means), sum(slots)))
            compared.add((base, variant))
            squares += sum(v * (n - 1) for v, n in zip(variances, slots))
            dof += sum(n - 1 for n in slots)
            print(f"{path} {variant}: {len(means)} blocks of {min(slots)}-{max(slots)} slot pairs; slot pairs' SD within a block "
                  f"{100 * within:.1f} %, a block's SD expected from them {100 * within / math.sqrt(st.mean(slots)):.1f} %, "
                  f"blocks' SD measured {100 * st.stdev(means):.1f} %")

    # Only the same comparison, once per file, makes invocations of one thing.
    if len(invocations) == len(paths) > 1 and len(compared) == 1 and dof > 0:
        pooled = math.sqrt(squares / dof)
        z = [m / (pooled / math.sqrt(n)) for m, n in invocations]
        print(f"{len(z)} comparisons: pooled slot pairs' SD {100 * pooled:.2f} % ({dof} degrees of freedom); mean / standard error "
              f"{' '.join(f'{x:+.2f}' for x in z)}; mean square {sum(x * x for x in z) / len(z):.2f} (1 when nothing lasts "
              f"an invocation; as chi-square: {sum(x * x for x in z):.1f} on {len(z)} degrees of freedom)")


if __name__ == "__main__":
    main(sys.argv[1:])
