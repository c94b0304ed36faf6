#!/bin/sh
# Side by side: do agent-state calls on one page slow other pages' clicks?
# One tabhive server over HTTP; mcpbench's click-latency scenario with 8
# agents (8 MCP sessions, a page each), run in turn, ROUNDS times: alone
# ("quiet"); beside bench/state/noise.mjs keeping a ninth session's page
# busy with set_cookie / route_requests / list_routes / unroute_requests
# at 10 calls a second ("state10") and as fast as the server answers
# ("statemax"); and beside noise.mjs calling list_pages as fast as the
# server answers ("controlmax": the cost of the server's and the
# machine's CPU alone). Raw lines go to $OUT (default bench-state.jsonl);
# bench/state/summarize.mjs makes the table.
#
#	go build -o /tmp/tabhive ./cmd/tabhive
#	CDM_DIR=/work/cdm sh bench/state/run.sh /tmp/tabhive 3
set -eu
TABHIVE=${1:-tabhive}
ROUNDS=${2:-3}
CDM=${CDM_DIR:-/work/cdm}
OUT=${OUT:-bench-state.jsonl}
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT/mcp
"$TABHIVE" --http 127.0.0.1:$PORT --headless --isolated --log-level error &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
sleep 2
: > "$OUT"
clicks() {
	node "$CDM/mcpbench.mjs" --kind generic --http "$URL" --scenario click-latency --agents 8 --iterations 30 --label "$1 load1=$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT"
}
# noisy LABEL NOISE-ARGS...: the clicks beside noise.mjs run with those
# arguments.
noisy() {
	label=$1
	shift
	node "$HERE/noise.mjs" --http "$URL" "$@" > noise.$$.json 2>/dev/null &
	NOISE=$!
	sleep 2
	clicks "$label"
	kill -TERM $NOISE
	wait $NOISE
	echo "{\"label\":\"$label noise\",\"noise\":$(cat noise.$$.json)}" >> "$OUT"
	rm -f noise.$$.json
}
i=1
while [ $i -le "$ROUNDS" ]; do
	clicks "r$i quiet"
	noisy "r$i state10" --rate 10
	noisy "r$i statemax"
	noisy "r$i controlmax" --mode control
	i=$((i + 1))
done
