#!/usr/bin/env bash
# Side-by-side runs recorded in docs/BENCHMARKS.md (foundation section).
# Copy into a prepared copy of ../shared/bench (see its README: npm ci there),
# build tabhive to /tmp/tabhive, then: bash run-foundation.sh OUT.jsonl REPS
set -u
cd "$(dirname "$0")"
OUT="$1"; REPS="${2:-2}"
FLAGS="--no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
CDM="node_modules/.bin/chrome-devtools-mcp --headless --isolated --executablePath /usr/bin/chromium --no-usage-statistics --no-performance-crux"
for f in $FLAGS; do CDM="$CDM --chromeArg=$f"; done
TH="/tmp/tabhive --headless --isolated"
PORT=8941
THH="$TH --http 127.0.0.1:$PORT"
b() { local label="$1"; shift; echo "== $label" >&2; timeout 600 node mcpbench.mjs --label "$label" "$@" >> "$OUT" 2>>"$OUT.log" || echo "  (exit $?)" >&2; sleep 2; }
for rep in $(seq 1 "$REPS"); do
  b "r$rep cdm click-latency" --kind cdm --stdio "$CDM" --scenario click-latency --iterations 30
  b "r$rep tabhive-stdio click-latency" --kind generic --stdio "$TH" --scenario click-latency --iterations 30
  for k in 1 4; do
    b "r$rep cdm interact a$k" --kind cdm --stdio "$CDM" --scenario interact --agents $k --iterations 5 --max-seconds 300
    b "r$rep tabhive-http interact a$k" --kind generic --http http://127.0.0.1:$PORT/mcp --server-cmd "$THH" --scenario interact --agents $k --iterations 5 --max-seconds 300
  done
done
