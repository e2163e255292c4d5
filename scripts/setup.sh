#!/usr/bin/env bash
# What a fresh Debian machine lacks for `./perflab` or for its tests, and what to do about it. The one list of
# what the project needs from Debian. As root (a root Debian image has no sudo) it installs them with apt-get, saying
# so; otherwise it prints the one command to run as root and stops. Never assumes sudo.
#
#   scripts/setup.sh [--need-postgres]        ./perflab: npm (to build report.html's scripts) and, for the verbs that
#                                             start the managed PostgreSQL, the server (exit 3 when it cannot install)
#   scripts/setup.sh --for-tests              `dotnet test` (tests/Directory.Build.targets): the above, and Chromium
#                                             (report test), python3-junitparser (JUnit read back), iproute2 and
#                                             OpenSSH (hosts as network namespaces, each with its own sshd)
#   scripts/setup.sh --decide UID [--for-tests] MISSING...   print the decision for those inputs only (the tests)
set -uo pipefail

# decide UID [--for-tests] PACKAGE...: "installing with: ..." as root, "run this once as root: ..." otherwise, or
# nothing when nothing is missing.
decide() {
    local uid="$1" again="run perflab again"; shift
    if [ "${1:-}" = "--for-tests" ]; then again="run the tests again"; shift; fi
    [ $# -gt 0 ] || return 0
    local command="apt-get install -y $*"
    if [ "$uid" -eq 0 ]; then
        echo "perflab: this machine lacks $*; installing with: apt-get update && $command"
    else
        echo "perflab: this machine lacks $*; run this once as root, then $again:"
        echo "    $command"
    fi
}

missing_packages() {
    local need_postgres="$1" for_tests="$2" root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    # npm is needed only to build: not once report.html's scripts are in place.
    if ! command -v npm >/dev/null 2>&1 && [ ! -f "$root/src/PerfLab/Reports/web/node_modules/.perflab-npm-ci.stamp" ]; then
        echo npm
    fi
    if [ "$need_postgres" = 1 ] && [ -z "${PERFLAB_PG_BINDIR:-}" ] \
        && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && ! command -v pg_ctl >/dev/null 2>&1; then
        echo postgresql
    fi
    [ "$for_tests" = 1 ] || return 0
    command -v chromium >/dev/null 2>&1 || echo chromium
    # The tests read perflab's JUnit files back with a real JUnit consumer, Debian's, under the system Python.
    /usr/bin/python3 -c 'import junitparser' >/dev/null 2>&1 || echo python3-junitparser
    command -v ip >/dev/null 2>&1 || echo iproute2
    [ -x /usr/sbin/sshd ] || echo openssh-server
    command -v ssh >/dev/null 2>&1 || echo openssh-client
}

if [ "${1:-}" = "--decide" ]; then
    shift
    decide "$@"
    exit 0
fi
need_postgres=0 for_tests=""
case "${1:-}" in
    --need-postgres) need_postgres=1 ;;
    --for-tests) need_postgres=1 for_tests="--for-tests" ;;
    "") ;;
    *) echo "setup.sh: unknown argument '$1'; use --need-postgres, --for-tests or --decide" >&2; exit 2 ;;
esac
mapfile -t missing < <(missing_packages "$need_postgres" "${for_tests:+1}")
[ ${#missing[@]} -gt 0 ] || exit 0
uid="$(id -u)"
decide "$uid" $for_tests "${missing[@]}" >&2
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
