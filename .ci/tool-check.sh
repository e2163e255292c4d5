#!/usr/bin/env bash
# Packs perflab as a .NET tool, installs it into a temporary tool path and runs it from outside the clone, as a user
# who never cloned it would: `perflab list`, and with --smoke NAME also `perflab run NAME --profile smoke`.
# Usage: .ci/tool-check.sh [--smoke EXPERIMENT] [--keep DIR] [--configuration NAME [--no-build]]
# It packs a Release build by default; --configuration Debug --no-build packs the build `dotnet build` already left (the
# tests call it so, tests/PerfLab.Tests/Packaging/ToolPackageTests.cs, sparing a second compile of perflab and the SUT).
# PERFLAB_CACHE_DIR is honoured by the run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
smoke=""
keep=""
configuration="Release"
no_build=""
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --configuration) configuration="$2"; shift 2 ;;
        --no-build) no_build="--no-build"; shift ;;
        *) echo "tool-check: unknown argument '$1'; usage: $0 [--smoke EXPERIMENT] [--keep DIR] [--configuration NAME [--no-build]]" >&2
           exit 2 ;;
    esac
done
work="${keep:-$(mktemp -d "${TMPDIR:-/tmp}/perflab-tool.XXXXXX")}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

echo "tool-check: packing the $configuration build${no_build:+ already built} into $work/packages"
# PublishDir: packing a tool publishes it first, by default into bin/CONFIG/net10.0/publish, inside the very folder
# perflab runs from and copies to hosts (ToolPackageTests' pack once changed that folder under another test's feet).
dotnet pack "$root/src/PerfLab/PerfLab.csproj" -c "$configuration" $no_build -o "$work/packages" -p:PublishDir="$work/publish/" -nologo -v q
version=$(ls "$work/packages" | sed -n 's/^perflab\.\(.*\)\.nupkg$/\1/p' | head -n 1)
[ -n "$version" ] || { echo "tool-check: no perflab package was written" >&2; exit 1; }

# From a folder outside the clone, so nothing can be found through the clone's path.
cd "$work"
echo "tool-check: installing perflab $version into $work/tools"
# A package folder of its own: NuGet would otherwise reuse a perflab of the same version packed earlier.
NUGET_PACKAGES="$work/nuget" dotnet tool install --tool-path "$work/tools" --add-source "$work/packages" perflab --version "$version"

echo "tool-check: perflab list (from $PWD)"
"$work/tools/perflab" list
if [ -n "$smoke" ]; then
    echo "tool-check: perflab run $smoke --profile smoke --no-trace (from $PWD)"
    "$work/tools/perflab" run "$smoke" --profile smoke --no-trace --out "$work/results"
    echo "tool-check: results.json provenance $(grep -o '"commit": "[^"]*"' "$work/results/results.json")"
fi
echo "tool-check: ok"
