#!/usr/bin/env bash
# What perflab's own PostgreSQL looks like before, during and after each of a few `perflab run` invocations: buffer
# hits and reads of the lab's database, dead tuples, autovacuum and autoanalyze on the lab's tables (and whether their
# statistics changed), checkpoints, backends connected, and how many of the lab's pages shared buffers hold.
# One sample before each run, one every INTERVAL seconds while it runs, one after; then a table per invocation.
# Usage: RUNS=3 bench/variance/dbstate.sh PERFLAB-RUN-ARGUMENTS...
#   PERFLAB_CACHE_DIR=/var/tmp/perflab-dbstate RUNS=3 bench/variance/dbstate.sh pair --experiments-dir bench/variance/dbstate --no-trace
# RESTART=1 stops the cluster before each invocation (as a reboot would; the run starts it again).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${RUNS:-3}"
INTERVAL="${INTERVAL:-5}"
OUT="${OUT:-$REPO/results/bench/dbstate-$(date -u +%Y%m%dT%H%M%S)}"   # results/ is git-ignored
PSQL="${PSQL:-$(command -v psql || ls /usr/lib/postgresql/*/bin/psql | tail -n 1)}"
if [ -n "${PERFLAB_CACHE_DIR:-}" ]; then CACHE="$PERFLAB_CACHE_DIR"
elif [ "$(id -u)" = 0 ]; then CACHE=/var/tmp/perflab
else CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/perflab"; fi
DATA="${PERFLAB_DATA_DIR:-$CACHE/postgres}"
mkdir -p "$OUT"
SAMPLES="$OUT/samples.tsv"

LAB="n.nspname IN ('Sales', 'Production')"
read -r -d '' SAMPLE <<SQL || true
SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), d.blks_hit, d.blks_read,
  t.dead, t.modified, t.autovacuums, t.autoanalyzes, coalesce(t.last_autovacuum, '-'), coalesce(t.last_autoanalyze, '-'),
  (SELECT left(md5(string_agg(concat_ws(',', s.tablename, s.attname, s.null_frac, s.n_distinct, s.most_common_vals,
     s.histogram_bounds), ';' ORDER BY s.tablename, s.attname)), 8) FROM pg_stats s WHERE s.schemaname IN ('Sales', 'Production')),
  b.checkpoints_timed, b.checkpoints_req, b.buffers_checkpoint, b.buffers_backend,
  (SELECT count(*) FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()),
  (SELECT count(*) FROM pg_buffercache bc JOIN pg_class c ON bc.relfilenode = pg_relation_filenode(c.oid)
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE bc.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND bc.relforknumber = 0 AND $LAB),
  (SELECT sum(pg_relation_size(c.oid)) / current_setting('block_size')::int FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'i') AND $LAB)
FROM pg_stat_database d, pg_stat_bgwriter b,
  (SELECT sum(n_dead_tup) dead, sum(n_mod_since_analyze) modified, sum(autovacuum_count) autovacuums,
     sum(autoanalyze_count) autoanalyzes, max(last_autovacuum)::text last_autovacuum, max(last_autoanalyze)::text last_autoanalyze
   FROM pg_stat_user_tables WHERE schemaname IN ('Sales', 'Production')) t
WHERE d.datname = current_database()
SQL

sample() { # $1: run number, $2: when (before, during, after)
  local port
  port="$(grep -o '[0-9]\+' "$DATA/perflab.json" 2>/dev/null | head -n 1)" || true
  [ -n "$port" ] && [ -f "$DATA/postmaster.pid" ] || { printf '%s\t%s\tnot running\n' "$1" "$2" >>"$SAMPLES"; return; }
  "$PSQL" -X -q -A -t -F $'\t' -h 127.0.0.1 -p "$port" -U perflab -d adventureworks \
    -c "CREATE EXTENSION IF NOT EXISTS pg_buffercache SCHEMA public" -c "$SAMPLE" 2>>"$OUT/psql.err" \
    | sed "s/^/$1\t$2\t/" >>"$SAMPLES" || printf '%s\t%s\tno answer\n' "$1" "$2" >>"$SAMPLES"
}

printf 'run\twhen\tutc\tblks_hit\tblks_read\tdead\tmodified\tautovacuums\tautoanalyzes\tlast_autovacuum\tlast_autoanalyze'`
  `'\tstats_md5\tckpt_timed\tckpt_req\tbuffers_checkpoint\tbuffers_backend\tbackends\tlab_pages_cached\tlab_pages\n' >"$SAMPLES"
for run in $(seq 1 "$RUNS"); do
  [ "${RESTART:-0}" = 1 ] && "$REPO/perflab" db stop >>"$OUT/run-$run.log" 2>&1 || true
  sample "$run" before
  "$REPO/perflab" run "$@" --out "$OUT/run-$run" >>"$OUT/run-$run.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 720); do   # at most an hour of samples
    sleep "$INTERVAL"
    kill -0 "$pid" 2>/dev/null || break
    sample "$run" during
  done
  wait "$pid" || echo "perflab run $run exited $? (see $OUT/run-$run.log)" >&2
  sample "$run" after
done
python3 "$REPO/bench/variance/dbstate.py" "$SAMPLES" "$OUT"
