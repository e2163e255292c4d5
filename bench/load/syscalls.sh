#!/usr/bin/env bash
# Where a generator's CPU goes, in system calls: wrk and `perflab load` in turn against the SUT (pinned as in
# throughput.sh), each for SECONDS + 4 s; 3 s after its first connection to the SUT (perflab's priming and warm-up done) `strace -c -f` attaches to
# every thread of it for SECONDS and counts its system calls. Requests in that window = the number of request writes
# (wrk: write; perflab: sendto, or sendmsg on the runtime's sockets), one per request on a keep-alive connection.
# strace stops the process at every call, which slows it several-fold and lets more events pile up per epoll_wait:
# read the counts per request, not the times, and epoll_wait's share as a lower bound.
# Usage: bench/load/syscalls.sh [seconds=3] [connections=32] [endpoint=/plaintext]
# Environment: PERFLAB_SOCKETS=runtime for perflab on the runtime's socket engine. Needs strace (apt-get install strace).
source "$(dirname "$0")/common.sh"
S="${1:-3}"; C="${2:-32}"; EP="${3:-/plaintext}"
profile_preamble strace strace

# Runs "$@" pinned, counts its calls for S seconds once settled; prints strace's table.
count_calls() {
  local out="$1"; shift
  start_pinned_settled "$@"
  local pid=$PINNED_PID args=()
  for t in /proc/"$pid"/task/*; do args+=(-p "${t##*/}"); done
  timeout -s INT "$S" strace -c -f -o "$out" "${args[@]}" >/dev/null 2>&1 || true
  wait "$pid" || true
}

# name, strace table, the call that writes a request -> one line per call with calls per request.
per_request() {
  local name="$1" table="$2" writes="$3"
  awk -v n="$name" -v w="$writes" '
    $NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" { calls[$NF] = $4; total += $4; if (NF == 6) errors += $5 }
    END {
      req = 0; split(w, ws, ","); for (i in ws) req += calls[ws[i]];
      if (req == 0) { print n ": no request writes counted"; exit }
      printf "%s: %d requests in the window, %.2f system calls per request (%.2f failed, EAGAIN mostly):", n, req, total / req, errors / req
      for (c in calls) if (c != "total" && calls[c] / req >= 0.01) printf " %s %.2f", c, calls[c] / req
      printf "\n"
    }' "$table"
}

count_calls "$RESULTS/strace-wrk.txt" wrk -t1 -c "$C" -d "$((S + 4))s" "$BASE$EP"
count_calls "$RESULTS/strace-perflab.txt" "${PERFLAB_CMD[@]}" load "$BASE$EP" -c "$C" -d "$((S + 4))s" -w 0s
echo "${PERFLAB_SOCKETS:+PERFLAB_SOCKETS=$PERFLAB_SOCKETS }bench/load/syscalls.sh $S $C $EP ($(machine_note))"
per_request wrk "$RESULTS/strace-wrk.txt" write
per_request perflab "$RESULTS/strace-perflab.txt" sendto,sendmsg
