#!/usr/bin/env bash
# What an EventPipe trace (perflab's: CPU samples with stacks, contention, GC, thread pool) costs the SUT's throughput
# (the evidence behind the verdicts). Alternates PAIRS pairs of 15 s windows of `perflab load` on one SUT, without and with `perflab trace
# collect` running over the whole window, and prints each window's RPS and the mean change.
# Usage: bench/trace/cost.sh [PAIRS] [URL-PATH]   (default 5 pairs of /customer/orders/{id}, 10 users)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$REPO/results/bench/trace}"   # results/ is git-ignored
PAIRS="${1:-5}"
PATH_="${2:-/customer/orders/{id}}"
PORT=5077
mkdir -p "$OUT"
"$REPO/perflab" sut start --urls "http://127.0.0.1:$PORT" >/dev/null
trap '"$REPO/perflab" sut stop >/dev/null' EXIT
URL="http://127.0.0.1:$PORT$PATH_"
PID=$(pgrep -f "PerfLab.Sut.dll --urls http://127.0.0.1:$PORT" | head -1)
load() { "$REPO/perflab" load "$URL" --values-url "http://127.0.0.1:$PORT/customer/orders/ids" --random -c 10 -d 15s -w "$1" --json; }
load 20s >/dev/null   # the SUT's JIT settles before anything is compared
rps() { python3 -c 'import json,sys; print(round(sum(s["requestsPerSecond"] for s in json.load(sys.stdin)["scenarios"]), 1))'; }
echo "| pair | without trace (RPS) | with trace (RPS) | change |"
echo "|---|---|---|---|"
for i in $(seq 1 "$PAIRS"); do
  a=$(load 2s | rps)
  "$REPO/perflab" trace collect "$PID" -d 19s --out "$OUT/cost-$i.nettrace" 2>/dev/null &
  tracer=$!
  sleep 1   # the session is open before the load starts
  b=$(load 2s | rps)
  wait "$tracer"
  echo "| $i | $a | $b | $(python3 -c "print(f'{($b/$a-1)*100:+.1f} %')") |"
done
