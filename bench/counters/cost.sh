#!/usr/bin/env bash
# "Counter cost": how much collecting counters every second lowers the SUT's throughput. One SUT pinned to CPU 0,
# wrk (1 thread) and the collector pinned to CPU 1; windows without (A) and with (B) the collector, interleaved
# A B A B ... so that drift hits both. Writes docs/benchmarks.md "## Counters" / "### Counter cost".
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
for i in $(seq 1 "$PAIRS"); do
  a=$(window "a$i")
  taskset -c 1 $PERFLAB counters collect "$SUT_PID" -d "$((WINDOW_S + 4))s" -o "$OUT/cost-b$i.json" 2>"$OUT/cost-b$i.err" &
  col=$!
  for _ in $(seq 1 100); do grep -q collecting "$OUT/cost-b$i.err" && break; sleep 0.1; done
  sleep 2   # the session is open and publishing before the window starts
  b=$(window "b$i")
  wait "$col" || true
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
print(f"events) pinned to CPU 1; {pairs} pairs of {window} s windows, A without and B with the collector, interleaved A B A B after a 5 s warm-up.")
print()
print("| pair | A: RPS without | B: RPS with | B vs A |")
print("|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {float(r[1]):.0f} | {float(r[2]):.0f} | {float(r[2]) / float(r[1]) - 1:+.1%} |")
print()
# A verdict only when the noise measured on the same machine is smaller than the effect to detect.
spread = max(abs(noise[0]), abs(noise[-1]))
if spread > 0.02:
    verdict = (f"**no verdict**: windows without the collector alone differ by up to {spread:.0%}, more than the 2 % to detect "
               f"(load average {load} on a machine shared with other builds); rerun on a quiet machine")
elif med >= -0.02:
    verdict = "the target (at most 2 % lower) **holds**"
else:
    verdict = "the target (at most 2 % lower) **does not hold**"
print(f"Median change with the collector: {med:+.1%} (pairs range {ratios[0]:+.1%} .. {ratios[-1]:+.1%}); "
      f"noise of A alone, consecutive windows: {noise[0]:+.1%} .. {noise[-1]:+.1%}. Verdict: {verdict}.")
PY
cat "$OUT/cost.md"
write_section "$OUT/cost.md"
