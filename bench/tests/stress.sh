#!/usr/bin/env bash
# Runs a test filter of PerfLab.Tests beside two bounded busy loops (one per core, nice 0): a busy CI host, on purpose.
# Usage: bench/tests/stress.sh SECONDS FILTER   (build first: dotnet build tests/PerfLab.Tests)
# The loops end after SECONDS whatever happens, and are stopped by their own pids when the tests end.
set -u
seconds=${1:?seconds the busy loops may run}; filter=${2:?a dotnet test --filter expression}
cd "$(dirname "$0")/../.."
timeout "$seconds" sh -c 'while :; do :; done' & first=$!
timeout "$seconds" sh -c 'while :; do :; done' & second=$!
echo "busy loops $first $second; $(uptime)"
dotnet test tests/PerfLab.Tests --no-build --filter "$filter" --logger trx --results-directory TestResults/stress
status=$?
kill "$first" "$second" 2>/dev/null
wait "$first" "$second" 2>/dev/null
echo "$(uptime)"
exit "$status"
