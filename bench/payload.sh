#!/usr/bin/env bash
# Measures what the SUT sends per serializer: one order with its details (median over 200 orders spread over the
# id range, and order 43659) and a page of 100 orders with their details (page 1, and the mean of pages 1-20).
# Uses perflab's own PostgreSQL (started and seeded if needed). Prints a Markdown table.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
perflab="$root/perflab"
port="${PAYLOAD_PORT:-5077}"
base="http://127.0.0.1:$port"

"$perflab" db start >/dev/null
"$perflab" db seed >/dev/null
"$perflab" sut stop >/dev/null 2>&1 || true

echo "| serializer | order 43659 (bytes) | one order, median of 200 (bytes) | page of 100, page 1 (bytes) | page of 100, mean of pages 1-20 (bytes) |"
echo "|---|---|---|---|---|"
for serializer in newtonsoft system-text-json system-text-json-sourcegen; do
    "$perflab" sut start --urls "$base" --set "Serializer=$serializer" >/dev/null
    first=$(curl -sf "$base/customer/orders/43659" | wc -c)
    median=$(for i in $(seq 0 199); do curl -sf "$base/customer/orders/$((43659 + i * 157))" | wc -c; done | sort -n | sed -n '100p')
    page1=$(curl -sf "$base/customer/orders?pageNumber=1&pageSize=100" | wc -c)
    pages=$(for p in $(seq 1 20); do curl -sf "$base/customer/orders?pageNumber=$p&pageSize=100" | wc -c; done | awk '{s+=$1} END {printf "%d", s/NR}')
    "$perflab" sut stop >/dev/null
    echo "| $serializer | $first | $median | $page1 | $pages |"
done
