#!/usr/bin/env bash
# Time per console write as the SUT's locked-console logger makes it, with the standard output a file and a
# pseudo-terminal that perflab reads (docs/benchmarks/console.md, "Console writes: file against terminal").
# Usage: bench/console/write.sh [writes=100000] [threads=1,8] [repeats=3]
set -euo pipefail
cd "$(dirname "$0")/../.."
dotnet build -c Release -nologo -v q bench/PerfLab.ConsoleWrite/PerfLab.ConsoleWrite.csproj >/dev/null
exec bench/PerfLab.ConsoleWrite/bin/Release/net10.0/PerfLab.ConsoleWrite "$@"
