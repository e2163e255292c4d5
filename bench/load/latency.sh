#!/usr/bin/env bash
# Latency accuracy: 10 users against /weatherforecast-async?ms=150 (a 150 ms await in the SUT); perflab's mean and
# percentiles beside wrk's. Expected: mean 150..153 ms, p99 < 160 ms.
# Usage: bench/load/latency.sh [seconds=20]
source "$(dirname "$0")/common.sh"
D="${1:-20}"; WARMUP="${WARMUP:-5}"
URL="$BASE/weatherforecast-async?ms=150"
build
start_sut
note="$(machine_note)"
json="$(taskset -c "$CLIENT_CORE" "${PERFLAB_CMD[@]}" load "$URL" -c 10 -d "${D}s" -w "${WARMUP}s" --json)"
echo "$json" >"$RESULTS/latency-perflab.json"
wrk_out="$(taskset -c "$CLIENT_CORE" wrk -t1 -c 10 -d "${D}s" --latency "$URL")"
echo "$wrk_out" >"$RESULTS/latency-wrk.txt"

ms() { # wrk prints 150.12ms / 1.02s / 950.00us
  awk '{ v = $1; if (v ~ /ms$/) { sub("ms", "", v); print v } else if (v ~ /us$/) { sub("us", "", v); print v / 1000 } else if (v ~ /s$/) { sub("s", "", v); print v * 1000 } }'
}
wrk_mean="$(echo "$wrk_out" | awk '/^    Latency/ { print $2 }' | ms)"
wrk_sd="$(echo "$wrk_out" | awk '/^    Latency/ { print $3 }' | ms)"
wrk_max="$(echo "$wrk_out" | awk '/^    Latency/ { print $4 }' | ms)"
wrk_p() { echo "$wrk_out" | awk -v p="$1%" '$1 == p { print $2 }' | ms; }
wrk_rps="$(echo "$wrk_out" | awk '/^Requests\/sec/ { print $2 }')"
l() { echo "$json" | jq ".scenarios[0].latency.$1"; }
{
  echo "### Latency accuracy"
  echo
  echo "\`bench/load/latency.sh $D\`: 10 users (wrk: 10 connections, 1 thread) against \`/weatherforecast-async?ms=150\`,"
  echo "${D} s after a ${WARMUP} s warm-up (wrk has none); SUT on core $SERVER_CORE, generator on core $CLIENT_CORE. wrk prints p50/p75/p90/p99 only."
  echo "$note"
  echo
  echo "| generator | RPS | mean ms | stddev ms | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf "| perflab | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n" "$(echo "$json" | jq '.scenarios[0].requestsPerSecond')" \
    "$(l meanMs)" "$(l stdDevMs)" "$(l p50Ms)" "$(l p90Ms)" "$(l p99Ms)" "$(l p999Ms)" "$(l maxMs)"
  printf "| wrk | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | – | %.2f |\n" "$wrk_rps" "$wrk_mean" "$wrk_sd" "$(wrk_p 50)" "$(wrk_p 90)" "$(wrk_p 99)" "$wrk_max"
  echo
  mean="$(l meanMs)"; p99="$(l p99Ms)"
  verdict="$(echo "$mean $p99" | awk '{ print ($1 >= 150 && $1 <= 153 && $2 < 160) ? "holds" : "does NOT hold" }')"
  printf "Target (mean 150..153 ms, p99 < 160 ms): %s (mean %.2f ms, p99 %.2f ms).\n" "$verdict" "$mean" "$p99"
} >"$RESULTS/latency.md"
cat "$RESULTS/latency.md"
