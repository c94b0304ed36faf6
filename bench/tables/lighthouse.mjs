// lighthouse_audit side by side: tabhive (the lighthouse CLI on PATH,
// through its one-time endpoint) and chrome-devtools-mcp 1.11 (Lighthouse
// in its own process), each auditing the same two pages, desktop: a small
// fixture with three accessibility failures, and a large real document
// (the Go spec, $(go env GOROOT)/doc/go_spec.html, or --doc FILE).
// Servers alternate, in reversed order every other round.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { connect } from '../lib/connect.mjs';
import { serveFixtures } from '../lib/fixtures.mjs';
import { ms } from '../lib/bench.mjs';

export const title = 'lighthouse_audit on one page, side by side';
export const usage = '--rounds N (1), --doc FILE (the Go spec)';

const fixture = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Audit fixture</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A page with known accessibility failures.">
</head><body><main><h1>Audit fixture</h1>
<img id="noalt" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">
<button id="noname"></button>
<p id="faint" style="color:#ddd;background:#fff">Text too faint to read.</p>
</main></body></html>`;

async function serveFixture() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(fixture);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/audit.html`, stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

const text = (res) => res.content.map((c) => c.text ?? '').join('\n');

// audit opens url on a fresh server and audits it, returning the wall time
// and what the reply says.
async function audit(server, url) {
  const conn = await connect(server);
  try {
    const c = conn.clients[0];
    const opened = text(await c.callTool({ name: 'new_page', arguments: { url } }, undefined, { timeout: 120000 }));
    const id = Number(/(\d+): [^\n]*\[selected\]/.exec(opened)?.[1] ?? 1);
    const t0 = performance.now();
    const res = await c.callTool({ name: 'lighthouse_audit', arguments: { pageId: id, device: 'desktop' } }, undefined, { timeout: 600000 });
    const wall = performance.now() - t0;
    const out = text(res);
    if (res.isError) throw new Error(out);
    const scores = Object.fromEntries([...out.matchAll(/^- .+: (\d+|n\/a) \(([a-z-]+)\)$/gm)].map((m) => [m[2], m[1]]));
    const failed = [...out.matchAll(/^- ([a-z0-9-]+) \[[^\]]*\]: /gm)].map((m) => m[1]).sort();
    return { wall, lhTotal: Number(/Total timing: ([\d.]+)ms/.exec(out)?.[1]), scores, failed };
  } finally {
    await conn.close();
  }
}

export async function run(b, o) {
  const rounds = o.rounds ?? 1;
  const doc = o.doc ?? path.join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'doc', 'go_spec.html');
  const fix = await serveFixture();
  const large = await serveFixtures({ doc });
  const pages = [['fixture (3 failures)', fix.url], ['Go spec', `${large.url}/large`]];
  const servers = [b.servers.tabhive(b.tabhive()), b.servers.cdm()];
  const results = {};
  try {
    for (let r = 1; r <= rounds; r++) {
      const order = r % 2 ? servers : [...servers].reverse();
      for (const [name, url] of pages) {
        for (const s of order) {
          process.stderr.write(`[bench] r${r} ${s.name} ${name}\n`);
          const x = await audit(s, url).catch((e) => ({ error: e.message.split('\n')[0] }));
          b.save({ label: `r${r} ${name}`, server: s.name, url, date: new Date().toISOString(), ...x });
          (results[name] ??= {})[s.name] ??= [];
          results[name][s.name].push(x);
        }
      }
    }
  } finally {
    await fix.stop();
    await large.stop();
  }
  const rows = [];
  for (const [name] of pages) {
    const [t, c] = servers.map((s) => results[name][s.name]);
    const cell = (xs, f) => xs.map((x) => (x.error ? `failed: ${x.error.slice(0, 80)}` : f(x))).join(' / ');
    const scores = (x) => ['accessibility', 'best-practices', 'seo'].map((k) => x.scores[k] ?? '—').join(', ');
    const ratio = t.map((x, i) => (x.wall && c[i]?.wall ? (x.wall / c[i].wall).toFixed(2) : '—')).join(' / ');
    rows.push([name, cell(t, (x) => ms(x.wall)), cell(c, (x) => ms(x.wall)), ratio,
      cell(t, (x) => ms(x.lhTotal)), cell(c, (x) => ms(x.lhTotal)),
      cell(t, scores), cell(c, scores),
      cell(t, (x) => x.failed.join(' ')), cell(c, (x) => x.failed.join(' '))]);
  }
  b.print(['page', 'tabhive ms', 'cdm ms', 'tabhive ÷ cdm', 'tabhive Lighthouse total ms', 'cdm Lighthouse total ms',
    'tabhive scores (a11y, best practices, SEO)', 'cdm scores', 'tabhive failed audits', 'cdm failed audits'], rows);
}
