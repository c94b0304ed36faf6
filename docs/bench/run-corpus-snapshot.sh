#!/usr/bin/env bash
# Snapshot of one real document, side by side: tabhive, chrome-devtools-mcp
# and @playwright/mcp take REPS snapshots of DOC, served as /large (the
# harness's snapshot-large scenario with --large-n 0: no item check), with its
# directory served alongside for its style sheets and scripts. Run from a
# prepared copy of ../shared/bench (its README: npm ci there):
#   bash run-corpus-snapshot.sh /tmp/tabhive /usr/share/doc/nodejs/api/all.html OUT.jsonl [ROUNDS] [SNAPSHOTS]
set -u
cd "$(dirname "$0")"
TABHIVE="$1"; DOC="$2"; OUT="$3"; ROUNDS="${4:-2}"; SNAPS="${5:-5}"
DIR=$(dirname "$DOC"); NAME=$(basename "$DOC")
PORT=8977
SERVE=$(mktemp --suffix=.mjs)
cat > "$SERVE" <<'JS'
import http from 'node:http'; import fs from 'node:fs'; import path from 'node:path';
const [dir, name, port] = process.argv.slice(2);
const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.png': 'image/png' };
http.createServer((req, res) => {
  let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (p === '/') { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<title>warm-up</title>'); return; }
  if (p === '/large') p = '/' + name;
  const f = path.join(dir, path.normalize(p));
  fs.readFile(f, (err, b) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(f)] || 'application/octet-stream' });
    res.end(b);
  });
}).listen(Number(port), '127.0.0.1');
JS
node "$SERVE" "$DIR" "$NAME" "$PORT" & SRV=$!
trap 'kill $SRV; rm -f "$SERVE"' EXIT
sleep 1
FX=http://127.0.0.1:$PORT
CDM="node_modules/.bin/chrome-devtools-mcp --headless --isolated --executablePath /usr/bin/chromium --no-usage-statistics --no-performance-crux --chromeArg=--no-sandbox --chromeArg=--disable-gpu --chromeArg=--disable-quic --chromeArg=--no-first-run --chromeArg=--disable-background-networking --chromeArg=--disable-component-update --chromeArg=--disable-sync"
PWM="node_modules/.bin/playwright-mcp --config configs/pwm.json --output-dir results/scratch/pwm-out"
run() {
  echo "== $1 $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
  timeout 900 node mcpbench.mjs --label "$1 $NAME" --kind "$2" --stdio "$3" --fixture "$FX" \
    --scenario snapshot-large --large-n 0 --snapshots "$SNAPS" --call-timeout-ms 120000 --max-seconds 600 >> "$OUT" 2>>"$OUT.log" || echo "  (exit $?)" >&2
}
# Servers in turn, the order reversed every other round: a load that rises
# or falls during the run weighs on all alike.
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then
    run "r$r tabhive" generic "$TABHIVE --headless --isolated"
    run "r$r cdm" cdm "$CDM"
    run "r$r pwm" pwm "$PWM"
  else
    run "r$r pwm" pwm "$PWM"
    run "r$r cdm" cdm "$CDM"
    run "r$r tabhive" generic "$TABHIVE --headless --isolated"
  fi
done
