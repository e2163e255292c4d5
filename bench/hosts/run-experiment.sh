#!/usr/bin/env bash
# An experiment over four namespace hosts, as on real machines: the built-in SUT on "app", PostgreSQL on "db", the load
# from "gen-1" and "gen-2", perflab as the controller in a fifth namespace. Prints perflab's output, then which
# processes ran in which namespace while it ran (sampled once a second), and leaves the results in $OUT/run.
# Usage (root): bench/hosts/run-experiment.sh [experiment=sync-async] [profile=smoke]; SKIP_BUILD=1 uses the build there;
# PERFLAB_ARGS adds options to the run (e.g. PERFLAB_ARGS="--trace --keep-traces": traces taken on the app host).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$REPO/bench/hosts/netns.sh"
EXPERIMENT="${1:-sync-async}"; PROFILE="${2:-smoke}"
OUT="${OUT:-$REPO/results/bench/hosts}"   # results/ is git-ignored
mkdir -p "$OUT"; rm -rf "$OUT/run"
PERFLAB="$REPO/src/PerfLab/bin/Release/net10.0/perflab.dll"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  dotnet build "$REPO/src/PerfLab/PerfLab.csproj" -c Release -v q -nologo >/dev/null
fi

lab_up app db gen-1 gen-2
printf 'ssh-config: ./ssh_config\napp: app\ndb: db\nload: [gen-1, gen-2]\n' >"$LAB_DIR/hosts.yaml"
: >"$OUT/where.txt"
watch_roles() { # which of perflab's processes run in each host namespace, once a second (bounded by the run)
  local name pid
  while true; do
    for name in app db gen-1 gen-2; do
      for pid in $(ip netns pids "${LAB_NS[$name]}" 2>/dev/null); do
        # A process gone between the listing and the read is skipped quietly (2>/dev/null before the < is opened).
        echo "$name $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-120)"
      done
    done >>"$OUT/where.txt"
    sleep 1
  done
}
watch_roles &
WATCH=$!
set +e
in_ns "$LAB_CTRL" timeout 1800 dotnet "$PERFLAB" run "$EXPERIMENT" --profile "$PROFILE" --hosts "$LAB_DIR/hosts.yaml" \
  --out "$OUT/run" ${PERFLAB_ARGS:-} 2>&1 | tee "$OUT/run.log"
code=${PIPESTATUS[0]}
set -e
kill "$WATCH"; wait "$WATCH" 2>/dev/null || true
echo "exit code $code"
echo "processes seen per host (perflab's roles, the SUT, PostgreSQL):"
awk '$2 !~ /sshd/ {
  what = $2; sub(".*/", "", what)
  if (match($0, /perflab\.dll host [a-z]+/)) what = substr($0, RSTART, RLENGTH)
  else if ($0 ~ /PerfLab\.Sut/) what = "the SUT (PerfLab.Sut.dll)"
  else if ($0 ~ /postgres/) what = "postgres"
  print $1 ": " what }' "$OUT/where.txt" | sort | uniq -c
