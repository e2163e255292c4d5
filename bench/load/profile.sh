#!/usr/bin/env bash
# Where a generator's CPU goes beyond its system calls: wrk and `perflab load` in turn against the SUT (pinned as in
# throughput.sh), each sampled by `perf record` (cpu-clock, no call stacks) for SECONDS from 3 s after its first connection to the SUT on.
# perflab runs with DOTNET_PerfMapEnabled=1 and DOTNET_EnableWriteXorExecute=0, so its JIT-compiled methods have names
# (with W^X on, perf sees their code only as memfd:doublemapper). Prints per generator the share of its samples by
# where they fell (the kernel; the generator's own code: wrk's binary, perflab's managed methods; the .NET runtime, its
# GC and its JIT compiler; libc) and the busiest symbols. Shares, not times: multiply by the CPU per request of
# throughput.sh for microseconds per request.
# Usage: bench/load/profile.sh [seconds=5] [connections=32] [endpoint=/plaintext]
# Environment: PERFLAB_SOCKETS=runtime for perflab on the runtime's socket engine; CALLS=1 records call stacks too
# and writes, beside each report, the busiest symbols with their callees' samples included (perf-*-calls.txt), the
# view that says which of perflab's own calls a kernel or runtime share comes from. Needs perf (linux-perf).
source "$(dirname "$0")/common.sh"
S="${1:-5}"; C="${2:-32}"; EP="${3:-/plaintext}"
profile_preamble perf linux-perf

# Runs "$@" pinned, samples it for S seconds once settled; writes perf's report sorted by dso,symbol.
sample() {
  local out="$1"; shift
  start_pinned_settled "$@"
  local pid=$PINNED_PID
  perf record -e cpu-clock -F 2999 ${CALLS:+-g} -p "$pid" -o "$out.data" -- sleep "$S" >/dev/null 2>&1 || true
  wait "$pid" || true
  perf report -i "$out.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' >"$out.txt" || true
  if [[ -n "${CALLS:-}" ]]; then
    perf report -i "$out.data" --children --sort sym --stdio -g none --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' >"$out-calls.txt" || true
  fi
  rm -f "$out.data" "/tmp/perf-$pid.map" "/tmp/perfinfo-$pid.map"
}

# name, report -> the share of samples per place, then the ten busiest symbols.
summarize() {
  local name="$1" report="$2"
  awk -v n="$name" '
    { pct = $1; sub(/%/, "", pct); dso = $2; sym = ""; for (i = 4; i <= NF; i++) sym = sym (i > 4 ? " " : "") $i
      place = dso ~ /kernel/ ? "kernel" : dso ~ /^perf-|JIT|\.dll$|doublemapper/ ? "managed code" \
        : dso ~ /clrjit/ ? "JIT compiler" \
        : dso ~ /coreclr/ ? (sym ~ /gc_heap|GCHeap|WKS::|SVR::/ ? "GC" : "runtime") : dso ~ /^libc/ ? "libc" \
        : dso == "wrk" ? "wrk" : "other (" dso ")"
      share[place] += pct; if (++k <= 10) top = top sprintf("    %6.2f%%  %s  %s\n", pct, dso, sym) }
    END { printf "%s, share of its CPU samples:", n; for (p in share) printf " %s %.1f%%;", p, share[p]
          printf "\n  busiest symbols:\n%s", top }' "$report"
}

sample "$RESULTS/perf-wrk" wrk -t1 -c "$C" -d "$((S + 5))s" "$BASE$EP"
sample "$RESULTS/perf-perflab" env DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 \
  "${PERFLAB_CMD[@]}" load "$BASE$EP" -c "$C" -d "$((S + 5))s" -w 0s --json # as throughput.sh: no display
echo "${PERFLAB_SOCKETS:+PERFLAB_SOCKETS=$PERFLAB_SOCKETS }bench/load/profile.sh $S $C $EP ($(machine_note))"
summarize wrk "$RESULTS/perf-wrk.txt"
summarize perflab "$RESULTS/perf-perflab.txt"
