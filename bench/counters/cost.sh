#!/usr/bin/env bash
# "Counter cost": how much collecting counters every second lowers the SUT's throughput. One SUT pinned to CPU 0;
# one continuous `perflab load` (closed model, 32 users) pinned to CPU 1 for the whole experiment, its per-second
# timeline giving the SUT's RPS; the collector (`perflab counters collect`, also on CPU 1) is switched on and off in
# phases, A (without) and B (with), in pairs ordered A B, B A, A B ... so that drift and order effects hit both.
# A phase counts WINDOW seconds; a B phase first lets the collector settle for SETTLE seconds. The collector is a fresh
# process each time, and its start-up does not end when it attaches: its hot methods are re-compiled by the tiered JIT
# over its first ~20 s (the "collector CPU" column shows it: compare SETTLE=5 with SETTLE=20), a one-time cost paid once per
# perflab process. The default settle keeps that outside the measured seconds; `SETTLE=3` measures it in. The
# collector's own CPU in each window is read from /proc and printed beside its RPS. Writes docs/benchmarks.md
# "## Counters" / "### Counter cost".
# With RATE=n the load is an open model at n requests/s instead (below the SUT's saturation, so the generator has
# headroom and the RPS is fixed): the figure is then the SUT's capacity, requests per second of the SUT's CPU time.
# The settle defaults to 5 s there, so the collector's start-up falls in the measured seconds. Writes
# "### Counter cost at a fixed rate".
# Usage: [SETTLE=20] [RATE=] bench/counters/cost.sh [pairs, default 16] [window seconds, default 8] [path, default /json]
source "$(dirname "$0")/common.sh"
PAIRS="${1:-16}"
WINDOW_S="${2:-8}"
TARGET_PATH="${3:-/json}"
RATE="${RATE:-}"
if [[ -n "$RATE" ]]; then
  SETTLE_S="${SETTLE:-5}"
  LOAD_ARGS=(-R "$RATE" -c 256)
  NAME=cost-rate
else
  SETTLE_S="${SETTLE:-20}"
  LOAD_ARGS=(-c 32)
  NAME=cost
fi
build
start_sut "$OUT/sut-cost.log" 0
trap 'stop_sut; kill "$LOAD_PID" 2>/dev/null || true' EXIT

# Warm-up (JIT tiering of the SUT), not counted; then the continuous load, a little longer than all the phases.
taskset -c 1 $PERFLAB load "$SUT_URL$TARGET_PATH" -c 32 -d 15s >/dev/null
TOTAL_S=$((PAIRS * (2 * WINDOW_S + SETTLE_S + 6) + 10))   # each phase may start up to a second late (whole-second start)
taskset -c 1 $PERFLAB load "$SUT_URL$TARGET_PATH" "${LOAD_ARGS[@]}" -d "${TOTAL_S}s" --json >"$OUT/$NAME-load.json" 2>/dev/null &
LOAD_PID=$!
sleep 3

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }   # utime + stime, after the (comm) field
on_second() { sleep "$(awk -v n="$(date +%N)" 'BEGIN { printf "%.3f", 1 - n / 1e9 }')"; }

phase() { # phase PAIR KIND: appends "PAIR KIND first-measured-unix-second collector-ticks sut-ticks" (in the window)
  local collector="" ticks=0 sut first
  if [[ "$2" == B ]]; then
    on_second
    taskset -c 1 $PERFLAB counters collect "$SUT_PID" -d "$((SETTLE_S + WINDOW_S + 2))s" -o "$OUT/cost-b$1.json" 2>"$OUT/cost-b$1.err" &
    collector=$!
    sleep "$SETTLE_S"
  fi
  on_second
  first=$(date +%s)
  sut=$(cpu_ticks "$SUT_PID")
  [[ -n "$collector" ]] && ticks=$(cpu_ticks "$collector")
  sleep "$WINDOW_S"
  sut=$(( $(cpu_ticks "$SUT_PID") - sut ))
  [[ -n "$collector" ]] && { ticks=$(( $(cpu_ticks "$collector") - ticks )); wait "$collector" || true; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$first" "$ticks" "$sut" >>"$OUT/$NAME.tsv"
}
: >"$OUT/$NAME.tsv"
for i in $(seq 1 "$PAIRS"); do
  if (( i % 2 )); then phase "$i" A; phase "$i" B; else phase "$i" B; phase "$i" A; fi
done
kill -TERM "$LOAD_PID"   # like Ctrl+C (SIGINT is ignored by background jobs): the load stops and still writes its JSON
wait "$LOAD_PID" || true

python3 - "$OUT/$NAME.tsv" "$OUT/$NAME-load.json" "$PAIRS" "$WINDOW_S" "$TARGET_PATH" "${LOAD_ARGS[*]}" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SETTLE_S" "$RATE" >"$OUT/$NAME.md" <<'PY'
import sys, statistics, json, math
path, load_path, pairs, window, target, load_args, load, settle, rate = sys.argv[1:10]
window = int(window)
timeline = {p["unixSecond"]: p["requests"] for p in json.load(open(load_path))["scenarios"][0]["timeline"]}
phases = {}   # (pair, kind) -> (RPS, RPS per SUT CPU-second, collector's share of a core)
for line in open(path).read().split("\n"):
    if line.strip():
        pair, kind, first, collector_ticks, sut_ticks = line.split("\t")
        seconds = [timeline[s] for s in range(int(first), int(first) + window) if s in timeline]
        if len(seconds) < window:
            sys.exit(f"pair {pair} {kind}: the load timeline misses seconds of the window")
        # Clock ticks are 10 ms: the SUT's CPU seconds in the window, the collector's share of one core.
        phases[(pair, kind)] = (sum(seconds) / window, sum(seconds) / (int(sut_ticks) / 100), int(collector_ticks) / 100 / window)
rows = [(p, phases[(p, "A")], phases[(p, "B")]) for p in sorted({k[0] for k in phases}, key=int)]

def paired(index):
    """Mean change B vs A over the paired log-ratios, with a 95 % Student-t interval."""
    logs = [math.log(b[index] / a[index]) for _, a, b in rows]
    n = len(logs)
    mean = sum(logs) / n
    sd = statistics.stdev(logs) if n > 1 else float("inf")
    t95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 11: 2.20, 12: 2.18,
           13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09, 20: 2.09}.get(n - 1, 2.0)
    half = t95 * sd / math.sqrt(n)
    return tuple(math.exp(x) - 1 for x in (mean - half, mean, mean + half))

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
print("### Counter cost at a fixed rate" if fixed else "### Counter cost")
print()
env = (f"RATE={rate} " if fixed else "") + f"SETTLE={settle} "
print(f"Command: `{env}bench/counters/cost.sh {pairs} {window} {target}` — one SUT (net10.0) pinned to CPU 0; one")
print(f"continuous `perflab load {load_args}` pinned to CPU 1, whose per-second timeline gives the RPS; `perflab counters collect <pid> -i 1s`")
print(f"(System.Runtime meter, ASP.NET Core and Kestrel EventCounters, thread-pool events), also on CPU 1, switched on and off")
print(f"in {pairs} pairs of phases, A without and B with the collector, ordered A B, B A, A B ...; each phase counts {window} s,")
print(f"a B phase's after the collector has run {settle} s" + ("." if fixed else
      " (its start-up, including the tiered JIT's re-compiles, outside the measured seconds)."))
print()
if fixed:
    print(f"- *RPS*: held at {rate} requests/s by the open model; the SUT's core is not saturated.")
    print(f"- *RPS per SUT core*: requests per second of CPU time the SUT process used in the window (utime + stime from")
    print(f"  /proc): the RPS the SUT would serve with its core full, its capacity. The generator is not the limit here,")
    print(f"  but the collector still shares its core: whether the collector's start-up, by making the sends burstier,")
    print(f"  moves the SUT's CPU per request is not separated from the SUT's own cost of being observed.")
else:
    print(f"- *RPS*: requests per second in the window, the figure the target is about; both the SUT's cost of being")
    print(f"  observed and the collector's CPU on the generator's core (the generator is near its own limit here) move it.")
    print(f"- *RPS per SUT core*: requests per second of CPU time the SUT process used in the window (utime + stime from /proc).")
print(f"- *collector CPU*: the collector process's own CPU in the window, on the generator's core.")
print()
print("| pair | A: RPS | B: RPS | B vs A | A: RPS per SUT core | B: RPS per SUT core | B vs A | collector CPU |")
print("|---|---|---|---|---|---|---|---|")
for p, a, b in rows:
    print(f"| {p} | {a[0]:.0f} | {b[0]:.0f} | {b[0] / a[0] - 1:+.1%} | {a[1]:.0f} | {b[1]:.0f} | {b[1] / a[1] - 1:+.1%} | {b[2]:.1%} |")
print()
measure = 1 if fixed else 0
noise = sorted(rows[i + 1][1][measure] / rows[i][1][measure] - 1 for i in range(len(rows) - 1))
for label, index in ((("RPS per SUT core (capacity)", 1),) if fixed else (("RPS", 0), ("RPS per SUT core", 1))):
    lo, mid, hi = paired(index)
    print(f"- {label} with the collector: {mid:+.1%}, 95 % interval {lo:+.1%} .. {hi:+.1%} (geometric mean of the {len(rows)} "
          f"paired ratios). Verdict: {verdict(lo, mid, hi)}.")
print(f"- Noise of A alone, consecutive windows: {noise[0]:+.1%} .. {noise[-1]:+.1%}; collector CPU "
      f"{statistics.median(b[2] for _, _, b in rows):.1%} of a core (median); load average at the end {load}.")
PY
cat "$OUT/$NAME.md"
write_section "$OUT/$NAME.md"
