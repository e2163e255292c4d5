#!/usr/bin/env bash
# Merged latency from 1, 2 and 4 generators: the built-in SUT's 150 ms delay endpoint in an app namespace, an open model
# at RATE req/s sent by `perflab load --hosts` from 1, 2 or 4 generator namespaces (each its share of the schedule, their
# HdrHistogram interval logs added), the controller in a namespace of its own. Prints mean/p50/p99/RPS of each, their
# differences from the single generator (target: mean within 0.5 ms, p99 within 2 ms, RPS within 2 %), and the CPU of
# the controller (user+sys of its process), of each generator (its own figure over its window) and of the app (/proc).
# Usage (root): bench/hosts/merged-latency.sh [seconds=10] [rate=200] [rounds=1]; SKIP_BUILD=1 uses the Release build there;
# QUIET=1 labels the figures as from a quiet machine (say it only when nothing else runs).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$REPO/bench/hosts/netns.sh"
D="${1:-10}"; RATE="${2:-200}"; ROUNDS="${3:-1}"; WARMUP="${WARMUP:-3}"
(( D >= 1 && D <= 120 && ROUNDS >= 1 && ROUNDS <= 5 )) || { echo "seconds 1..120, rounds 1..5" >&2; exit 2; }
OUT="${OUT:-$REPO/results/bench/hosts}"   # results/ is git-ignored
mkdir -p "$OUT"
PERFLAB="$REPO/src/PerfLab/bin/Release/net10.0/perflab.dll"
SUT="$REPO/src/PerfLab.Sut/bin/Release/net10.0/PerfLab.Sut.dll"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  dotnet build "$REPO/src/PerfLab/PerfLab.csproj" -c Release -v q -nologo >/dev/null
fi

lab_up app gen-1 gen-2 gen-3 gen-4
in_ns "${LAB_NS[app]}" dotnet "$SUT" --urls "http://${LAB_ADDR[app]}:5000" >"$OUT/sut.log" 2>&1 &
STARTER=$!
for _ in $(seq 1 300); do
  grep -q "listening on" "$OUT/sut.log" && break
  kill -0 "$STARTER" 2>/dev/null || { echo "the SUT exited:" >&2; cat "$OUT/sut.log" >&2; exit 3; }
  sleep 0.1
done
# The SUT's own process (the background job is the shell that started it): its CPU is read from /proc.
SUT_PID="$(pgrep -f "PerfLab.Sut.dll --urls http://${LAB_ADDR[app]}:5000" | head -1)"
URL="http://${LAB_ADDR[app]}:5000/weatherforecast-async?ms=150"
note="Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
note="$note load average before: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$REPO" rev-parse --short HEAD)."

run_one() { # run_one N ROUND: N generators; writes $OUT/n$N-r$ROUND.json and prints "controller-cpu app-cpu"
  local n="$1" r="$2" file="$LAB_DIR/hosts-$1.yaml" gens app0 app1 tf
  gens="$(seq -s ', ' -f 'gen-%g' 1 "$n")"
  printf 'ssh-config: ./ssh_config\napp: app\nload: [%s]\n' "$gens" >"$file"
  tf="$(mktemp)"
  app0="$(cpu_seconds "$SUT_PID")"
  in_ns "$LAB_CTRL" /usr/bin/time -f "%U %S" -o "$tf" timeout $(( D + WARMUP + 120 )) \
    dotnet "$PERFLAB" load "$URL" -R "$RATE" -c 128 -w "${WARMUP}s" -d "${D}s" --json --hosts "$file" \
    >"$OUT/n$n-r$r.json" 2>"$OUT/n$n-r$r.err"
  app1="$(cpu_seconds "$SUT_PID")"
  echo "$(awk '{ printf "%.2f", $1 + $2 }' "$tf") $(awk -v a="$app0" -v b="$app1" 'BEGIN { printf "%.2f", b - a }')"
  rm -f "$tf"
}

declare -A CPU
for r in $(seq 1 "$ROUNDS"); do
  for n in 1 2 4; do
    CPU[$n-$r]="$(run_one "$n" "$r")"
  done
done

# row N ROUND CONTROLLER-CPU APP-CPU: one table row, the differences against the single generator of the same round
row() {
  jq -rn --slurpfile a "$OUT/n$1-r$2.json" --slurpfile b "$OUT/n1-r$2.json" --arg n "$1" --arg r "$2" --arg c "$3" --arg app "$4" '
    def s(x): x.merged.scenarios[0]; def r2: . * 100 | round / 100;
    s($a[0]) as $m | s($b[0]) as $one
    | "| \($n) | \($r) | \($m.requestsPerSecond | r2) | \($m.latency.meanMs | r2) | \($m.latency.p50Ms | r2) | "
      + "\($m.latency.p99Ms | r2) | \($m.latency.meanMs - $one.latency.meanMs | r2) | \($m.latency.p99Ms - $one.latency.p99Ms | r2) | "
      + "\(($m.requestsPerSecond / $one.requestsPerSecond - 1) * 100 | r2) | \($c) | \($app) | "
      + "\([$a[0].generators[] | "\(.host) \(.coresUsed | r2)"] | join(", ")) |"'
}
{
  echo "### Hosts: merged latency"
  echo
  echo "\`bench/hosts/merged-latency.sh $D $RATE $ROUNDS\`: \`perflab load --hosts\` at $RATE req/s (open model, at most 128"
  echo "in flight) on the SUT's \`/weatherforecast-async?ms=150\` in an app namespace, ${WARMUP} s warm-up and ${D} s measured,"
  echo "from 1, 2 and 4 generator namespaces (controller in a fifth); every namespace shares this machine's cores."
  if [[ -n "${QUIET:-}" ]]; then
    echo "**Quiet machine** (nothing else running, as the operator said with QUIET=1). $note"
  else
    echo "**Busy machine** (or not said to be quiet: QUIET=1): the figures show the merge, not a quiet lab. $note"
  fi
  echo
  printf '%s' "| generators | round | RPS | mean ms | p50 ms | p99 ms | Δmean ms | Δp99 ms | ΔRPS % | controller CPU s "
  echo "| app CPU s | each generator's CPU (cores) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for r in $(seq 1 "$ROUNDS"); do
    for n in 1 2 4; do
      read -r ctrl app <<<"${CPU[$n-$r]}"
      row "$n" "$r" "$ctrl" "$app"
    done
  done
  echo
  echo "Not measured here: what the app host pays for remote counters against the local collector (left for a quiet machine)."
} >"$OUT/merged-latency.md"
cat "$OUT/merged-latency.md"
