// Snapshot speed across a change: /large?n=2000, 5 snapshots, over stdio,
// tabhive before (1acde61 by default) and after (this tree, with
// --snapshot-max-bytes 0, since that snapshot is over the default bound)
// and chrome-devtools-mcp 1.11; the order reversed every other round.
import { pp, ratio } from '../lib/bench.mjs';

export const title = 'Snapshot speed: tabhive before and after, and chrome-devtools-mcp (snapshot-large)';
export const usage = '--before REV (1acde61), --after REV (tree), --rounds N (4)';

export async function run(b, o) {
  const before = o.before ?? '1acde61', after = o.after ?? 'tree';
  const who = [
    ['tabhive before', () => b.servers.tabhive(b.tabhive(before), { optional: [['--snapshot-max-bytes', '0']], name: 'tabhive before' })],
    ['tabhive after', () => b.servers.tabhive(b.tabhive(after), { optional: [['--snapshot-max-bytes', '0']], name: 'tabhive after' })],
    ['chrome-devtools-mcp', () => b.servers.cdm()],
  ];
  const rows = [];
  for (let r = 1; r <= (o.rounds ?? 4); r++) {
    const got = {}, loads = [];
    for (const [name, server] of r % 2 ? who : [...who].reverse()) {
      const x = await b.measure(`r${r} ${name}`, server(), { scenario: 'snapshot-large', largeN: 2000, snapshots: 5 });
      got[name] = x.tools?.take_snapshot;
      loads.push(x.load_start, x.load_end ?? x.load_start);
    }
    rows.push([`r${r} (${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`, pp(got['tabhive before']), pp(got['tabhive after']),
      pp(got['chrome-devtools-mcp']), ratio(got['tabhive after']?.p50, got['chrome-devtools-mcp']?.p50)]);
  }
  b.print(['run (load)', `tabhive before (${before}) p50 / p95 ms`, `tabhive after (${after})`, 'chrome-devtools-mcp', 'after / chrome-devtools-mcp (p50)'], rows);
}
