#!/usr/bin/env bash
# Side-by-side runs recorded in docs/BENCHMARKS.md (issue 6: throughput at 1,
# 4 and 8 agents; large snapshots). Copy into a prepared copy of
# ../shared/bench (see its README: npm ci there), build tabhive to
# /tmp/tabhive and the CDP ceiling loop to /tmp/cdp_ceiling:
#   go build -o /tmp/tabhive ./cmd/tabhive
#   go build -o /tmp/cdp_ceiling ./docs/bench/cdp_ceiling.go
# then: bash run-throughput.sh OUT.jsonl REPS
set -u
cd "$(dirname "$0")"
OUT="$1"; REPS="${2:-2}"
FLAGS="--no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
CDM="node_modules/.bin/chrome-devtools-mcp --headless --isolated --executablePath /usr/bin/chromium --no-usage-statistics --no-performance-crux"
for f in $FLAGS; do CDM="$CDM --chromeArg=$f"; done
PWM_HTTP="node_modules/.bin/playwright-mcp --config configs/pwm.json --output-dir results/scratch/pwm-out --host 127.0.0.1 --port 8931 --allowed-hosts 127.0.0.1:8931"
PORT=8941
# --snapshot-max-bytes 0: snapshot-large checks the whole 309 KB snapshot,
# which tabhive's default bound (256 KB, issue 14) replaces with an outline.
TH="/tmp/tabhive --headless --isolated --snapshot-max-bytes 0 --http 127.0.0.1:$PORT"
b() { local label="$1"; shift; echo "== $label $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2; timeout 900 node mcpbench.mjs --label "$label" "$@" >> "$OUT" 2>>"$OUT.log" || echo "  (exit $?)" >&2; sleep 2; }
c() { local label="$1"; shift; echo "== $label $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2; timeout 900 /tmp/cdp_ceiling -label "$label" "$@" >> "$OUT.ceiling" 2>>"$OUT.log" || echo "  (exit $?)" >&2; sleep 2; }
for rep in $(seq 1 "$REPS"); do
  for k in 1 4 8; do
    b "r$rep cdm-stdio interact a$k" --kind cdm --stdio "$CDM" --scenario interact --agents $k --iterations 5 --max-seconds 600
    b "r$rep pwm-http interact a$k" --kind pwm --http http://127.0.0.1:8931/mcp --server-cmd "$PWM_HTTP" --scenario interact --agents $k --iterations 5 --max-seconds 600
    b "r$rep tabhive-http interact a$k" --kind generic --http http://127.0.0.1:$PORT/mcp --server-cmd "$TH" --scenario interact --agents $k --iterations 5 --max-seconds 600
    c "r$rep cdp-ceiling interact a$k" -agents $k -iterations 5
  done
  b "r$rep cdm-stdio snapshot-large" --kind cdm --stdio "$CDM" --scenario snapshot-large --agents 1 --snapshots 5 --large-n 2000
  b "r$rep pwm-http snapshot-large" --kind pwm --http http://127.0.0.1:8931/mcp --server-cmd "$PWM_HTTP" --scenario snapshot-large --agents 1 --snapshots 5 --large-n 2000
  b "r$rep tabhive-http snapshot-large" --kind generic --http http://127.0.0.1:$PORT/mcp --server-cmd "$TH" --scenario snapshot-large --agents 1 --snapshots 5 --large-n 2000
done
