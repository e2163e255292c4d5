#!/usr/bin/env bash
# Coordinated omission: an open-model run at a constant rate against /plaintext while the SUT is frozen for one second
# (SIGSTOP ... SIGCONT). The corrected p99 (from each request's intended send time, as wrk2) should rise to near the
# stall; the uncorrected p99 (from the actual send, what a closed-loop tool reports) stays low.
# Usage: bench/load/coordinated-omission.sh [rate=1000] [seconds=10] [connections=16]
source "$(dirname "$0")/common.sh"
RATE="${1:-1000}"; D="${2:-10}"; C="${3:-16}"
URL="$BASE/plaintext"
build
start_sut
note="$(machine_note)"
run() { taskset -c "$CLIENT_CORE" "${PERFLAB_CMD[@]}" load "$URL" --rate "$RATE" -c "$C" -d "${D}s" -w 2s --json; }
baseline="$(run)"
echo "$baseline" >"$RESULTS/co-baseline.json"
( sleep $((2 + D / 2)); kill -STOP "$SUT_PID"; sleep 1; kill -CONT "$SUT_PID" ) &
staller=$!
stalled="$(run)"
wait "$staller"
echo "$stalled" >"$RESULTS/co-stall.json"
row() { # name json field
  echo "$2" | jq -r --arg n "$1" --arg f "$3" '.scenarios[0] as $s | $s[$f] as $l
    | "| \($n) | \($f | sub("uncorrectedLatency"; "uncorrected (from actual send)") | sub("^latency$"; "corrected (from intended send)")) | \($l.p50Ms * 100 | round / 100) | \($l.p90Ms * 100 | round / 100) | \($l.p99Ms * 100 | round / 100) | \($l.p999Ms * 100 | round / 100) | \($l.maxMs * 100 | round / 100) | \($s.open.lateSends) |"'
}
{
  echo "### Coordinated omission"
  echo
  echo "\`bench/load/coordinated-omission.sh $RATE $D $C\`: open model, $RATE req/s, at most $C in flight, ${D} s after a 2 s warm-up,"
  echo "against \`/plaintext\`; in the second run the SUT process is frozen with SIGSTOP for 1 s in the middle of the measured period."
  echo "$note"
  echo
  echo "| run | latency | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | late sends |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  row "no stall" "$baseline" latency
  row "no stall" "$baseline" uncorrectedLatency
  row "1 s stall" "$stalled" latency
  row "1 s stall" "$stalled" uncorrectedLatency
  echo
  echo "A 1 s stall in a ${D} s run delays every request due during it: about 1/${D} of all requests waited 0..1 s,"
  echo "so the corrected p99 lands near the stall length; only the $C requests on the wire when it began saw it in the"
  echo "uncorrected figures, far fewer than 1 %, so the uncorrected p99 barely moves (wrk2's README shows the same effect)."
} >"$RESULTS/co.md"
cat "$RESULTS/co.md"
