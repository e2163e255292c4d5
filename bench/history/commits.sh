#!/usr/bin/env bash
# Issue 49's by-hand check: real runs of one experiment over the commits of a scratch git repository, one of which
# injects a CPU cost, added to a history; `perflab history show` must name that commit as the change point.
#
# The scratch repository (under /tmp) holds one experiment file, `commits.yaml`: the built-in SUT's /json endpoint
# under 4 closed-model users, two variants, `plain` and `app`. Each of its COMMITS commits changes the file; from
# commit INJECT on, `app` sets the SUT's extra-work switch (ExtraWorkMicroseconds: EXTRA_US), so every request spins
# that much CPU first (src/PerfLab.Sut/Hosting/ExtraWork.cs). `plain` never changes: its series is the control.
# Each commit is checked out and run with `perflab run --history H --commit HEAD`, so the history records the scratch
# repository's commit (results.json records perflab's own). The commits are run out of order (1, 5, 2, 6, ...), so
# that start time and git order differ: `history show`, run inside the repository, orders the runs by git; run outside
# it, by start time (and says so).
# Usage: PERFLAB_CACHE_DIR=/var/tmp/perflab-history bench/history/commits.sh
#   PROFILE=smoke|quick (default smoke), EXTRA_US=50, COMMITS=8, INJECT=5, WORK=/tmp/... (default: a new folder),
#   PERFLAB=command (default: this checkout's ./perflab; a copied build keeps a rebuild out of the runs).
#   A WORK folder that already holds the scratch repository is not measured again: only the history is shown.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PERFLAB="${PERFLAB:-$REPO/perflab}"
PROFILE="${PROFILE:-smoke}"
EXTRA_US="${EXTRA_US:-50}"
COMMITS="${COMMITS:-8}"
INJECT="${INJECT:-5}"
WORK="${WORK:-$(mktemp -d /tmp/perflab-history-commits.XXXXXX)}"
SCRATCH="$WORK/repo"
HISTORY="$WORK/history.db"
git() { command git -C "$SCRATCH" -c user.name=bench -c user.email=bench@localhost "$@"; }
measured=""
if [ -d "$SCRATCH/.git" ]; then measured=1; else command git init -q "$SCRATCH"; fi
for i in $(seq 1 "$COMMITS"); do
    if [ -n "$measured" ]; then break; fi
    extra=0
    if [ "$i" -ge "$INJECT" ]; then extra="$EXTRA_US"; fi
    cat > "$SCRATCH/commits.yaml" <<YAML
# Revision $i of the scratch experiment (bench/history/commits.sh): app spins ${extra} us of CPU per request.
name: commits
title: One experiment over commits, revision $i
seed: "000"
reproduces: "none: the history's by-hand check (issue 49)"
baseline: plain
decide: cost
variants:
  - name: plain
  - name: app
    settings: { ExtraWorkMicroseconds: $extra }
load:
  scenarios:
    - name: json
      url: /json
      model: closed
      users: 4
profiles:
  smoke: { warmup: 2s, duration: 4s, repeat: 1 }
  quick: { warmup: 10s, steady: true, duration: 6s, slots: 3, repeat: 3, precision: 5%, max-repeat: 6 }
YAML
    git add commits.yaml
    git commit -q -m "revision $i (app: ${extra} us of CPU per request)"
done
mapfile -t shas < <(git rev-list --reverse HEAD)
order=()
half=$(( (COMMITS + 1) / 2 ))
for i in $(seq 1 "$half"); do
    order+=("$i")
    if [ $(( i + half )) -le "$COMMITS" ]; then order+=($(( i + half ))); fi
done
echo "scratch repository $SCRATCH: ${#shas[@]} commits; the cost ($EXTRA_US us) from commit $INJECT, ${shas[$((INJECT - 1))]:0:7}"
echo "run order: ${order[*]}; profile $PROFILE; history $HISTORY; $(uptime)"
for i in "${order[@]}"; do
    if [ -n "$measured" ]; then break; fi
    git checkout -q "${shas[$((i - 1))]}"
    start=$(date +%s)
    (cd "$SCRATCH" && "$PERFLAB" run commits --experiments-dir . --profile "$PROFILE" --no-trace --history "$HISTORY" --commit HEAD \
        -o "$WORK/run-$i" > "$WORK/run-$i.log" 2>&1)
    echo "commit $i (${shas[$((i - 1))]:0:7}): $(( $(date +%s) - start )) s, $(grep '^history:' "$WORK/run-$i.log")"
done
git checkout -q "${shas[$((COMMITS - 1))]}"
# history show exits 5 when the newest run reveals a change point for the worse: here, the expected answer.
show() { local dir="$1"; shift; (cd "$dir" && "$PERFLAB" history show commits --metric cost --history "$HISTORY" "$@") || [ $? -eq 5 ]; }
echo "--- history show inside the scratch repository (git order):"
show "$SCRATCH" | tee "$WORK/show-git.txt"
show "$SCRATCH" --json > "$WORK/show-git.json"
echo "--- history show outside it (start-time order):"
show "$WORK" | tee "$WORK/show-time.txt"
expected="${shas[$((INJECT - 1))]:0:12}"
named=$(jq -r '.series[] | select(.variant == "app") | .changePoints[] | .toCommit' "$WORK/show-git.json")
control=$(jq -r '[.series[] | select(.variant == "plain") | .changePoints[]] | length' "$WORK/show-git.json")
echo "expected change point: ..${expected:0:7}; app's change points end at: ${named:-none}; plain's change points: $control"
if [ "$named" = "$expected" ]; then echo "PASS: the change point names commit $INJECT"; else echo "FAIL"; exit 1; fi
