// Foundation: the interact scenario at 1 and 4 agents. chrome-devtools-mcp
// over stdio (its only transport: the agents share the connection and pass
// pageId); tabhive over streamable HTTP, one session per agent.
import { failed, list, ms, pp } from '../lib/bench.mjs';

export const title = 'Interact, 1 and 4 agents (interact)';
export const usage = '--rounds N (2), --agents 1,4, --iterations N (5)';

export async function run(b, o) {
  const rows = [];
  for (const k of list(o.agents, [1, 4])) {
    const got = [];
    for (let r = 1; r <= (o.rounds ?? 2); r++) {
      const opts = { scenario: 'interact', agents: k, iterations: o.iterations ?? 5 };
      got.push(['chrome-devtools-mcp', r, await b.measure(`r${r} cdm a${k}`, b.servers.cdm(), opts)]);
      got.push(['tabhive', r, await b.measure(`r${r} tabhive a${k}`, b.servers.tabhive(b.tabhive(), { transport: 'http' }), opts)]);
    }
    got.sort((x, y) => x[0].localeCompare(y[0]) || x[1] - y[1]);
    for (const [name, r, x] of got) {
      rows.push([name, `r${r}`, k, `${x.iterations_per_s ?? '—'} ${failed(x)}`.trim(), x.calls_per_s ?? '—', pp(x.tools?.click),
        pp(x.tools?.take_snapshot), ms(x.tools?.navigate_page?.p50), ms(x.rss?.server_peak_mb)]);
    }
  }
  b.print(['server', 'run', 'agents', 'iterations/s', 'calls/s', 'click p50 / p95 ms', 'snapshot p50 / p95 ms', 'navigate p50 ms', 'server RSS peak MB'], rows);
}
