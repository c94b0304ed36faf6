// Many agents, many tabs: interact at 1, 4 and 8 agents for the three
// servers, interleaved per agent count: chrome-devtools-mcp over stdio,
// @playwright/mcp and tabhive over streamable HTTP (one session per agent).
import { failed, list, ms, pp } from '../lib/bench.mjs';

export const title = "Throughput: interact at 1, 4 and 8 agents, and each step's latency";
export const usage = '--rounds N (2), --agents 1,4,8, --iterations N (5)';

export async function run(b, o) {
  const rounds = o.rounds ?? 2;
  const agents = list(o.agents, [1, 4, 8]);
  const kinds = [
    ['chrome-devtools-mcp', () => b.servers.cdm()],
    ['@playwright/mcp', () => b.servers.pwm()],
    ['tabhive', () => b.servers.tabhive(b.tabhive(), { transport: 'http' })],
  ];
  const res = {}; // agents → server → [result per round]
  for (let r = 1; r <= rounds; r++) {
    for (const k of agents) {
      for (const [name, server] of kinds) {
        const x = await b.measure(`r${r} ${name} a${k}`, server(), { scenario: 'interact', agents: k, iterations: o.iterations ?? 5 });
        ((res[k] ??= {})[name] ??= []).push(x);
      }
    }
  }
  const slash = (xs) => xs.map((x) => x).join(' / ');
  const rows = [], steps = [];
  for (const k of agents) {
    const base = res[k]['chrome-devtools-mcp'];
    for (const [name] of kinds) {
      const xs = res[k][name];
      rows.push([k, name, slash(xs.map((x) => `${x.iterations_per_s ?? '—'}${failed(x) ? ` (${failed(x)})` : ''}`)),
        slash(xs.map((x) => x.calls_per_s ?? '—')),
        slash(xs.map((x, i) => (x.iterations_per_s && base[i].iterations_per_s ? (x.iterations_per_s / base[i].iterations_per_s).toFixed(2) : '—'))),
        ms(Math.max(...xs.map((x) => x.rss?.server_peak_mb ?? 0))), ms(Math.max(...xs.map((x) => x.rss?.chromium_peak_mb ?? 0)))]);
      const s = xs[0].steps ?? {};
      steps.push([k, name, pp(s.open), pp(s.snapshot), pp(s.click), pp(s.wait_for), pp(s.navigate), pp(s.close)]);
    }
  }
  b.print(['agents', 'server', `iterations/s ${Array.from({ length: rounds }, (_, i) => `r${i + 1}`).join(' / ')}`, 'calls/s', '× chrome-devtools-mcp', 'server RSS peak MB', 'Chromium RSS peak MB'], rows);
  b.note('p50 / p95 ms per step, r1:');
  b.print(['agents', 'server', 'open a page', 'snapshot', 'click', 'wait_for', 'navigate', 'close'], steps);
}
