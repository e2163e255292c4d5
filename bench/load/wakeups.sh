#!/usr/bin/env bash
# Context switches per request, per thread: wrk and `perflab load` in turn against the SUT (pinned as in
# throughput.sh), each for SECONDS + 6 s; from 3 s after its first connection to SECONDS later every thread's voluntary and
# involuntary switches (/proc/PID/task/*/status) and CPU ticks (stat) are read twice, summed by thread name, and divided
# by the requests in that span (the generator's RPS times SECONDS). A voluntary switch is a thread going to sleep, so
# it counts the wake-ups that follow; counts per request hold on a busy machine, times do not. Each thread's CPU time
# is also read to the nanosecond (/proc/PID/task/*/schedstat, its first field) and given in µs a request: where the
# generator's CPU goes by thread (event loop, timers, thread pool, GC, JIT), finer than the 10 ms ticks.
# Usage: bench/load/wakeups.sh [seconds=5] [connections=32] [endpoint=/info]
source "$(dirname "$0")/common.sh"
S="${1:-5}"; C="${2:-32}"; EP="${3:-/info}"
build
start_sut
taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d 5s "$BASE$EP" >/dev/null # the SUT's JIT, first

# pid -> one line per thread: name, voluntary, involuntary, ticks (the name's spaces as underscores).
threads() {
  for t in /proc/"$1"/task/*; do
    local name vol inv ticks ns
    name="$(tr ' ' _ <"$t/comm" 2>/dev/null)" || continue
    vol="$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status" 2>/dev/null)" || continue
    inv="$(awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "$t/status" 2>/dev/null)" || continue
    ticks="$(sed 's/.*) //' "$t/stat" 2>/dev/null | awk '{ print $12 + $13 }')" || continue
    ns="$(awk '{ print $1 }' "$t/schedstat" 2>/dev/null)" || continue
    echo "${t##*/} $name $vol $inv $ticks ${ns:-0}"
  done
}

# name, output of the generator, before, after -> switches per request by thread name.
report() {
  local name="$1" rps="$2" before="$3" after="$4"
  awk -v n="$name" -v r="$rps" -v s="$S" '
    NR == FNR { v0[$1] = $3; i0[$1] = $4; t0[$1] = $5; n0[$1] = $6; next }
    { g = $2; sub(/[0-9]+$/, "#", g); vol[g] += $3 - v0[$1]; inv[g] += $4 - i0[$1]; tk[g] += $5 - t0[$1]; cnt[g]++
      tv += $3 - v0[$1]; ti += $4 - i0[$1]; ns[g] += $6 - n0[$1]; tn += $6 - n0[$1] }
    END {
      req = r * s
      printf "%s: %.0f RPS, %d requests in %d s; per request: %.3f voluntary, %.3f involuntary switches, %.2f µs CPU\n", \
        n, r, req, s, tv / req, ti / req, tn / 1000 / req
      for (g in vol) if ((vol[g] + inv[g]) / req >= 0.005 || tk[g] > 0 || ns[g] / 1000 / req >= 0.01)
        printf "  %-20s x%-2d voluntary %.3f involuntary %.3f a request, %d ticks, %.2f µs CPU a request (%.2f ms a second)\n", \
          g, cnt[g], vol[g] / req, inv[g] / req, tk[g], ns[g] / 1000 / req, ns[g] / 1e6 / s
    }' "$before" "$after"
}

# Runs "$@" pinned (its output to OUTFILE), reads its threads once settled (common.sh: 3 s after its first connection,
# inside perflab's measured window) and S seconds later.
observe() {
  local out="$1"; shift
  taskset -c "$CLIENT_CORE" "$@" >"$out" 2>&1 &
  local pid=$!
  wait_connected_settled; threads "$pid" >"$out.before"
  sleep "$S"; threads "$pid" >"$out.after"
  wait "$pid" || true
}

T="$RESULTS/wakeups"
observe "$T-wrk.txt" wrk -t1 -c "$C" -d "$((S + 6))s" "$BASE$EP"
observe "$T-perflab.txt" "${PERFLAB_CMD[@]}" load "$BASE$EP" -c "$C" -d "$((S + 6))s" -w 2s --json
echo "${PERFLAB_SOCKETS:+PERFLAB_SOCKETS=$PERFLAB_SOCKETS }bench/load/wakeups.sh $S $C $EP ($(machine_note))"
report wrk "$(awk '/^Requests\/sec/ { print $2 }' "$T-wrk.txt")" "$T-wrk.txt.before" "$T-wrk.txt.after"
report perflab "$(jq '.scenarios[0].requestsPerSecond' "$T-perflab.txt")" "$T-perflab.txt.before" "$T-perflab.txt.after"
