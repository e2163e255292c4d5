# Shared by the counters benchmarks: build once, start/stop a fresh SUT, write the "## Counters" section.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$REPO/results/bench/counters}"   # results/ is git-ignored
mkdir -p "$OUT"
PERFLAB="dotnet $REPO/src/PerfLab/bin/Release/net10.0/perflab.dll"
SUT_DLL="$REPO/src/PerfLab.Sut/bin/Release/net10.0/PerfLab.Sut.dll"

build() {
  dotnet build "$REPO/src/PerfLab" -c Release -nologo -v q >/dev/null
}

# start_sut LOG [taskset-cpus]: starts a fresh SUT, waits for its readiness line, sets SUT_PID and SUT_URL.
start_sut() {
  local log="$1" cpus="${2:-}"
  if [[ -n "$cpus" ]]; then
    taskset -c "$cpus" dotnet "$SUT_DLL" --urls http://127.0.0.1:0 >"$log" 2>&1 &
  else
    dotnet "$SUT_DLL" --urls http://127.0.0.1:0 >"$log" 2>&1 &
  fi
  SUT_PID=$!
  for _ in $(seq 1 600); do
    SUT_URL="$(grep -o 'perflab-sut: listening on http://[0-9.:]*' "$log" | head -1 | sed 's/.*listening on //')" || true
    [[ -n "$SUT_URL" ]] && return 0
    kill -0 "$SUT_PID" 2>/dev/null || { echo "SUT exited:"; tail "$log"; return 1; }
    sleep 0.1
  done
  echo "SUT not ready after 60 s"; kill "$SUT_PID"; return 1
}

stop_sut() {
  kill "$SUT_PID" 2>/dev/null || true
  wait "$SUT_PID" 2>/dev/null || true
}

# write_section FILE: replaces (or appends) a "### <title>" block inside "## Counters" of docs/benchmarks/counters.md.
write_section() {
  mkdir -p "$REPO/docs/benchmarks"
  python3 - "$REPO/docs/benchmarks/counters.md" "$1" <<'PY'
import re, sys
doc_path, block_path = sys.argv[1], sys.argv[2]
block = open(block_path).read().strip() + "\n"
title = block.splitlines()[0]
try:
    doc = open(doc_path).read()
except FileNotFoundError:
    doc = "# Counters\n"
m = re.search(r"^## Counters\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
section = m.group(1) if m else ""
blocks = re.split(r"(?=^### )", section, flags=re.M)
head = blocks[0] if blocks and not blocks[0].startswith("### ") else "\n"
rest = [b for b in blocks if b.startswith("### ")]
rest = [b for b in rest if b.splitlines()[0] != title] + [block]
rest.sort(key=lambda b: b.splitlines()[0])
new = "## Counters\n" + head + "\n".join(b.strip() + "\n" for b in rest)
if m:
    doc = doc[:m.start()] + new + ("\n" if doc[m.end():] else "") + doc[m.end():]
else:
    doc = doc.rstrip("\n") + "\n\n" + new
open(doc_path, "w").write(doc)
PY
}
