#!/usr/bin/env bash
# Generator throughput: perflab load against wrk, hey and h2load (HTTP/1.1), same connection count, against the SUT's
# trivial /plaintext endpoint; SUT pinned to core 0, every generator pinned to core 1, rounds interleaved.
# Usage: bench/load/throughput.sh [connections=32] [seconds=10] [rounds=8]
source "$(dirname "$0")/common.sh"
C="${1:-32}"; D="${2:-10}"; ROUNDS="${3:-8}"
URL="$BASE/plaintext"
OUT="$RESULTS/throughput.tsv"
build
start_sut
note="$(machine_note)"
printf "tool\tround\trps\trequests\tcpu_s\n" >"$OUT"
# The SUT warms up first (JIT tiering makes it faster for its first tens of seconds), and each round rotates the
# order of the generators, so that a server still speeding up does not favour whoever runs last.
taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d15s "$URL" >/dev/null

run_perflab() {
  # perflab: RPS from its JSON (measured period, after its 2 s warm-up); CPU from /usr/bin/time (whole process:
  # start-up, JIT and warm-up included), divided by every request it sent (warm-up included, from its timeline).
  # Its own in-process figure (measured period only) is kept too.
  local r="$1" res json cpu req rps all inproc
  res="$(pinned_timed dotnet "$PERFLAB" load "$URL" -c "$C" -d "${D}s" -w 2s --json)"
  json="$(echo "$res" | sed '$d')"; cpu="$(echo "$res" | tail -1 | cut -d' ' -f2)"
  req="$(echo "$json" | jq '.scenarios[0].requests')"; rps="$(echo "$json" | jq '.scenarios[0].requestsPerSecond')"
  all="$(echo "$json" | jq '[.scenarios[0].timeline[].requests] | add')"
  inproc="$(echo "$json" | jq '.generator.cpuMicrosecondsPerRequest')"
  printf "perflab\t%s\t%s\t%s\t%s\n" "$r" "$rps" "$all" "$cpu" >>"$OUT"
  printf "perflab-inproc\t%s\t%s\t%s\t%s\n" "$r" "$rps" "$req" "$(echo "$inproc $req" | awk '{ printf "%.3f", $1 * $2 / 1e6 }')" >>"$OUT"
}

run_wrk() {
  local r="$1" res rps req
  res="$(pinned_timed wrk -t1 -c "$C" -d "${D}s" "$URL")"
  rps="$(echo "$res" | awk '/^Requests\/sec/ { print $2 }')"; req="$(echo "$res" | awk '/requests in/ { print $1 }')"
  printf "wrk\t%s\t%s\t%s\t%s\n" "$r" "$rps" "$req" "$(echo "$res" | tail -1 | cut -d' ' -f2)" >>"$OUT"
}

run_hey() {
  local r="$1" res rps req
  res="$(pinned_timed hey -c "$C" -z "${D}s" "$URL")"
  rps="$(echo "$res" | awk '/Requests\/sec/ { print $2 }')"; req="$(echo "$res" | awk '/\[200\]/ { print $2 }')"
  printf "hey\t%s\t%s\t%s\t%s\n" "$r" "$rps" "$req" "$(echo "$res" | tail -1 | cut -d' ' -f2)" >>"$OUT"
}

run_h2load() {
  local r="$1" res rps req
  res="$(pinned_timed h2load --h1 -c "$C" -D "$D" "$URL")"
  rps="$(echo "$res" | awk '/^finished in/ { gsub(",", "", $4); print $4 }')"; req="$(echo "$res" | awk '/^requests:/ { print $8 }')"
  printf "h2load\t%s\t%s\t%s\t%s\n" "$r" "$rps" "$req" "$(echo "$res" | tail -1 | cut -d' ' -f2)" >>"$OUT"
}

TOOLS=(perflab wrk hey h2load)
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2 3; do
    "run_${TOOLS[$(( (i + r - 1) % 4 ))]}" "$r"
  done
done

{
  echo "### Generator throughput"
  echo
  echo "\`bench/load/throughput.sh $C $D $ROUNDS\`: SUT \`/plaintext\` pinned to core $SERVER_CORE, each generator pinned to core $CLIENT_CORE"
  echo "(one thread for wrk), $C connections, ${D} s per run, after a 15 s warm-up of the SUT; $ROUNDS rounds, each running the four"
  echo "generators in turn, the order rotated by one every round (perflab first in round 1, wrk first in round 2 ...);"
  echo "medians. CPU per request = (user + sys CPU of the generator process, from \`/usr/bin/time\`) / requests it sent; for"
  echo "perflab the whole process (start-up, JIT and its 2 s warm-up, with the warm-up's requests) and, in brackets, its own"
  echo "measured-period figure. perflab's RPS is its measured period's, after the warm-up."
  echo "$note"
  echo
  echo "| generator | RPS (median) | RPS runs | vs wrk | CPU µs/request | vs wrk |"
  echo "|---|---:|---|---:|---:|---:|"
  wrk_rps="$(awk -F'\t' '$1 == "wrk" { print $3 }' "$OUT" | median)"
  wrk_cpu="$(awk -F'\t' '$1 == "wrk" { print $5 * 1e6 / $4 }' "$OUT" | median)"
  for tool in perflab wrk hey h2load; do
    rps="$(awk -F'\t' -v t="$tool" '$1 == t { print $3 }' "$OUT" | median)"
    runs="$(awk -F'\t' -v t="$tool" '$1 == t { printf "%s%.0f", sep, $3; sep = ", " }' "$OUT")"
    cpu="$(awk -F'\t' -v t="$tool" '$1 == t { print $5 * 1e6 / $4 }' "$OUT" | median)"
    extra=""
    if [[ "$tool" == perflab ]]; then
      extra=" ($(awk -F'\t' '$1 == "perflab-inproc" { print $5 * 1e6 / $4 }' "$OUT" | median | xargs printf "%.1f"))"
    fi
    printf "| %s | %.0f | %s | %.0f %% | %.1f%s | %.2fx |\n" "$tool" "$rps" "$runs" "$(echo "$rps $wrk_rps" | awk '{ print 100 * $1 / $2 }')" "$cpu" "$extra" "$(echo "$cpu $wrk_cpu" | awk '{ print $1 / $2 }')"
  done
  echo
  p_rps="$(awk -F'\t' '$1 == "perflab" { print $3 }' "$OUT" | median)"
  p_cpu="$(awk -F'\t' '$1 == "perflab" { print $5 * 1e6 / $4 }' "$OUT" | median)"
  echo "$p_rps $wrk_rps $p_cpu $wrk_cpu" | awk '{
    r = 100 * $1 / $2; c = $3 / $4;
    printf "Targets: RPS at least 95 %% of wrk: %s (%.0f %%); CPU per request at most 1.5x wrk: %s (%.2fx).\n",
      (r >= 95 ? "holds" : "does NOT hold"), r, (c <= 1.5 ? "holds" : "does NOT hold"), c }'
} >"$RESULTS/throughput.md"
cat "$RESULTS/throughput.md"
