#!/usr/bin/env bash
# "Counter cost": how much collecting counters every second lowers the SUT's throughput. One SUT pinned to CPU 0;
# bench/PerfLab.CounterCost pinned to CPU 1, holding perflab's load engine and counter collector in one process as
# `perflab run` does: one continuous load (closed model, 32 users) for the whole experiment, its per-second timeline
# giving the SUT's RPS, while the collector is switched on and off in phases, A (without) and B (with), in pairs ordered
# A B, B A, A B ... so that drift and order effects hit both. Each phase waits SETTLE seconds (the EventPipe session
# starting or stopping in the SUT) and then counts WINDOW seconds. The collector's one-time start-up in a process
# (loading TraceEvent, the tiered JIT re-compiling its hot methods over ~20 s), which `perflab run` pays once, in its
# first run, is kept out of the pairs: after the load has run WARM seconds alone, a WARM-second collection runs it
# first, and its CPU is printed. Writes docs/benchmarks/counters.md
# "## Counters" / "### Counter cost".
# With RATE=n the load is an open model at n requests/s instead (below the SUT's saturation, so the generator has
# headroom and the RPS is fixed): the figure is then the SUT's capacity, requests per second of the SUT's CPU time, and
# the perflab process's CPU shows what the collector costs on the generator's side. Writes
# "### Counter cost at a fixed rate".
# With COUNTERS=System.Runtime the collector reads the runtime's counters and thread-pool events only, as `perflab run`
# does, without ASP.NET Core's Hosting and Kestrel counters; the section's title then ends in ", System.Runtime only".
# Usage: [SETTLE=2] [WARM=30] [RATE=] [COUNTERS=all|System.Runtime] bench/counters/cost.sh [pairs, default 40]
#        [window seconds, default 5] [path, default /json]
source "$(dirname "$0")/common.sh"
PAIRS="${1:-40}"
WINDOW_S="${2:-5}"
TARGET_PATH="${3:-/json}"
SETTLE_S="${SETTLE:-2}"
WARM_S="${WARM:-30}"
RATE="${RATE:-}"
COUNTERS="${COUNTERS:-all}"
if [[ -n "$RATE" ]]; then
  LOAD_ARGS="-R $RATE -c 256"
  NAME=cost-rate
else
  LOAD_ARGS="-c 32"
  NAME=cost
fi
[[ "$COUNTERS" == all ]] || NAME="$NAME-$(tr ',' '-' <<<"$COUNTERS")"
# The tool references perflab, which builds the SUT: one build gives all three.
dotnet build "$REPO/bench/PerfLab.CounterCost" -c Release -nologo -v q >/dev/null
start_sut "$OUT/sut-cost.log" 0
trap stop_sut EXIT

# Warm-up (JIT tiering of the SUT), not counted.
taskset -c 1 $PERFLAB load "$SUT_URL$TARGET_PATH" -c 32 -d 15s >/dev/null
taskset -c 1 dotnet "$REPO/bench/PerfLab.CounterCost/bin/Release/net10.0/PerfLab.CounterCost.dll" \
  "$SUT_URL$TARGET_PATH" "$SUT_PID" "$PAIRS" "$WINDOW_S" "$SETTLE_S" "$WARM_S" "$COUNTERS" $RATE >"$OUT/$NAME.tsv"

python3 - "$OUT/$NAME.tsv" "$PAIRS" "$WINDOW_S" "$TARGET_PATH" "$LOAD_ARGS" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SETTLE_S" "$RATE" "$WARM_S" "$COUNTERS" >"$OUT/$NAME.md" <<'PY'
import sys, statistics, math
path, pairs, window, target, load_args, load, settle, rate, warm, counters = sys.argv[1:11]
window = int(window)
phases = {}   # (pair, kind) -> (RPS, RPS per SUT CPU-second, perflab process's share of a core)
for line in open(path).read().split("\n"):
    if line.strip():
        pair, kind, first, requests, sut_ticks, self_ms, samples = line.split("\t")
        if kind == "W":   # the collector's first session in the process, WARM seconds
            warm_cpu = int(self_ms) / 1000 / int(warm)
            continue
        if kind == "B" and int(samples) < window - 1:
            sys.exit(f"pair {pair} B: the collector recorded {samples} samples in a {window}-second window")
        # Clock ticks are 10 ms: the SUT's CPU seconds in the window.
        phases[(pair, kind)] = (int(requests) / window, int(requests) / (int(sut_ticks) / 100), int(self_ms) / 1000 / window)
rows = [(p, phases[(p, "A")], phases[(p, "B")]) for p in sorted({k[0] for k in phases}, key=int)]

def interval(values):
    """Mean of the values with a 95 % Student-t interval: (low, mean, high)."""
    n = len(values)
    mean = sum(values) / n
    sd = statistics.stdev(values) if n > 1 else float("inf")
    t95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 11: 2.20, 12: 2.18,
           13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09, 20: 2.09}.get(n - 1, 1.96 + 2.4 / max(n - 1, 1))
    half = t95 * sd / math.sqrt(n)
    return mean - half, mean, mean + half

def paired(index):
    """Mean change B vs A over the paired log-ratios, with a 95 % Student-t interval."""
    return tuple(math.exp(x) - 1 for x in interval([math.log(b[index] / a[index]) for _, a, b in rows]))

def verdict(lo, mid, hi):
    if lo > 0.02:
        # Reading counters cannot make a server faster: an interval entirely above +2 % means the setup is biased.
        return (f"**no verdict**: with the collector the SUT looks *faster*, beyond the interval - a bias of this machine "
                f"(load average {load}), not a property of the collector; rerun on a quiet machine")
    if lo >= -0.02:
        return "the target (at most 2 % lower) **holds**"
    if hi < -0.02:
        return "the target (at most 2 % lower) **does not hold**"
    return (f"**no verdict**: the interval straddles the 2 % to detect (load average {load}); more pairs would settle it"
            + (" - most of it lies beyond -2 %, so the target is unlikely to hold" if mid < -0.02 else ""))

fixed = bool(rate)
everything = counters == "all"
print(("### Counter cost at a fixed rate" if fixed else "### Counter cost") + ("" if everything else f", {counters} only"))
print()
env = (f"RATE={rate} " if fixed else "") + ("" if everything else f"COUNTERS={counters} ") + f"SETTLE={settle} WARM={warm} "
read = ("System.Runtime meter, ASP.NET Core and Kestrel EventCounters, thread-pool events: what `perflab counters` reads by default" if everything
        else f"{counters} only" + (", with the thread-pool events" if "System.Runtime" in counters else "")
        + (", as `perflab run` reads them" if counters == "System.Runtime" else ""))
print(f"Command: `{env}bench/counters/cost.sh {pairs} {window} {target}` — one SUT (net10.0) pinned to CPU 0;")
print(f"bench/PerfLab.CounterCost pinned to CPU 1, which holds perflab's load engine and counter collector in one process,")
print(f"as `perflab run` does: one continuous load (`{load_args}`), whose per-second timeline gives the RPS, while the")
print(f"collector (interval 1 s: {read}) is")
print(f"switched on and off in {pairs} pairs of phases, A without and B with it, ordered A B, B A, A B ... Each phase waits")
print(f"{settle} s (the session starting or stopping in the SUT), then counts {window} s. The collector's one-time start-up")
print(f"in a process (loading TraceEvent, the tiered JIT's re-compiles), which `perflab run` pays in its first run, ran")
print(f"before the pairs, in a {warm}-second collection, after the load had run {warm} s alone.")
print()
if fixed:
    print(f"- *RPS*: held at {rate} requests/s by the open model; the SUT's core is not saturated.")
    print(f"- *RPS per SUT core*: requests per second of CPU time the SUT process used in the window (utime + stime from")
    print(f"  /proc): the RPS the SUT would serve with its core full, its capacity.")
else:
    print(f"- *RPS*: requests per second in the window, the figure the target is about. The SUT's core is the limit here")
    print(f"  (see *perflab CPU*: the load engine's core has room), so the RPS moves with the SUT's cost of being observed.")
    print(f"- *RPS per SUT core*: requests per second of CPU time the SUT process used in the window (utime + stime from /proc).")
print(f"- *perflab CPU*: the load engine's and collector's process, its share of a core in the window; B minus A is the")
print(f"  collector's CPU where the generator's core has room (fixed rate).")
print()
print("| pair | A: RPS | B: RPS | B vs A | A: RPS per SUT core | B: RPS per SUT core | B vs A | A: perflab CPU | B: perflab CPU |")
print("|---|---|---|---|---|---|---|---|---|")
for p, a, b in rows:
    print(f"| {p} | {a[0]:.0f} | {b[0]:.0f} | {b[0] / a[0] - 1:+.1%} | {a[1]:.0f} | {b[1]:.0f} | {b[1] / a[1] - 1:+.1%} | {a[2]:.0%} | {b[2]:.0%} |")
print()
measure = 1 if fixed else 0
noise = sorted(rows[i + 1][1][measure] / rows[i][1][measure] - 1 for i in range(len(rows) - 1))
for label, index in ((("RPS per SUT core (capacity)", 1),) if fixed else (("RPS", 0), ("RPS per SUT core", 1))):
    lo, mid, hi = paired(index)
    print(f"- {label} with the collector: {mid:+.1%}, 95 % interval {lo:+.1%} .. {hi:+.1%} (geometric mean of the {len(rows)} "
          f"paired ratios). Verdict: {verdict(lo, mid, hi)}.")
extra = statistics.median(b[2] - a[2] for _, a, b in rows)
print(f"- Noise of A alone, consecutive windows: {noise[0]:+.1%} .. {noise[-1]:+.1%}; perflab CPU B minus A "
      f"{extra:+.1%} of a core (median); load average at the end {load}.")
lo, mid, hi = interval([1e6 / b[1] - 1e6 / a[1] for _, a, b in rows])
print(f"- The SUT's CPU per request: {statistics.mean(1e6 / a[1] for _, a, _ in rows):.2f} µs without the collector, "
      f"{mid:+.2f} µs with it (95 % interval {lo:+.2f} .. {hi:+.2f} µs): a cost per request, so an endpoint doing more "
      f"work per request loses a smaller share.")
print(f"- The collector's start-up: during its first {warm} s of collection in the process the perflab process used "
      f"{warm_cpu:.1%} of a core, against {statistics.median(a[2] for _, a, _ in rows):.1%} in the A windows (median).")
PY
cat "$OUT/$NAME.md"
write_section "$OUT/$NAME.md"
