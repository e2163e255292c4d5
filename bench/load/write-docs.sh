#!/usr/bin/env bash
# Runs the three load-engine proofs and replaces the "## Load engine" section of docs/benchmarks/load-engine.md with
# their figures.
# Usage: bench/load/write-docs.sh [--docs-only]   (about 10 minutes)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# --docs-only: rewrite the section from the last results without measuring again.
if [[ "${1:-}" != "--docs-only" ]]; then
  "$HERE/throughput.sh"
  "$HERE/latency.sh"
  "$HERE/coordinated-omission.sh"
fi
python3 - "$REPO/docs/benchmarks/load-engine.md" "$HERE/results" <<'PY'
import pathlib, re, sys
doc, results = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
intro = pathlib.Path(results.parent / "section-intro.md").read_text()
body = intro.rstrip() + "\n\n" + "\n".join((results / f).read_text().rstrip() + "\n" for f in ["throughput.md", "latency.md", "co.md"])
section = "## Load engine\n\n" + body
text = doc.read_text() if doc.exists() else "# Load engine\n"
pattern = re.compile(r"^## Load engine\n.*?(?=^## |\Z)", re.S | re.M)
text = pattern.sub(lambda _: section + "\n", text) if pattern.search(text) else text.rstrip() + "\n\n" + section
doc.parent.mkdir(parents=True, exist_ok=True)
doc.write_text(text)
PY
echo "wrote $REPO/docs/benchmarks/load-engine.md"
