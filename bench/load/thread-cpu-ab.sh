#!/usr/bin/env bash
# Two perflab builds' CPU by thread in their measured window, alternated: each round runs `perflab load` of build A,
# then of build B, pinned as in throughput.sh, and from 3 s after its first connection to the SUT reads every
# thread's CPU (/proc/PID/task/*/schedstat, nanoseconds) over SECONDS; prints per run the CPU a second of each thread
# name (ms a second, threads of a name summed), the event loop's µs a request, and the rest's ms a second (the
# per-second work off the loop: timers, thread pool, tier-1 compiles).
# Usage: A=/path/to/before/perflab.dll B=/path/to/after/perflab.dll bench/load/thread-cpu-ab.sh [rounds=3] [endpoint=/info] [seconds=8]
# Loopback only; every run is bounded by its duration.
source "$(dirname "$0")/common.sh"
ROUNDS="${1:-3}"; EP="${2:-/info}"; S="${3:-8}"; C=32
: "${A:?A=the first build's perflab.dll}" "${B:?B=the second build's perflab.dll}"
build
start_sut
taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d 8s "$BASE$EP" >/dev/null # the SUT's JIT, first
echo "bench/load/thread-cpu-ab.sh $ROUNDS $EP $S, A=$A, B=$B ($(machine_note))"
snap() {
  for t in /proc/"$1"/task/*; do printf "%s\t%s\n" "$(tr ' ' _ <"$t/comm")" "$(cut -d' ' -f1 "$t/schedstat")"; done 2>/dev/null \
    | awk -F'\t' '{ a[$1] += $2 } END { for (k in a) print k "\t" a[k] }' | sort
}
out="$(mktemp -d)"; trap 'rm -rf "$out"; stop_sut' EXIT
for r in $(seq 1 "$ROUNDS"); do
  for build in A B; do
    dll="${!build}"
    taskset -c "$CLIENT_CORE" "${PERFLAB_CMD[@]:0:2}" dotnet "$dll" load "$BASE$EP" -c "$C" -d "$((S + 6))s" -w 2s --json >"$out/run.json" &
    PINNED_PID=$!
    wait_connected_settled
    snap "$PINNED_PID" >"$out/a"; sleep "$S"; snap "$PINNED_PID" >"$out/b"
    wait "$PINNED_PID" || true
    rps="$(jq '.scenarios[0].requestsPerSecond' "$out/run.json")"
    printf "round %s %s: %.0f RPS, window %.2f µs CPU a request | " "$r" "$build" "$rps" "$(jq '.generator.cpuMicrosecondsPerRequest' "$out/run.json")"
    join -t$'\t' "$out/a" "$out/b" | awk -F'\t' -v s="$S" -v rps="$rps" '
      { d = ($3 - $2) / 1e6 / s; if ($1 == "perflab_sockets") loop = d; else off += d; if (d > 0.05) printf "%s %.2f; ", $1, d }
      END { printf "| loop %.2f µs a request, off the loop %.2f ms a second\n", loop * 1000 / rps, off }'
  done
done
