// newpage times new_page, and the snapshot right after it, on real pages
// served locally, for several MCP servers side by side in one run: each
// round visits every page with every server, the servers' order
// alternating from round to round, so that a shared machine's load weighs
// on all alike. It checks that each snapshot shows the rendered page (a
// text the page's scripts put there), and prints one JSON line: per server
// and page, the medians and every sample, and each server's median over
// the first's.
//
//	node bench/newpage/newpage.mjs --apps DIR --rounds 5 \
//	  --server "tabhive=/tmp/tabhive --headless --isolated" \
//	  --server "cdm=node_modules/.bin/chrome-devtools-mcp --headless --isolated ..."
//
// --pages swagger-ui,codemirror keeps only those pages (default: all
// four). After each snapshot, the page's own DOMContentLoaded time (from
// its navigation entry, ms from navigation start) is read with
// evaluate_script, untimed: a figure of the renderer's work on the first
// document that the server's round trips do not enter.
//
// DIR is a folder whose node_modules holds swagger-ui-dist and codemirror:
// bench/ after `npm ci`, which pins both. The MCP client comes from the
// SDK installed in $BENCH_DEPS (a folder with
// node_modules/@modelcontextprotocol/sdk; default: the current one).
// `node bench/run.mjs newpage` runs it with tabhive and
// chrome-devtools-mcp as bench/lib/servers.mjs starts them.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const servers = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--server') {
  const [label, ...cmd] = args[i + 1].split('=');
  servers.push({ label, cmd: cmd.join('=') });
}
const apps = opt('apps', '');
const rounds = Number(opt('rounds', '5'));
const require = createRequire(path.join(process.env.BENCH_DEPS || process.cwd(), 'package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));

// The pages: a large static document, a small one with a script, an API
// explorer that fetches and renders a spec (about 20 requests), a code
// editor. want is a text the snapshot must hold once the page rendered.
const goroot = execFileSync('go', ['env', 'GOROOT']).toString().trim();
const petstore = JSON.stringify({
  openapi: '3.0.0', info: { title: 'Local Petstore', version: '1.0.0' },
  paths: Object.fromEntries(['pets', 'owners', 'vets', 'visits', 'toys', 'food'].map((p) => [`/${p}`, {
    get: { summary: `List ${p}`, responses: { 200: { description: 'ok' } } },
    post: { summary: `Create one of the ${p}`, responses: { 201: { description: 'created' } } },
  }])),
});
const cmPage = `<!doctype html><html><head><meta charset=utf-8><title>Editor</title>
<link rel=stylesheet href=/cm/lib/codemirror.css><script src=/cm/lib/codemirror.js></script>
<script src=/cm/mode/javascript/javascript.js></script></head><body><h1>Editor</h1><textarea id=code>
function greet(name) {
  return 'Hello, ' + name;
}
</textarea><script>CodeMirror.fromTextArea(document.getElementById('code'), { lineNumbers: true, mode: 'javascript' });</script></body></html>`;
const swaggerPage = fs.existsSync(path.join(apps, 'node_modules/swagger-ui-dist/index.html')) &&
  fs.readFileSync(path.join(apps, 'node_modules/swagger-ui-dist/index.html'), 'utf8');
const allPages = [
  { name: 'go-spec', path: '/go/go_spec.html', want: 'Introduction' },
  { name: 'underscore-doc', path: '/udoc/index.html', want: 'Underscore' },
  { name: 'swagger-ui', path: '/swagger/index.html', want: 'List pets' },
  { name: 'codemirror', path: '/editor', want: 'greet' },
];
const only = opt('pages', '');
const pages = only ? allPages.filter((p) => only.split(',').includes(p.name)) : allPages;
if (!pages.length) throw new Error(`--pages ${only}: name some of ${allPages.map((p) => p.name).join(', ')}`);
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png' };
const file = (res, f) => fs.readFile(f, (err, b) => {
  if (err) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'Content-Type': types[path.extname(f)] || 'application/octet-stream' });
  res.end(b);
});
const srv = http.createServer((req, res) => {
  const u = decodeURIComponent(req.url.split('?')[0]);
  if (u === '/editor') { res.writeHead(200, { 'Content-Type': types['.html'] }); res.end(cmPage); return; }
  if (u === '/swagger/petstore.json') { res.writeHead(200, { 'Content-Type': types['.json'] }); res.end(petstore); return; }
  if (u === '/swagger/swagger-initializer.js') {
    res.writeHead(200, { 'Content-Type': types['.js'] });
    res.end(`window.onload = () => { window.ui = SwaggerUIBundle({ url: '/swagger/petstore.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' }); };`);
    return;
  }
  if (u === '/swagger/index.html' && swaggerPage) { res.writeHead(200, { 'Content-Type': types['.html'] }); res.end(swaggerPage); return; }
  for (const [prefix, dir] of [['/go/', path.join(goroot, 'doc')], ['/udoc/', '/usr/share/doc/libjs-underscore'],
    ['/swagger/', path.join(apps, 'node_modules/swagger-ui-dist')], ['/cm/', path.join(apps, 'node_modules/codemirror')]]) {
    if (u.startsWith(prefix)) { file(res, path.join(dir, path.normalize(u.slice(prefix.length)))); return; }
  }
  res.writeHead(404); res.end();
}).listen(0, '127.0.0.1');
await new Promise((r) => srv.once('listening', r));
const base = `http://127.0.0.1:${srv.address().port}`;

const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const connect = async (s) => {
  const [command, ...cargs] = s.cmd.split(/\s+/).filter(Boolean);
  const client = new Client({ name: 'newpage-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args: cargs, stderr: 'ignore' }));
  return client;
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null; };
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const clients = {};
for (const s of servers) {
  clients[s.label] = await connect(s);
  // Warm up: the browser starts, one page opens and closes.
  const r = await clients[s.label].callTool({ name: 'new_page', arguments: { url: `${base}/udoc/index.html` } });
  const id = /^(\d+): .*\[selected\]$/m.exec(text(r))?.[1];
  if (id) await clients[s.label].callTool({ name: 'close_page', arguments: { pageId: Number(id) } });
}
const samples = {};
const dcl = {};
const misses = {};
// The first number in evaluate_script's reply: both servers put the
// result in a fenced block after a line of text.
const dclScript = '() => Math.round(performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd ?? -1)';
const readDCL = async (c, id) => {
  const r = await c.callTool({ name: 'evaluate_script', arguments: { function: dclScript, pageId: id } }, undefined, { timeout: 60000 });
  const m = /```(?:json)?\s*(-?\d+)/.exec(text(r));
  return m ? Number(m[1]) : undefined;
};
const loads = [load()];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? servers : [...servers].reverse();
  for (const p of pages) {
    for (const s of order) {
      const c = clients[s.label];
      const t0 = performance.now();
      const r = await c.callTool({ name: 'new_page', arguments: { url: base + p.path } }, undefined, { timeout: 60000 });
      const took = performance.now() - t0;
      const id = Number(/^(\d+): .*\[selected\]$/m.exec(text(r))?.[1]);
      const snap = await c.callTool({ name: 'take_snapshot', arguments: { pageId: id } }, undefined, { timeout: 60000 });
      const k = `${s.label} ${p.name}`;
      (samples[k] ||= []).push(Math.round(took));
      process.stderr.write(`${k} ${Math.round(took)} ms (load ${load()})\n`);
      if (!text(snap).includes(p.want)) misses[k] = (misses[k] || 0) + 1;
      const d = await readDCL(c, id);
      if (d !== undefined && d >= 0) (dcl[k] ||= []).push(d);
      await c.callTool({ name: 'close_page', arguments: { pageId: id } });
    }
  }
  loads.push(load());
}
const out = { date: new Date().toISOString(), rounds, loads, pages: {} };
for (const p of pages) {
  const row = {};
  const first = median(samples[`${servers[0].label} ${p.name}`]);
  for (const s of servers) {
    const k = `${s.label} ${p.name}`;
    row[s.label] = { median_ms: median(samples[k]), samples: samples[k], not_rendered: misses[k] || 0, ratio_to_first: +(median(samples[k]) / first).toFixed(2),
      dcl_median_ms: median(dcl[k] || []), dcl_samples: dcl[k] || [] };
  }
  out.pages[p.name] = row;
}
console.log(JSON.stringify(out));
for (const c of Object.values(clients)) await c.close();
srv.close();
