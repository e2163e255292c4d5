#!/usr/bin/env bash
# When the load engine's hot path reaches tier 1, against the start of the measured window, on a generator pinned to
# one core (where the runtime multiplies its tiering delay by DOTNET_TC_DelaySingleProcMultiplier, 10 by default).
# Per run: `perflab load` pinned as in throughput.sh with the JIT's summary written to a file
# (DOTNET_JitStdOutFile + DOTNET_JitDisasmSummary), the file polled every 0.1 s; the window starts 2 s (the warm-up)
# after the first connection to the SUT (ss), i.e. after perflab's own priming. Prints per hot method the second
# its tier-1 code appeared, relative to the window's start (negative: before it), and the methods compiled in the window.
# Usage: bench/load/tiering.sh [runs=2] [endpoint=/info] [connections=32]; multipliers in MULTIPLIERS (default "10 1");
# SHOW=1 lists the methods compiled in the window.
# Loopback only; every run is bounded by its duration (12 s).
source "$(dirname "$0")/common.sh"
RUNS="${1:-2}"; EP="${2:-/info}"; C="${3:-32}"
MULTIPLIERS="${MULTIPLIERS:-10 1}"
HOT='Http11ResponseReader|LoopSocket:Receive|Http11Body:Line|Http11Head:Parse'
build
start_sut
taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d 5s "$BASE$EP" >/dev/null # the SUT's JIT, first
echo "$(machine_note)"
now() { date +%s.%N; }

one_run() {
  local m="$1" jit t0 t_conn="" pid log
  jit="$(mktemp)"; log="$(mktemp)"; : >"$log"
  t0="$(now)"
  # PERFLAB_CMD with this run's multiplier (the array's own was fixed when common.sh was read).
  DOTNET_JitStdOutFile="$jit" DOTNET_JitDisasmSummary=1 \
    taskset -c "$CLIENT_CORE" env "DOTNET_TC_DelaySingleProcMultiplier=$m" dotnet "$PERFLAB" \
    load "$BASE$EP" -c "$C" -d 10s -w 2s --json >/dev/null 2>&1 &
  pid=$!
  # "seconds-since-start line-count" every 0.1 s, and the first connection to the SUT.
  while kill -0 "$pid" 2>/dev/null; do
    local t; t="$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')"
    echo "$t $(wc -l <"$jit" 2>/dev/null || echo 0)" >>"$log"
    if [[ -z "$t_conn" ]] && [[ "$(ss -Htn state established "( dport = :$PORT )" | wc -l)" -gt 0 ]]; then t_conn="$t"; fi
    sleep 0.1
  done
  wait "$pid" || true
  local window; window="$(awk -v c="$t_conn" 'BEGIN { printf "%.2f", c + 2 }')"
  # The line count the file had at each poll tells when each of its lines appeared.
  # Lines first..last of the file appeared in the window.
  local in_window; in_window="$(awk -v w="$window" '$1 >= w && !s { s = $2 } END { print s }' "$log")"
  local total; total="$(wc -l <"$jit")"
  # Only its first 8 s: the window's start is estimated (its warm-up also waits for first answers), and the run's end,
  # whose report code compiles at tier 0 by the hundred, must not fall inside what is counted.
  local last; last="$(awk -v w="$window" '$1 < w + 8 { s = $2 } END { print s }' "$log")"
  printf "multiplier %s: first connection at %.1f s, window from %.1f s; %d methods compiled in its first 8 s (of %d)\n" \
    "$m" "$t_conn" "$window" "$((last - ${in_window:-$total}))" "$total"
  # Each of the engine's methods (PerfLab.Load.*) compiled at tier 1 (or OSR): when, against the window's start.
  local first=$(( ${in_window:-$total} + 1 ))
  (( last >= first )) || last=$((first - 1)) # nothing appeared in the window: an empty range, not sed's one line
  local range="${first},${last}p"; (( last >= first )) || range="q"
  printf "  engine methods at tier 1: %d before the window, %d in it; in the window by tier: %s\n" \
    "$(head -n "$((first - 1))" "$jit" | grep -c 'PerfLab\.Load.*\[Tier1' || true)" \
    "$(sed -n "$range" "$jit" | grep -c 'PerfLab\.Load.*\[Tier1' || true)" \
    "$(sed -n "$range" "$jit" | sed -nE 's/.*\[([A-Za-z0-9 -]+), IL size.*/\1/p' | sort | uniq -c \
      | awk '{ n = $1; $1 = ""; printf "%s%s %d", s, $0, n; s = "," }')"
  grep -nE "$HOT" "$jit" | grep -E '\[Tier1( with [A-Za-z]+ PGO)?,' | while IFS=: read -r n rest; do
    local at; at="$(awk -v n="$n" '$2 >= n { print $1; exit }' "$log")"
    printf "  %+6.1f s  %s\n" "$(awk -v a="$at" -v w="$window" 'BEGIN { print a - w }')" \
      "$(echo "$rest" | sed -E 's/^ *[0-9]+: JIT compiled //; s/ \[.*//' | cut -c1-100)"
  done | grep -v 'PoolingAsyncValueTaskMethodBuilder' || true
  if [[ -n "${SHOW:-}" ]]; then # SHOW=1: every method compiled in the window's first 8 s, with its tier
    sed -n "$range" "$jit" | sed -E 's/^ *[0-9]+: JIT compiled /    /; s/, IL size.*//' | cut -c1-160
  fi
  [[ -n "${KEEP:-}" ]] && cp "$jit" "$KEEP-m$m-$(date +%s).txt"
  rm -f "$jit" "$log"
}

for run in $(seq 1 "$RUNS"); do
  for m in $MULTIPLIERS; do one_run "$m"; done
done
