#!/usr/bin/env bash
# What a fresh Debian machine lacks for `./perflab`, and what to do about it: npm to build report.html's scripts,
# PostgreSQL for the built-in SUT's managed database. As root (a root Debian image has no sudo) it installs them
# with apt-get, saying so; otherwise it prints the one command to run as root and stops. Never assumes sudo.
#
#   scripts/setup.sh [--need-postgres]        check, then install or say what to run (exit 3 when it cannot)
#   scripts/setup.sh --decide UID MISSING...  print the decision for those inputs only (what the tests check)
set -uo pipefail

# decide UID PACKAGE...: one line per step, "install: ..." or "run as root: ..." or nothing when nothing is missing.
decide() {
    local uid="$1"; shift
    [ $# -gt 0 ] || return 0
    local command="apt-get install -y $*"
    if [ "$uid" -eq 0 ]; then
        echo "perflab: this machine lacks $*; installing with: apt-get update && $command"
    else
        echo "perflab: this machine lacks $*; run this once as root, then run perflab again:"
        echo "    $command"
    fi
}

missing_packages() {
    local need_postgres="$1" root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    # npm is needed only to build: not once report.html's scripts are in place.
    if ! command -v npm >/dev/null 2>&1 && [ ! -f "$root/src/PerfLab/Reports/web/node_modules/.perflab-npm-ci.stamp" ]; then
        echo npm
    fi
    if [ "$need_postgres" = 1 ] && [ -z "${PERFLAB_PG_BINDIR:-}" ] \
        && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && ! command -v pg_ctl >/dev/null 2>&1; then
        echo postgresql
    fi
}

if [ "${1:-}" = "--decide" ]; then
    shift
    decide "$@"
    exit 0
fi
need_postgres=0
[ "${1:-}" = "--need-postgres" ] && need_postgres=1
mapfile -t missing < <(missing_packages "$need_postgres")
[ ${#missing[@]} -gt 0 ] || exit 0
uid="$(id -u)"
decide "$uid" "${missing[@]}" >&2
if [ "$uid" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || echo "perflab: no apt-get here: install ${missing[*]} with this system's package manager." >&2
    exit 3
fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    echo "perflab: apt-get could not install ${missing[*]}; see its messages above." >&2
    exit 3
fi
echo "perflab: installed ${missing[*]}." >&2
