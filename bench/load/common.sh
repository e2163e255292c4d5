# Shared by the load-engine proof scripts: build, start the SUT pinned to a core, wait for its readiness line,
# stop it on exit. Source it; do not run it.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RESULTS="$REPO/bench/load/results"
PORT="${PORT:-5099}"
BASE="http://127.0.0.1:$PORT"
SERVER_CORE="${SERVER_CORE:-0}"
CLIENT_CORE="${CLIENT_CORE:-1}"
PERFLAB="${PERFLAB:-$REPO/src/PerfLab/bin/Release/net10.0/perflab.dll}"
# perflab as ./perflab starts it: with the runtime's usual tiering delay where it sees one core (pinned), instead of 10x
# that (src/PerfLab/Common/ChildEnvironment.cs). TIERING_MULTIPLIER=10 gives the runtime's default, as before.
PERFLAB_CMD=(env "DOTNET_TC_DelaySingleProcMultiplier=${TIERING_MULTIPLIER:-1}" dotnet "$PERFLAB")
SUT="$REPO/src/PerfLab.Sut/bin/Release/net10.0/PerfLab.Sut.dll"
SUT_PID=""
mkdir -p "$RESULTS"

build() {
  [[ -n "${SKIP_BUILD:-}" ]] && return 0 # SKIP_BUILD=1: use the Release build already there
  dotnet build "$REPO/src/PerfLab/PerfLab.csproj" -c Release -v q -nologo >/dev/null
}

start_sut() {
  local log="$RESULTS/sut.log"
  taskset -c "$SERVER_CORE" dotnet "$SUT" --urls "$BASE" >"$log" 2>&1 &
  SUT_PID=$!
  trap stop_sut EXIT
  for _ in $(seq 1 300); do
    if grep -q "perflab-sut: listening on" "$log"; then return 0; fi
    if ! kill -0 "$SUT_PID" 2>/dev/null; then echo "SUT exited:" >&2; cat "$log" >&2; exit 3; fi
    sleep 0.1
  done
  echo "SUT did not announce readiness within 30 s" >&2; exit 3
}

stop_sut() {
  if [[ -n "$SUT_PID" ]] && kill -0 "$SUT_PID" 2>/dev/null; then
    kill -CONT "$SUT_PID" 2>/dev/null || true
    kill "$SUT_PID" 2>/dev/null || true
    wait "$SUT_PID" 2>/dev/null || true
  fi
  SUT_PID=""
}

# Runs a command pinned to the client core; prints its output, then "cpu <user+sys seconds>" to the millisecond: bash's
# time over the child's rusage, whose user + sys sum the kernel keeps to the nanosecond (/usr/bin/time prints 10 ms).
pinned_timed() {
  local tf TIMEFORMAT='%3U %3S'; tf="$(mktemp)"
  # The command's own stderr goes to ours (fd 3); time's report alone to the file.
  { time taskset -c "$CLIENT_CORE" "$@" 2>&3; } 3>&2 2>"$tf"
  awk '{ printf "cpu %.3f\n", $1 + $2 }' "$tf"
  rm -f "$tf"
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

machine_note() {
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average before the run: $(cut -d' ' -f1-3 /proc/loadavg); .NET $(dotnet --version); commit $(git -C "$REPO" rev-parse --short HEAD)."
}

# The preamble of the generator profiles (profile.sh, syscalls.sh): TOOL present (else name its Debian PACKAGE, exit 3),
# perflab built, the SUT started and its JIT warmed by wrk.
profile_preamble() {
  command -v "$1" >/dev/null || { echo "$1 is not installed (apt-get install -y $2)" >&2; exit 3; }
  build
  start_sut
  taskset -c "$CLIENT_CORE" wrk -t1 -c "$C" -d 5s "$BASE$EP" >/dev/null # the SUT's JIT, first
}

# Waits (at most 30 s) for the first connection to the SUT, then SETTLE seconds (default 3). perflab connects only
# after its priming, which takes seconds of start-up and JIT on one core (longer on a busy machine): a fixed time from
# its start would measure its priming; counted from its first connection, 3 s is past its 2 s warm-up.
wait_connected_settled() {
  for _ in $(seq 1 300); do
    [[ "$(ss -Htn state established "( dport = :$PORT )" | wc -l)" -gt 0 ]] && break
    sleep 0.1
  done
  sleep "${SETTLE:-3}"
}

# Starts "$@" pinned to the generator's core in the background; PINNED_PID is its pid, once settled (above).
start_pinned_settled() {
  taskset -c "$CLIENT_CORE" "$@" >/dev/null 2>&1 &
  PINNED_PID=$!
  wait_connected_settled
}
