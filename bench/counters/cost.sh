#!/usr/bin/env bash
# "Counter cost": how much collecting counters every second lowers the SUT's throughput. One SUT pinned to CPU 0;
# one continuous `perflab load` (closed model, 32 users) pinned to CPU 1 for the whole experiment, its per-second
# timeline giving the SUT's RPS; the collector (`perflab counters collect`, also on CPU 1) is switched on and off in
# phases, A (without) and B (with), in pairs ordered A B, B A, A B ... so that drift and order effects hit both.
# Each phase is SETTLE + WINDOW + 1 seconds; only its WINDOW seconds after SETTLE count, so the collector's start-up
# (process start, JIT, session set-up) and exit stay outside the measured seconds. Writes docs/benchmarks.md
# "## Counters" / "### Counter cost".
# Usage: bench/counters/cost.sh [pairs, default 16] [window seconds, default 6] [path, default /json]
source "$(dirname "$0")/common.sh"
PAIRS="${1:-16}"
WINDOW_S="${2:-6}"
TARGET_PATH="${3:-/json}"
SETTLE_S=3
PHASE_S=$((SETTLE_S + WINDOW_S + 1))
CONNECTIONS=32
build
start_sut "$OUT/sut-cost.log" 0
trap 'stop_sut; kill "$LOAD_PID" 2>/dev/null || true' EXIT

# Warm-up (JIT tiering of the SUT), not counted; then the continuous load, a little longer than all the phases.
taskset -c 1 $PERFLAB load "$SUT_URL$TARGET_PATH" -c "$CONNECTIONS" -d 15s >/dev/null
TOTAL_S=$((PAIRS * 2 * (PHASE_S + 2) + 10))   # each phase may start up to a second late (whole-second start)
taskset -c 1 $PERFLAB load "$SUT_URL$TARGET_PATH" -c "$CONNECTIONS" -d "${TOTAL_S}s" --json >"$OUT/cost-load.json" 2>/dev/null &
LOAD_PID=$!
sleep 3

phase() { # phase PAIR KIND: one phase starting on a whole second; prints "PAIR KIND first-measured-unix-second"
  sleep "$(awk -v n="$(date +%N)" 'BEGIN { printf "%.3f", 1 - n / 1e9 }')"
  local start; start=$(date +%s)
  if [[ "$2" == B ]]; then
    taskset -c 1 $PERFLAB counters collect "$SUT_PID" -d "$((SETTLE_S + WINDOW_S))s" -o "$OUT/cost-b$1.json" 2>"$OUT/cost-b$1.err" &
  fi
  printf '%s\t%s\t%s\n' "$1" "$2" "$((start + SETTLE_S))" >>"$OUT/cost.tsv"
  sleep "$PHASE_S"
}
: >"$OUT/cost.tsv"
for i in $(seq 1 "$PAIRS"); do
  if (( i % 2 )); then phase "$i" A; phase "$i" B; else phase "$i" B; phase "$i" A; fi
done
kill -TERM "$LOAD_PID"   # like Ctrl+C (SIGINT is ignored by background jobs): the load stops and still writes its JSON
wait "$LOAD_PID" || true

python3 - "$OUT/cost.tsv" "$OUT/cost-load.json" "$PAIRS" "$WINDOW_S" "$TARGET_PATH" "$CONNECTIONS" "$(cut -d' ' -f1-3 /proc/loadavg)" "$SETTLE_S" >"$OUT/cost.md" <<'PY'
import sys, statistics, json
path, load_path, pairs, window, target, conns, load, settle = sys.argv[1:9]
window = int(window)
timeline = {p["unixSecond"]: p["requests"] for p in json.load(open(load_path))["scenarios"][0]["timeline"]}
phases = {}
for line in open(path).read().split("\n"):
    if line.strip():
        pair, kind, first = line.split("\t")
        seconds = [timeline[s] for s in range(int(first), int(first) + window) if s in timeline]
        if len(seconds) < window:
            sys.exit(f"pair {pair} {kind}: the load timeline misses seconds of the window")
        phases[(pair, kind)] = sum(seconds) / len(seconds)
rows = [(p, phases[(p, "A")], phases[(p, "B")]) for p in sorted({k[0] for k in phases}, key=int)]
a = [r[1] for r in rows]; b = [r[2] for r in rows]
ratios = sorted(bb / aa - 1 for aa, bb in zip(a, b))
noise = sorted(a[i + 1] / a[i] - 1 for i in range(len(a) - 1))
med = statistics.median(ratios)
print("### Counter cost")
print()
print(f"Command: `bench/counters/cost.sh {pairs} {window} {target}` — one SUT (net10.0) pinned to CPU 0; one continuous")
print(f"`perflab load -c{conns}` pinned to CPU 1, whose per-second timeline gives the RPS; `perflab counters collect <pid> -i 1s`")
print(f"(System.Runtime meter, ASP.NET Core and Kestrel EventCounters, thread-pool events), also on CPU 1, switched on and off")
print(f"in {pairs} pairs of phases, A without and B with the collector, ordered A B, B A, A B ...; each phase counts {window} s")
print(f"after a {settle} s settle (the collector's start-up is outside the measured seconds).")
print()
print("| pair | A: RPS without | B: RPS with | B vs A |")
print("|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]:.0f} | {r[2]:.0f} | {r[2] / r[1] - 1:+.1%} |")
print()
# The paired log-ratios give a mean change with a 95 % Student-t interval; a verdict only where the interval clears -2 %.
import math
logs = [math.log(r[2] / r[1]) for r in rows]
n = len(logs)
mean = sum(logs) / n
sd = statistics.stdev(logs) if n > 1 else float("inf")
t95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 11: 2.20, 12: 2.18,
       13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09, 20: 2.09}.get(n - 1, 2.0)
half = t95 * sd / math.sqrt(n)
lo, mid, hi = (math.exp(x) - 1 for x in (mean - half, mean, mean + half))
if lo > 0.02:
    # Reading counters cannot make a server faster: an interval entirely above zero means the setup is biased.
    verdict = (f"**no verdict**: with the collector the SUT looks *faster*, beyond the interval — a bias of this machine "
               f"(load average {load}, shared with other builds), not a property of the collector; rerun on a quiet machine")
elif lo >= -0.02:
    verdict = "the target (at most 2 % lower) **holds**"
elif hi < -0.02:
    verdict = "the target (at most 2 % lower) **does not hold**"
else:
    verdict = (f"**no verdict**: the interval straddles the 2 % to detect (load average {load}); "
               "more pairs would settle it" + (" - most of it lies beyond -2 %, so the target is unlikely to hold" if mid < -0.02 else ""))
print(f"Change with the collector: {mid:+.1%}, 95 % interval {lo:+.1%} .. {hi:+.1%} (geometric mean of the {n} paired ratios); "
      f"median pair {med:+.1%}; noise of A alone, consecutive windows: {noise[0]:+.1%} .. {noise[-1]:+.1%}. Verdict: {verdict}.")
PY
cat "$OUT/cost.md"
write_section "$OUT/cost.md"
