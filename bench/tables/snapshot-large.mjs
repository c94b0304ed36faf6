// Large snapshots side by side: 5 snapshots of /large?n=2000 (16,017 DOM
// nodes) per server, each checked for the last item. tabhive runs with
// --snapshot-max-bytes 0: that snapshot is 309 KB, over its default bound,
// which would send an outline instead.
import { failed, ms, pp } from '../lib/bench.mjs';

export const title = 'Large snapshots, side by side (snapshot-large)';
export const usage = '--rounds N (2), --n N (2000), --snapshots N (5)';

export async function run(b, o) {
  const rounds = o.rounds ?? 2;
  const kinds = [
    ['chrome-devtools-mcp', () => b.servers.cdm()],
    ['@playwright/mcp', () => b.servers.pwm()],
    ['tabhive', () => b.servers.tabhive(b.tabhive(), { transport: 'http', optional: [['--snapshot-max-bytes', '0']] })],
  ];
  const res = {};
  for (let r = 1; r <= rounds; r++) {
    for (const [name, server] of kinds) {
      (res[name] ??= []).push(await b.measure(`r${r} ${name}`, server(), { scenario: 'snapshot-large', largeN: o.n ?? 2000, snapshots: o.snapshots ?? 5 }));
    }
  }
  b.print(['server', ...Array.from({ length: rounds }, (_, i) => `snapshot p50 / p95 ms r${i + 1}`), 'server RSS MB', 'snapshot bytes'],
    kinds.map(([name]) => [name, ...res[name].map((x) => `${pp(x.tools?.take_snapshot ?? x.tools?.browser_snapshot)} ${failed(x)}`.trim()),
      res[name].map((x) => ms(x.rss?.server_peak_mb)).join('–'), res[name][0].snapshot_bytes?.toLocaleString('en') ?? '—']));
}
