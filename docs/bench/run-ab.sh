#!/usr/bin/env bash
# A/B of two tabhive binaries on the harness's interact scenario at 8
# agents, alternating runs (A B, B A, ...) so that the load of a shared machine weighs on
# both alike (issue 10: the pipe and the URL policy must not cost
# parallelism). Copy into a prepared copy of ../shared/bench (see its
# README: npm ci there), build the two binaries, then:
#   bash run-ab.sh /tmp/tabhive-before /tmp/tabhive-after OUT.jsonl REPS [extra tabhive flags]
set -u
cd "$(dirname "$0")"
A="$1"; B="$2"; OUT="$3"; REPS="${4:-3}"; shift 4; EXTRA="$*"
PORT=8961
run() {
  local label="$1" bin="$2"
  echo "== $label $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
  timeout 900 node mcpbench.mjs --label "$label" --kind generic --http http://127.0.0.1:$PORT/mcp \
    --server-cmd "$bin --headless --isolated --http 127.0.0.1:$PORT $EXTRA" \
    --scenario interact --agents 8 --iterations 5 --max-seconds 600 >> "$OUT" 2>>"$OUT.log" || echo "  (exit $?)" >&2
  sleep 2
}
# A B, then B A: a load that rises or falls during the run weighs on both.
for rep in $(seq 1 "$REPS"); do
  if [ $((rep % 2)) = 1 ]; then
    run "r$rep A interact a8" "$A"
    run "r$rep B interact a8" "$B"
  else
    run "r$rep B interact a8" "$B"
    run "r$rep A interact a8" "$A"
  fi
done
