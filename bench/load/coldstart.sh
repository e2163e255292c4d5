#!/usr/bin/env bash
# Cold start: `perflab load` with no warm-up against wrk on the 150 ms delay endpoint, alternated PAIRS times.
# Usage: bench/load/coldstart.sh [PAIRS]   (default 5); prints one row per pair: wrk's mean and p99, perflab's.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PAIRS="${1:-5}"
"$REPO/perflab" sut start --urls http://127.0.0.1:5055 >/dev/null
trap '"$REPO/perflab" sut stop >/dev/null' EXIT
U='http://127.0.0.1:5055/weatherforecast-async?ms=150'
echo "| pair | wrk mean (ms) | perflab mean (ms) | wrk p99 (ms) | perflab p99 (ms) |"
echo "|---|---|---|---|---|"
for i in $(seq 1 "$PAIRS"); do
  read -r wmean wp99 < <(wrk -t2 -c10 -d10s --latency "$U" | awk '/Latency  /{m=$2} / 99%/{p=$2} END{sub("ms","",m); sub("ms","",p); print m, p}')
  read -r pmean pp99 < <("$REPO/perflab" load "$U" -c 10 -d 10s --json 2>/dev/null \
    | python3 -c 'import json,sys; s=json.load(sys.stdin)["scenarios"][0]["latency"]; print("%.2f %.2f" % (s["meanMs"], s["p99Ms"]))')
  echo "| $i | $wmean | $pmean | $wp99 | $pp99 |"
done
