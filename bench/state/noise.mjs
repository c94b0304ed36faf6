// noise: one MCP session that keeps a page of its own busy with agent-state
// calls — set_cookie, route_requests, list_routes, unroute_requests, in a
// loop, one at a time — until it is sent SIGTERM (or --seconds pass). With
// --rate N it makes at most N calls a second, else as many as the server
// answers. With --mode control it calls list_pages instead, a call that
// takes no lock and asks the browser nothing: what the server's and the
// machine's CPU alone cost the clicks beside. It prints one JSON line: how
// many calls it made, in how many seconds, and their latencies. run.sh
// runs it beside mcpbench's click-latency scenario.
//
//	node bench/state/noise.mjs --http http://127.0.0.1:PORT/mcp [--rate 10] [--mode state|control] [--seconds 60]

import path from 'node:path';
import { createRequire } from 'node:module';

const cdm = process.env.CDM_DIR || '/work/cdm';
const require = createRequire(path.join(cdm, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const url = opt('--http');
const seconds = Number(opt('--seconds', '600'));
const rate = Number(opt('--rate', '0'));
const mode = opt('--mode', 'state');
if (!url) { console.error('usage: noise.mjs --http URL [--seconds N]'); process.exit(2); }

const client = new Client({ name: 'state-noise', version: '0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const call = async (name, a) => {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: a });
  if (r.isError) throw new Error(`${name}: ${r.content.map(c => c.text).join(' ')}`);
  return { ms: performance.now() - t, text: r.content.map(c => c.text).join('\n') };
};

const opened = await call('new_page', { url: 'about:blank', background: true });
const pageId = Number(/^(\d+): .*\[selected\]$/m.exec(opened.text)[1]);
const ms = mode === 'control' ? { list_pages: [] } : { set_cookie: [], route_requests: [], list_routes: [], unroute_requests: [] };
let stop = false;
process.on('SIGTERM', () => { stop = true; });
const start = Date.now();
const end = start + seconds * 1000;
let made = 0;
// timed makes one call, pacing the loop to --rate.
const timed = async (name, a) => {
  if (rate > 0) {
    const due = start + (made / rate) * 1000;
    if (due > Date.now()) await new Promise(r => setTimeout(r, due - Date.now()));
  }
  made++;
  ms[name].push((await call(name, a)).ms);
};
for (let i = 0; !stop && Date.now() < end; i++) {
  if (mode === 'control') {
    await timed('list_pages', {});
    continue;
  }
  await timed('set_cookie', { pageId, name: `n${i % 50}`, value: String(i), domain: 'noise.test' });
  await timed('route_requests', { pageId, urlPattern: `/api/${i % 20}/*`, action: 'fulfill', body: 'noise' });
  await timed('list_routes', { pageId });
  if (i % 20 === 19) await timed('unroute_requests', { pageId });
}
const elapsed = (Date.now() - start) / 1000;
await call('close_page', { pageId });
await client.close();
const p = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s.length ? Math.round(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] * 10) / 10 : null; };
const out = { mode, rate, seconds: Math.round(elapsed * 10) / 10, calls: 0, tools: {} };
for (const [k, v] of Object.entries(ms)) {
  out.calls += v.length;
  out.tools[k] = { count: v.length, p50: p(v, 0.5), p95: p(v, 0.95) };
}
console.log(JSON.stringify(out));
