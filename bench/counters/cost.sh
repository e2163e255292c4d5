#!/usr/bin/env bash
# "Counter cost": how much collecting counters every second lowers the SUT's throughput. One SUT pinned to CPU 0,
# wrk (1 thread) and the collector pinned to CPU 1; windows without (A) and with (B) the collector, interleaved
# A B, B A, ... so that drift and order effects hit both. Writes docs/benchmarks.md "## Counters" / "### Counter cost".
# Usage: bench/counters/cost.sh [pairs, default 6] [seconds per window, default 10] [path, default /json]
source "$(dirname "$0")/common.sh"
PAIRS="${1:-6}"
WINDOW_S="${2:-10}"
TARGET_PATH="${3:-/json}"
CONNECTIONS=32
build
start_sut "$OUT/sut-cost.log" 0
trap stop_sut EXIT

window() { # window NAME: one wrk run on CPU 1, prints requests/s
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${WINDOW_S}s" "$SUT_URL$TARGET_PATH" >"$OUT/wrk-$1.txt"
  awk '/Requests\/sec/ {print $2}' "$OUT/wrk-$1.txt"
}

taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d5s "$SUT_URL$TARGET_PATH" >/dev/null   # warm-up (JIT, tiering), not counted
: >"$OUT/cost.tsv"
without() { # one window with no collector, after the same idle gap the collector's start takes
  sleep 2.5
  window "a$1"
}
with_collector() {
  taskset -c 1 $PERFLAB counters collect "$SUT_PID" -d "$((WINDOW_S + 4))s" -o "$OUT/cost-b$1.json" 2>"$OUT/cost-b$1.err" &
  local col=$!
  for _ in $(seq 1 100); do grep -q collecting "$OUT/cost-b$1.err" && break; sleep 0.1; done
  sleep 2   # the session is open and publishing before the window starts
  window "b$1"
  wait "$col" || true
}
for i in $(seq 1 "$PAIRS"); do
  # A B, then B A: an order effect (what ran just before) cancels out over the pairs.
  if (( i % 2 )); then a=$(without "$i"); b=$(with_collector "$i"); else b=$(with_collector "$i"); a=$(without "$i"); fi
  printf '%s\t%s\t%s\n' "$i" "$a" "$b" | tee -a "$OUT/cost.tsv"
done

python3 - "$OUT/cost.tsv" "$PAIRS" "$WINDOW_S" "$TARGET_PATH" "$CONNECTIONS" "$(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/cost.md" <<'PY'
import sys, statistics
path, pairs, window, target, conns, load = sys.argv[1:7]
rows = [l.split("\t") for l in open(path).read().split("\n") if l.strip()]
a = [float(r[1]) for r in rows]; b = [float(r[2]) for r in rows]
ratios = sorted(bb / aa - 1 for aa, bb in zip(a, b))
noise = sorted(a[i + 1] / a[i] - 1 for i in range(len(a) - 1))
med = statistics.median(ratios)
print("### Counter cost")
print()
print(f"Command: `bench/counters/cost.sh {pairs} {window} {target}` — one SUT (net10.0) pinned to CPU 0; `wrk -t1 -c{conns} -d{window}s`")
print(f"and `perflab counters collect <pid> -i 1s` (System.Runtime meter, ASP.NET Core and Kestrel EventCounters, thread-pool")
print(f"events) pinned to CPU 1; {pairs} pairs of {window} s windows, A without and B with the collector, in the order A B, B A, A B ... after a 5 s warm-up, each window after the same idle gap.")
print()
print("| pair | A: RPS without | B: RPS with | B vs A |")
print("|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {float(r[1]):.0f} | {float(r[2]):.0f} | {float(r[2]) / float(r[1]) - 1:+.1%} |")
print()
# The paired log-ratios give a mean change with a 95 % Student-t interval; a verdict only where the interval clears -2 %.
import math
logs = [math.log(float(r[2]) / float(r[1])) for r in rows]
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
