#!/usr/bin/env bash
# Issue 14's token benchmark (snapshot_tokens.go) for tabhive, tabhive with
# whole snapshots (--snapshot-max-bytes 0, for scale), chrome-devtools-mcp
# 1.11 and @playwright/mcp 0.0.83 (as configured, and with
# --snapshot-mode none), one after another in one run. Run from the
# project root, with a prepared copy of ../shared/bench (npm ci there) in
# $BENCH and tabhive built:
#   go build -o /tmp/tabhive ./cmd/tabhive
#   bash docs/bench/run-snapshot-tokens.sh /tmp/tabhive OUT.jsonl
set -u
TABHIVE="$1"; OUT="$2"; BENCH="${BENCH:-/work/benchcopy}"
FLAGS="--no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
CDM="$BENCH/node_modules/.bin/chrome-devtools-mcp --headless --isolated --executablePath /usr/bin/chromium --no-usage-statistics --no-performance-crux"
for f in $FLAGS; do CDM="$CDM --chromeArg=$f"; done
go build -o /tmp/snapshot_tokens docs/bench/snapshot_tokens.go
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/tmp/snapshot_tokens -kind tabhive -label tabhive -- "$TABHIVE" --headless --isolated --log-level warn >> "$OUT"
/tmp/snapshot_tokens -kind full -label "tabhive full (--snapshot-max-bytes 0)" -- "$TABHIVE" --headless --isolated --log-level warn --snapshot-max-bytes 0 >> "$OUT"
/tmp/snapshot_tokens -kind cdm -label "chrome-devtools-mcp 1.11" -- $CDM >> "$OUT"
(cd "$BENCH" && /tmp/snapshot_tokens -kind pwm -label "@playwright/mcp 0.0.83" -- node_modules/.bin/playwright-mcp --config configs/pwm.json --output-dir "$(mktemp -d)") >> "$OUT"
(cd "$BENCH" && /tmp/snapshot_tokens -kind pwm -label "@playwright/mcp 0.0.83 --snapshot-mode none" -- node_modules/.bin/playwright-mcp --config configs/pwm.json --output-dir "$(mktemp -d)" --snapshot-mode none) >> "$OUT"
echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
