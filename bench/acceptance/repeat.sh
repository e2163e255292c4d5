#!/usr/bin/env bash
# Runs bench/acceptance/orders.yaml N times as separate `perflab run` invocations and counts the verdicts.
# Usage: [EXTRA=µs] bench/acceptance/repeat.sh N LABEL [more perflab run options...]
#   A/A:      bench/acceptance/repeat.sh 10 aa --aa --no-trace
#   slowdown: EXTRA=300 bench/acceptance/repeat.sh 10 slow --no-trace
# EXTRA is the CPU spun per request by the "slowed" variant (Sut:ExtraWorkMicroseconds), 0 by default.
# Each invocation is bounded by RUN_TIMEOUT (default 30m): then Ctrl+C (SIGINT), which ends it with what it measured.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$REPO/results/bench/acceptance}"   # results/ is git-ignored
count="$1"; label="$2"; shift 2
mkdir -p "$OUT/exp-$label"
sed "s/__EXTRA__/${EXTRA:-0}/" "$REPO/bench/acceptance/orders.yaml" > "$OUT/exp-$label/orders.yaml"
folders=()
for i in $(seq 1 "$count"); do
  dir="$OUT/$label-$i-$(date -u +%Y%m%dT%H%M%S)"
  timeout --signal=INT --kill-after=60s "${RUN_TIMEOUT:-30m}" "$REPO/perflab" run orders --experiments-dir "$OUT/exp-$label" "$@" --out "$dir" >"$dir.log" 2>&1 \
    || echo "run $i exited $? (see $dir.log)" >&2
  folders+=("$dir")
done
python3 "$REPO/bench/acceptance/verdicts.py" "${folders[@]}"
