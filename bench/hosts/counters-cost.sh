#!/usr/bin/env bash
# What the app host pays for remote counters. The built-in SUT runs on an "app" namespace host, started there by
# perflab's app role over ssh (as `perflab run --hosts` starts it); `perflab load` sends /plaintext at a FIXED rate from
# the controller's namespace for the whole benchmark. Three arms, in rounds whose order rotates through all six
# permutations (so drift and order effects hit every arm alike):
#   none   - no counters;
#   local  - the local collector: `perflab counters collect` run on the app host itself (a fresh process per phase,
#            reading System.Runtime and Npgsql, what `perflab run` reads);
#   remote - the same counters read by the app role and streamed to the controller over its ssh session.
# Each phase waits SETTLE seconds (the EventPipe session starting), then counts WINDOW seconds: the CPU of every process
# in the app namespace (the SUT, perflab's role, the local collector, sshd's session carrying the stream), from /proc
# utime+stime, divided by the requests sent in the window (rate x window). Writes the section
# "## Hosts: what remote counters cost the app host" at the end of docs/benchmarks/hosts.md.
# Before the rounds, the role's collector runs once for WARM seconds (loading TraceEvent, the tiered JIT), as the
# controller's collector has by a run's second run; the local collector is a fresh process in every phase, its
# start-up inside SETTLE, its late re-compiles inside the window: the local arm's figure is, if anything, high.
# Usage (root): bench/hosts/counters-cost.sh [rounds=6] [window seconds=5] [rate=300]; SETTLE=8 WARM=20; SKIP_BUILD=1 uses the
# Release build there; QUIET=1 labels the figures as from a quiet machine (say it only when nothing else runs).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$REPO/bench/hosts/netns.sh"
ROUNDS="${1:-6}"; WINDOW="${2:-5}"; RATE="${3:-300}"; SETTLE="${SETTLE:-8}"; WARM="${WARM:-20}"
(( ROUNDS >= 1 && ROUNDS <= 30 && WINDOW >= 2 && WINDOW <= 60 && RATE >= 10 && RATE <= 5000 && SETTLE <= 30 && WARM <= 60 )) \
  || { echo "rounds 1..30, window 2..60 s, rate 10..5000, SETTLE <= 30, WARM <= 60" >&2; exit 2; }
OUT="${OUT:-$REPO/results/bench/hosts}"   # results/ is git-ignored
mkdir -p "$OUT"
PERFLAB="$REPO/src/PerfLab/bin/Release/net10.0/perflab.dll"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  dotnet build "$REPO/src/PerfLab/PerfLab.csproj" -c Release -v q -nologo >/dev/null
fi
PHASE_MAX=$(( SETTLE + WINDOW + 15 ))        # a phase's most: settle, window, the collector's stop
TOTAL=$(( 20 + WARM + PHASE_MAX + ROUNDS * 3 * PHASE_MAX ))     # every loop and process below is bounded by it

lab_up app
ROLE_IN="$LAB_DIR/role.in"; ROLE_OUT="$LAB_DIR/role.out"
mkfifo "$ROLE_IN"
exec 7<>"$ROLE_IN"   # held open here: the role's input ends (and it stops the SUT) when this script ends
in_ns "$LAB_CTRL" timeout "$TOTAL" ssh -F "$LAB_DIR/ssh_config" app \
  "dotnet $PERFLAB host app --listen ${LAB_ADDR[app]}" <&7 >"$ROLE_OUT" 2>"$LAB_DIR/role.err" &
echo '{"app":"sut","Launch":{"Settings":{},"Environment":{},"ConnectionString":null}}' >&7
for _ in $(seq 1 900); do
  grep -q '^ready ' "$ROLE_OUT" && break
  grep -q '^failed ' "$ROLE_OUT" && { cat "$ROLE_OUT" "$LAB_DIR/role.err" >&2; exit 3; }
  sleep 0.1
done
URL="$(awk '/^ready / { print $2; exit }' "$ROLE_OUT")"
[[ -n "$URL" ]] || { echo "the app role did not answer ready in 90 s:" >&2; cat "$ROLE_OUT" "$LAB_DIR/role.err" >&2; exit 3; }
APP_NS="${LAB_NS[app]}"
pid_of() { # pid_of PATTERN: the app namespace's process whose command line matches
  local pid
  for pid in $(ip netns pids "$APP_NS"); do
    tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "$1" && { echo "$pid"; return 0; }
  done
  return 1
}
SUT_PID="$(pid_of PerfLab.Sut.dll)"
note="Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
note="$note load average before: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$REPO" rev-parse --short HEAD)."

# snapshot: "PID KIND CPU-TICKS" for every process in the app namespace (kind: sut, perflab, sshd, other).
snapshot() {
  local pid cmd
  for pid in $(ip netns pids "$APP_NS" 2>/dev/null); do
    cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || continue
    case "$cmd" in
      *PerfLab.Sut.dll*) kind=sut ;; *perflab.dll*) kind=perflab ;; *sshd*) kind=sshd ;; *) kind=other ;;
    esac
    awk -v p="$pid" -v k="$kind" '{ print p, k, $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true
  done
}

window() { # window ARM ROUND: counts WINDOW seconds, appends "ROUND ARM KIND TICKS" lines to the raw file
  local before="$LAB_DIR/before" after="$LAB_DIR/after"
  snapshot >"$before"; sleep "$WINDOW"; snapshot >"$after"
  kill -0 "$LOAD" 2>/dev/null || { echo "the load ended early:" >&2; tail "$OUT/counters-cost-load.txt" >&2; exit 3; }
  # A process born in the window counts from zero; one gone by its end is left out (none ends inside a window).
  awk -v r="$2" -v a="$1" 'NR == FNR { start[$1] = $3; next } { d[$2] += $3 - start[$1] }
    END { for (k in d) print r, a, k, d[k] }' "$before" "$after" >>"$OUT/counters-cost.raw"
}

remote_counters() { # remote_counters SECONDS: the role's collection started, then SECONDS waited
  echo 'counters {"Interval":"00:00:01","Providers":["System.Runtime","Npgsql"]}' >&7
  sleep "$1"
}

phase() { # phase ARM ROUND
  local arm="$1" r="$2" collector recordings
  case "$arm" in
    none) sleep "$SETTLE"; window "$arm" "$r" ;;
    local)
      in_ns "$APP_NS" timeout "$PHASE_MAX" dotnet "$PERFLAB" counters collect "$SUT_PID" -d "$(( SETTLE + WINDOW + 2 ))s" \
        --counters System.Runtime,Npgsql -o "$LAB_DIR/local.json" >/dev/null 2>&1 &
      collector=$!
      sleep "$SETTLE"; window "$arm" "$r"
      wait "$collector" || { echo "the local collector failed in round $r" >&2; exit 3; } ;;
    remote)
      recordings="$(grep -c '^recording ' "$ROLE_OUT" || true)"
      remote_counters "$SETTLE" && window "$arm" "$r"
      echo 'counters-stop' >&7
      for _ in $(seq 1 150); do
        (( $(grep -c '^recording ' "$ROLE_OUT" || true) > recordings )) && break
        grep -q '^counters-failed ' "$ROLE_OUT" && { grep '^counters-failed ' "$ROLE_OUT" >&2; exit 3; }
        sleep 0.1
      done ;;
  esac
}

: >"$OUT/counters-cost.raw"
# --allow-remote: the target is the app namespace's address, which exists inside this benchmark's namespaces only.
in_ns "$LAB_CTRL" timeout "$TOTAL" dotnet "$PERFLAB" load "$URL/plaintext" -R "$RATE" -c 64 -w 10s -d "$(( TOTAL - 15 ))s" \
  --allow-remote >"$OUT/counters-cost-load.txt" 2>&1 &
LOAD=$!
# The load's warm-up (the SUT's tiering) and the role collector's first collection, not counted.
echo "warming up: the load 10 s, then the role's collector $WARM s" >&2
sleep 10
remote_counters "$WARM"
echo 'counters-stop' >&7
sleep 2
ORDERS=("none local remote" "remote none local" "local remote none" "none remote local" "local none remote" "remote local none")
for r in $(seq 1 "$ROUNDS"); do
  for arm in ${ORDERS[$(( (r - 1) % 6 ))]}; do
    phase "$arm" "$r"
  done
  echo "round $r of $ROUNDS done (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
done
kill "$LOAD" 2>/dev/null || true; wait "$LOAD" 2>/dev/null || true

python3 - "$OUT/counters-cost.raw" "$ROUNDS" "$WINDOW" "$RATE" "$SETTLE" "$(getconf CLK_TCK)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "${QUIET:+quiet}" "$note" >"$OUT/counters-cost.md" <<'PY'
import sys, statistics, math
raw, rounds, window, rate, settle, hz, load, quiet, note = sys.argv[1:10]
window, rate, hz = int(window), int(rate), int(hz)
parts = {}   # (round, arm) -> {kind: CPU seconds}
for line in open(raw):
    r, arm, kind, ticks = line.split()
    parts.setdefault((int(r), arm), {})[kind] = int(ticks) / hz
requests = rate * window
def us(r, arm, kinds=None):
    p = parts[(r, arm)]
    return 1e6 * sum(v for k, v in p.items() if kinds is None or k in kinds) / requests
rs = sorted({r for r, _ in parts})
print("## Hosts: what remote counters cost the app host")
print()
print(f"Command: `bench/hosts/counters-cost.sh {rounds} {window} {rate}` (SETTLE={settle}) — the built-in SUT on an app host")
print("(a network namespace with its own sshd), started there by perflab's app role over ssh; `perflab load` at a fixed")
print(f"{rate} requests/s of /plaintext from the controller's namespace throughout. Arms, in rounds rotating through all six")
print("orders: *none*; *local*: `perflab counters collect` on the app host (System.Runtime and Npgsql, as `perflab run`")
print("reads), a fresh process each phase; *remote*: the same counters read by the app role (its collector warmed once")
print("before the rounds) and streamed back over its ssh session, one `sample` JSON line a second.")
print(f"After {settle} s for the session to start, each window counts {window} s of CPU (utime+stime from /proc) of every")
print("process on the app host: the SUT, perflab's role and collector, sshd. Per request = CPU / (rate x window).")
print()
print(("Quiet machine. " if quiet else "**Busy machine** (shared with other jobs).") + "\n" + note + f" Load average at the end: {load}.")
print()
print("| round | none: µs/request | local: µs/request | remote: µs/request | remote vs local | local: perflab µs "
      "| remote: perflab + sshd µs |")
print("|---|---|---|---|---|---|---|")
ratios = []
for r in rs:
    n, l, m = us(r, "none"), us(r, "local"), us(r, "remote")
    ratios.append(m / l - 1)
    print(f"| {r} | {n:.1f} | {l:.1f} | {m:.1f} | {m / l - 1:+.1%} | {us(r, 'local', {'perflab'}):.1f} "
          f"| {us(r, 'remote', {'perflab', 'sshd'}):.1f} |")
print()
logs = [math.log(1 + x) for x in ratios]
n = len(logs)
mean = sum(logs) / n
half = (2.571 if n == 6 else 1.96 + 2.4 / max(n - 1, 1)) * (statistics.stdev(logs) / math.sqrt(n) if n > 1 else float("inf"))
lo, mid, hi = (math.exp(x) - 1 for x in (mean - half, mean, mean + half))
print(f"- Remote counters against the local collector, the app host's CPU per request: {mid:+.1%} (geometric mean of {n}")
print(f"  rounds; 95 % interval {lo:+.1%} .. {hi:+.1%}; rounds ranged {min(ratios):+.1%} .. {max(ratios):+.1%}). Target: within 1 %:")
print("  " + ("**holds**." if hi <= 0.01 else "**does not hold**." if lo > 0.01 else
    f"**no verdict**: the interval is wider than the 1 % to tell apart (load average {load});\n  more rounds or a quieter "
    "machine would settle it" + (", though remote costs no more than local on this estimate." if mid <= 0.01 else ".")))
for arm in ("none", "local", "remote"):
    sut = statistics.median(us(r, arm, {"sut"}) for r in rs)
    ours = statistics.median(us(r, arm, {"perflab"}) for r in rs)
    ssh = statistics.median(us(r, arm, {"sshd"}) for r in rs)
    print(f"- {arm}: median per request: SUT {sut:.1f} µs, perflab's processes {ours:.1f} µs, sshd {ssh:.1f} µs.")
PY
cat "$OUT/counters-cost.md"
python3 - "$REPO/docs/benchmarks/hosts.md" "$OUT/counters-cost.md" <<'PY'
import re, sys
doc_path, block_path = sys.argv[1:3]
block = open(block_path).read().strip() + "\n"
doc = open(doc_path).read()
title = block.splitlines()[0]
doc = re.sub(r"^" + re.escape(title) + r"\n.*?(?=^## |\Z)", "", doc, flags=re.S | re.M).rstrip("\n")
open(doc_path, "w").write(doc + "\n\n" + block)
PY
