#!/usr/bin/env bash
# Issue 12's figures, side by side in one run: the settle zoo and no-op
# clicks (settle_zoo.go) for tabhive before and after causal settle and for
# chrome-devtools-mcp 1.11, then the harness's click-latency page for the
# same three. Run from the project root, with a prepared copy of
# ../shared/bench (npm ci there) in $BENCH, and the two tabhive binaries
# built:
#   bash docs/bench/run-settle.sh /tmp/tabhive-before /tmp/tabhive-after OUT.jsonl
set -u
BEFORE="$1"; AFTER="$2"; OUT="$3"; BENCH="${BENCH:-/work/benchcopy}"
FLAGS="--no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
CDM="$BENCH/node_modules/.bin/chrome-devtools-mcp --headless --isolated --executablePath /usr/bin/chromium --no-usage-statistics --no-performance-crux"
for f in $FLAGS; do CDM="$CDM --chromeArg=$f"; done
go build -o /tmp/settle_zoo docs/bench/settle_zoo.go
for rep in 1 2; do
  for who in before after cdm; do
    case $who in
      before) cmd="$BEFORE --headless --isolated --log-level warn" ;;
      after) cmd="$AFTER --headless --isolated --log-level warn" ;;
      cdm) cmd="$CDM" ;;
    esac
    echo "== r$rep $who zoo $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
    /tmp/settle_zoo -label "r$rep $who" -noops 30 -- $cmd >> "$OUT" 2>>"$OUT.log"
  done
  for who in before after cdm; do
    case $who in
      before) args=(--kind generic --stdio "$BEFORE --headless --isolated --log-level warn") ;;
      after) args=(--kind generic --stdio "$AFTER --headless --isolated --log-level warn") ;;
      cdm) args=(--kind cdm --stdio "$CDM") ;;
    esac
    echo "== r$rep $who click-latency $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
    (cd "$BENCH" && timeout 600 node mcpbench.mjs --label "r$rep $who click-latency" "${args[@]}" --scenario click-latency --iterations 30) >> "$OUT" 2>>"$OUT.log"
  done
done
