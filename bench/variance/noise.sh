#!/usr/bin/env bash
# The noise of three database-bound experiments taken apart: for each setting given as LABEL=PERFLAB-RUN-OPTIONS,
# one `perflab run` of serializer, sync-async and gc, then one table row per experiment from results.json's "noise".
# Usage: bench/variance/noise.sh 'before=--profile quick --repeat 3 --warmup 2s --duration 6s' 'after=--profile quick'
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$REPO/results/bench/variance}"   # results/ is git-ignored
EXPERIMENTS="${EXPERIMENTS:-serializer sync-async gc}"
mkdir -p "$OUT"
folders=()
for setting in "$@"; do
  label="${setting%%=*}"
  options="${setting#*=}"
  dir="$OUT/$label-$(date -u +%Y%m%dT%H%M%S)"
  # shellcheck disable=SC2086 # the options are words on purpose
  "$REPO/perflab" run $EXPERIMENTS $options --out "$dir" >"$dir.log" 2>&1 || echo "perflab run for '$label' exited $? (see $dir.log)" >&2
  folders+=("$label=$dir")
done
python3 "$REPO/bench/variance/table.py" "${folders[@]}"
