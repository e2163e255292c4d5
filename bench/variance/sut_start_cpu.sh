#!/usr/bin/env bash
# The CPU a fresh SUT uses before it has served its first pages: started on perflab's cluster (`./perflab db start`
# first) with the environment given, its /proc/PID/stat read once /info answers and again after an order, an order page
# and /json. docs/benchmarks/duty-cycle.md ("Tiering on without PGO") and tests.md (a ReadyToRun SUT).
#   bench/variance/sut_start_cpu.sh [--dll PATH] [NAME=VALUE...]
#   e.g. bench/variance/sut_start_cpu.sh DOTNET_TieredCompilation=0 DOTNET_ReadyToRun=0
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dll="$root/src/PerfLab.Sut/bin/Release/net10.0/PerfLab.Sut.dll"
if [ "${1:-}" = "--dll" ]; then dll="$2"; shift 2; fi
port=5077
pg_port=$(python3 -c 'import json; print(json.load(open("/var/tmp/perflab/postgres/perflab.json"))["port"])')
env "$@" ConnectionStrings__AdventureWorks="Host=127.0.0.1;Port=$pg_port;Username=perflab;Database=adventureworks" \
    dotnet "$dll" --urls "http://127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/info" >/dev/null && break; sleep 0.05; done
cpu() { awk '{printf "%.2f", ($14+$15)/100}' "/proc/$pid/stat"; }
at_info=$(cpu)
for p in /customer/orders/11000 '/customer/orders?pageNumber=1&pageSize=100' /json; do
    curl -s -o /dev/null "http://127.0.0.1:$port$p"
done
echo "${*:-defaults}: $at_info CPU-s at /info, $(cpu) CPU-s after three pages"
