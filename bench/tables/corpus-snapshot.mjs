// Snapshots of one real document, side by side: --doc (an HTML file)
// served as /large with its directory, 5 snapshots per server per round,
// over stdio; the order reversed every other round.
import { failed, pp } from '../lib/bench.mjs';
import path from 'node:path';

export const title = 'Snapshots of a real document, side by side';
export const usage = '--doc FILE (required, e.g. /usr/share/doc/nodejs/api/all.html), --rounds N (2), --snapshots N (5)';

export async function run(b, o) {
  if (!o.doc) throw new Error('give --doc FILE: an HTML document to snapshot');
  const who = [
    ['tabhive', () => b.servers.tabhive(b.tabhive(), { optional: [['--snapshot-max-bytes', '0']] })],
    ['chrome-devtools-mcp', () => b.servers.cdm()],
    ['@playwright/mcp', () => b.servers.pwm({ transport: 'stdio' })],
  ];
  const rows = [];
  for (let r = 1; r <= (o.rounds ?? 2); r++) {
    const got = {}, loads = [];
    for (const [name, server] of r % 2 ? who : [...who].reverse()) {
      const x = await b.measure(`r${r} ${name}`, server(), { scenario: 'snapshot-large', largeN: 0, doc: o.doc, snapshots: o.snapshots ?? 5, callTimeoutMs: 120000 });
      got[name] = `${pp(x.tools?.take_snapshot ?? x.tools?.browser_snapshot)} ${failed(x)}`.trim();
      loads.push(x.load_start);
    }
    rows.push([`${path.basename(o.doc)} r${r} (${Math.max(...loads).toFixed(1)})`, ...who.map(([n]) => got[n])]);
  }
  b.print(['page, round (load)', 'tabhive p50 / p95 ms', 'chrome-devtools-mcp', '@playwright/mcp'], rows);
}
