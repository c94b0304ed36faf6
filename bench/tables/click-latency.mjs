// Foundation: 30 clicks on /button-async, whose effect lands 50 ms after
// the click; chrome-devtools-mcp and tabhive over stdio, in turn, each
// round.
import { pp, ratio } from '../lib/bench.mjs';

export const title = 'Click latency, side by side (click-latency)';
export const usage = '--rounds N (2), --clicks N (30)';

export async function run(b, o) {
  const rows = [];
  for (let r = 1; r <= (o.rounds ?? 2); r++) {
    const opts = { scenario: 'click-latency', iterations: o.clicks ?? 30 };
    const cdm = await b.measure(`r${r} cdm`, b.servers.cdm(), opts);
    const th = await b.measure(`r${r} tabhive`, b.servers.tabhive(b.tabhive()), opts);
    rows.push([`r${r}`, pp(cdm.tools?.click), pp(th.tools?.click), ratio(th.tools?.click?.p50, cdm.tools?.click?.p50)]);
  }
  b.print(['run', 'chrome-devtools-mcp p50 / p95 ms', 'tabhive p50 / p95 ms', 'ratio (p50)'], rows);
}
