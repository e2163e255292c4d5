#!/usr/bin/env bash
# The acceptance campaign on cost per request: A/A and injected-cost invocations of orders.yaml, interleaved (two A/A
# for one slowed), until N_AA and N_SLOW are done or the clock passes STOP_AT, then the verdicts counted for each.
# Usage: [EXTRA=µs] [STOP_AT=epoch-seconds] [N_AA=20] [N_SLOW=10] bench/acceptance/campaign.sh [more perflab run options...]
#   e.g. STOP_AT=$(date -d 11:25 +%s) bench/acceptance/campaign.sh --no-trace
# Without EXTRA, the first A/A invocation measures it: 5 % of the plain variant's median CPU per request (app and
# PostgreSQL backends, cost.msPerRequest of its runs), rounded to whole microseconds. No invocation starts after STOP_AT.
# The A/A invocations grow this machine's A/A record (aa-spread.json in PERFLAB_CACHE_DIR), which sets the slowed ones'
# floor: start from a cache without one, so that floor_verdicts.py's replay of the floor is the one perflab applied.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$REPO/results/bench/acceptance}"
stop_at="${STOP_AT:-$(( $(date +%s) + 3600 ))}"
n_aa="${N_AA:-20}"; n_slow="${N_SLOW:-10}"
aa=0; slow=0
run_aa() { aa=$((aa + 1)); "$REPO/bench/acceptance/repeat.sh" 1 aa "$@" --aa > "$OUT/aa-$aa.txt" || true; }
mkdir -p "$OUT"
if [ -z "${EXTRA:-}" ]; then
  run_aa "$@"
  EXTRA=$(python3 - "$OUT" <<'EOF'
import glob, json, sys
costs = sorted(r["cost"]["msPerRequest"] for f in glob.glob(f"{sys.argv[1]}/aa-1-*/results.json")
               for e in json.load(open(f))["experiments"] for r in e["runs"] if r.get("cost") and r["status"].lower() == "ok")
print(round(costs[len(costs) // 2] * 1000 * 0.05) if costs else 0)
EOF
)
  echo "EXTRA=$EXTRA µs (5 % of the first A/A invocation's median CPU per request)" | tee "$OUT/extra.txt"
fi
[ "$EXTRA" -gt 0 ] || { echo "no CPU per request measured: set EXTRA" >&2; exit 3; }
turn=0
while [ "$(date +%s)" -lt "$stop_at" ] && { [ "$aa" -lt "$n_aa" ] || [ "$slow" -lt "$n_slow" ]; }; do
  turn=$((turn + 1))
  if { [ $((turn % 3)) -eq 1 ] && [ "$slow" -lt "$n_slow" ]; } || [ "$aa" -ge "$n_aa" ]; then
    slow=$((slow + 1))
    EXTRA="$EXTRA" "$REPO/bench/acceptance/repeat.sh" 1 "slow$EXTRA" "$@" > "$OUT/slow-$slow.txt" || true
  else
    run_aa "$@"
  fi
done
echo "## A/A ($aa invocations), each as --aa judges itself: against zero, its job being to record the spread"
python3 "$REPO/bench/acceptance/verdicts.py" "$OUT"/aa-[0-9]*-*[0-9]
echo "## $EXTRA µs of CPU per request ($slow invocations)"
python3 "$REPO/bench/acceptance/verdicts.py" "$OUT"/slow"$EXTRA"-[0-9]*-*[0-9]
echo "## Judged as a user's comparison is, with the floor this machine's A/A record gave at each invocation"
python3 "$REPO/bench/acceptance/floor_verdicts.py" "$OUT"
