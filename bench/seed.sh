#!/usr/bin/env bash
# Measures a full `perflab db seed` (504 products, 31,465 orders, 121,317 lines) on a private, throw-away cluster.
# Usage: bench/seed.sh [runs]   (default 5). Never touches perflab's default data folder.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}

dotnet build src/PerfLab -c Release -v quiet -nologo >/dev/null
perflab() { dotnet src/PerfLab/bin/Release/net10.0/perflab.dll "$@"; }

work=$(mktemp -d /tmp/perflab-seed-bench.XXXXXX)
chmod 755 "$work"   # as root, PostgreSQL runs as the postgres user, which must reach the data folder
export PERFLAB_DATA_DIR="$work/pg"
cleanup() { perflab db stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

perflab db start >/dev/null
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "postgres: $(perflab db status --json | sed -n 's/.*"postgresVersion": "\(.*\)".*/\1/p')"
times=()
for i in $(seq 1 "$runs"); do
    # reset = DROP DATABASE + CREATE DATABASE + schema + generate + binary COPY of all rows + VACUUM ANALYZE.
    start=$(date +%s.%N)
    perflab db reset >/dev/null
    end=$(date +%s.%N)
    t=$(LC_ALL=C awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    times+=("$t")
    echo "run $i: ${t} s"
done
printf '%s\n' "${times[@]}" | LC_ALL=C sort -n | LC_ALL=C awk '
    { v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                         printf "seed wall time over %d runs: median %.2f s, min %.2f s, max %.2f s\n", NR, m, v[1], v[NR] }'
perflab db status | grep -E '^(schema|rows)'
