#!/usr/bin/env bash
# Generator throughput against wrk, as alternated pinned pairs: the SUT pinned to one core, the generator to the
# other; each pair runs wrk and `perflab load` one after the other (the order alternates from pair to pair, so a
# server still speeding up, or a neighbour's burst, favours neither), same connections and duration, on two
# endpoints: a trivial one and a ~1 KB JSON one. Prints per pair the RPS and the CPU per request of both, then the
# median of the per-pair ratios (perflab / wrk) with their spread (min..max).
# Usage: bench/load/throughput.sh [pairs=5] [seconds=10] [connections=32]
# Environment: ENDPOINTS (default "/plaintext /info"), PERFLAB_SOCKETS=runtime (perflab on the runtime's socket
# engine instead of its own event loop: the figure before the event loop), TAG (a suffix for the results' files),
# TIERING_MULTIPLIER (perflab's single-processor tiering delay multiplier, default 1 as ./perflab; 10: the runtime's).
# Loopback only; every run is bounded by its duration.
source "$(dirname "$0")/common.sh"
PAIRS="${1:-5}"; D="${2:-10}"; C="${3:-32}"
ENDPOINTS="${ENDPOINTS:-/plaintext /info}"
TAG="${TAG:-}"
OUT="$RESULTS/throughput${TAG}.tsv"
build
start_sut
note="$(machine_note)"
printf "endpoint\tpair\tgenerator\trps\trequests\tcpu_s\tcpu_us_per_request\n" >"$OUT"

# wrk: RPS and request count from its summary; CPU from its rusage (pinned_timed; its start-up is a few milliseconds).
run_wrk() {
  local ep="$1" pair="$2" res rps req cpu
  res="$(pinned_timed wrk -t1 -c "$C" -d "${D}s" "$BASE$ep")"
  rps="$(echo "$res" | awk '/^Requests\/sec/ { print $2 }')"
  req="$(echo "$res" | awk '/requests in/ { print $1 }')"
  cpu="$(echo "$res" | tail -1 | cut -d' ' -f2)"
  printf "%s\t%s\twrk\t%s\t%s\t%s\t%s\n" "$ep" "$pair" "$rps" "$req" "$cpu" "$(awk -v c="$cpu" -v r="$req" 'BEGIN { printf "%.3f", c * 1e6 / r }')" >>"$OUT"
}

# perflab: RPS and CPU per request over its measured window (after a 2 s warm-up), from its JSON: the process's
# own CPU time (its CPU clock, user + system) over the window, divided by the requests completed in it. The
# whole process's CPU (start-up, JIT and warm-up included) from its rusage is kept as "perflab-process".
run_perflab() {
  local ep="$1" pair="$2" res json cpu req rps all inproc
  res="$(pinned_timed "${PERFLAB_CMD[@]}" load "$BASE$ep" -c "$C" -d "${D}s" -w 2s --json)"
  json="$(echo "$res" | sed '$d')"; cpu="$(echo "$res" | tail -1 | cut -d' ' -f2)"
  req="$(echo "$json" | jq '.scenarios[0].requests')"; rps="$(echo "$json" | jq '.scenarios[0].requestsPerSecond')"
  inproc="$(echo "$json" | jq '.generator.cpuMicrosecondsPerRequest')"
  all="$(echo "$json" | jq '[.scenarios[0].timeline[].requests] | add')"
  printf "%s\t%s\tperflab\t%s\t%s\t%s\t%s\n" "$ep" "$pair" "$rps" "$req" "$(awk -v u="$inproc" -v r="$req" 'BEGIN { printf "%.3f", u * r / 1e6 }')" "$inproc" >>"$OUT"
  printf "%s\t%s\tperflab-process\t%s\t%s\t%s\t%s\n" "$ep" "$pair" "$rps" "$all" "$cpu" "$(awk -v c="$cpu" -v r="$all" 'BEGIN { printf "%.3f", c * 1e6 / r }')" >>"$OUT"
}

field() { awk -F'\t' -v e="$1" -v p="$2" -v g="$3" -v f="$4" '$1 == e && $2 == p && $3 == g { print $f }' "$OUT"; }

for ep in $ENDPOINTS; do
  # The SUT's JIT tiers up during its first tens of seconds: warm it on this endpoint before the first pair.
  taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d 10s "$BASE$ep" >/dev/null
  bytes="$(curl -s --max-time 5 "$BASE$ep" | wc -c)"
  echo "== $ep ($bytes bytes a response): $PAIRS pairs of ${D} s, $C connections"
  for pair in $(seq 1 "$PAIRS"); do
    if (( pair % 2 )); then run_wrk "$ep" "$pair"; run_perflab "$ep" "$pair"; else run_perflab "$ep" "$pair"; run_wrk "$ep" "$pair"; fi
    awk -v p="$pair" -v wr="$(field "$ep" "$pair" wrk 4)" -v wc="$(field "$ep" "$pair" wrk 7)" \
        -v pr="$(field "$ep" "$pair" perflab 4)" -v pc="$(field "$ep" "$pair" perflab 7)" -v pp="$(field "$ep" "$pair" perflab-process 7)" \
      'BEGIN { printf "pair %d: wrk %.0f RPS %.2f us/req | perflab %.0f RPS %.2f us/req (process %.2f) | ratio RPS %.3f CPU %.3f\n",
               p, wr, wc, pr, pc, pp, pr / wr, pc / wc }'
  done
done

# Per endpoint: the per-pair ratios perflab / wrk, their median and their range.
ratios() {
  local ep="$1" col="$2"
  awk -F'\t' -v e="$ep" -v c="$col" '$1 == e && $3 == "wrk" { w[$2] = $c } $1 == e && $3 == "perflab" { p[$2] = $c }
    END { for (k in w) if (k in p) print p[k] / w[k] }' "$OUT" | sort -g
}
summary() {
  local ep="$1" col="$2" r
  r="$(ratios "$ep" "$col")"
  printf "%.3f (%.3f..%.3f)" "$(echo "$r" | median)" "$(echo "$r" | head -1)" "$(echo "$r" | tail -1)"
}
med() { awk -F'\t' -v e="$1" -v g="$2" -v c="$3" '$1 == e && $3 == g { print $c }' "$OUT" | median; }

{
  echo "### Generator throughput against wrk"
  echo
  echo "\`${PERFLAB_SOCKETS:+PERFLAB_SOCKETS=$PERFLAB_SOCKETS }bench/load/throughput.sh $PAIRS $D $C\`: SUT pinned to core $SERVER_CORE, generator pinned to core"
  echo "$CLIENT_CORE (wrk with one thread), $C connections, $D s a run; $PAIRS pairs per endpoint, wrk first in odd pairs, perflab first in even"
  echo "ones, after a 10 s wrk warm-up of the SUT on each endpoint. CPU per request: wrk's from its rusage (user + sys, to the ms) over"
  echo "its requests; perflab's from its own measured window (process CPU over the window after its 2 s warm-up, over"
  echo "the requests completed in it), with its whole process (start-up, JIT, warm-up) in brackets. Ratios are perflab / wrk"
  echo "per pair; median (min..max). perflab ran with DOTNET_TC_DelaySingleProcMultiplier=${TIERING_MULTIPLIER:-1}."
  echo "$note"
  echo
  echo "| endpoint | wrk RPS | perflab RPS | RPS ratio | wrk CPU µs/req | perflab CPU µs/req (process) | CPU ratio |"
  echo "|---|---:|---:|---|---:|---:|---|"
  for ep in $ENDPOINTS; do
    printf "| \`%s\` | %.0f | %.0f | %s | %.2f | %.2f (%.2f) | %s |\n" "$ep" "$(med "$ep" wrk 4)" "$(med "$ep" perflab 4)" "$(summary "$ep" 4)" \
      "$(med "$ep" wrk 7)" "$(med "$ep" perflab 7)" "$(med "$ep" perflab-process 7)" "$(summary "$ep" 7)"
  done
} >"$RESULTS/throughput${TAG}.md"
echo
cat "$RESULTS/throughput${TAG}.md"
