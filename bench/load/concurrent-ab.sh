#!/usr/bin/env bash
# Two perflab builds (or one under two settings) at the same time on the generator's core against one pinned SUT:
# same core, same moments, so the core's changing speed and the neighbours fall on both and cancel in the ratio of
# their window CPU per request. Run one after the other, the same build differed by up to 13 % from pair to pair on
# this machine; run together, by 1-3 % (docs/benchmarks/load-engine-loop.md, "two builds measured at once"). Each gets half the connections,
# and the SUT, the limit on /info, serves both at about the same rate.
# Usage: A=/path/a/perflab.dll B=/path/b/perflab.dll bench/load/concurrent-ab.sh [rounds=5] [endpoint=/info] [seconds=10] [connections each=16]
# Environment: AENV / BENV, settings for A's / B's process (e.g. BENV=DOTNET_TieredPGO=0). Loopback only; every run
# is bounded by its duration.
source "$(dirname "$0")/common.sh"
ROUNDS="${1:-5}"; EP="${2:-/info}"; D="${3:-10}"; C="${4:-16}"
A="${A:-$PERFLAB}"; B="${B:-$PERFLAB}"
build
start_sut
taskset -c "$CLIENT_CORE" wrk -t1 -c "$((2 * C))" -d 12s "$BASE$EP" >/dev/null # the SUT's JIT, first
echo "bench/load/concurrent-ab.sh $ROUNDS $EP $D $C, A=$A ${AENV:-}, B=$B ${BENV:-} ($(machine_note))"
out="$(mktemp -d)"; trap 'rm -rf "$out"; stop_sut' EXIT
field() { jq "$2" "$out/$1.json"; }
for r in $(seq 1 "$ROUNDS"); do
  for build in A B; do
    settings="${build}ENV"
    taskset -c "$CLIENT_CORE" env ${!settings:-PERFLAB_AB=$build} "${PERFLAB_CMD[@]:0:2}" dotnet "${!build}" load "$BASE$EP" \
      -c "$C" -d "${D}s" -w 2s --json >"$out/$build.json" 2>/dev/null &
  done
  wait
  printf "round %s: A %.0f RPS %.2f µs/req | B %.0f RPS %.2f µs/req | B/A CPU a request %.3f\n" "$r" \
    "$(field A '.scenarios[0].requestsPerSecond')" "$(field A '.generator.cpuMicrosecondsPerRequest')" \
    "$(field B '.scenarios[0].requestsPerSecond')" "$(field B '.generator.cpuMicrosecondsPerRequest')" \
    "$(jq -n --slurpfile a "$out/A.json" --slurpfile b "$out/B.json" '$b[0].generator.cpuMicrosecondsPerRequest / $a[0].generator.cpuMicrosecondsPerRequest')"
done | tee "$out/rounds"
echo "median B/A: $(awk '{ print $NF }' "$out/rounds" | median)"
