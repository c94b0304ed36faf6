// How close to Chromium's own ceiling: bench/cdpceiling does interact's
// browser work straight over CDP, with no MCP server and no settle waits,
// with and without focus emulation; tabhive at 8 agents in the same
// minutes.
import { list } from '../lib/bench.mjs';

export const title = "How close to Chromium's own ceiling (CDP loop and tabhive)";
export const usage = '--rounds N (2), --agents 1,4,8, --iterations N (5)';

export async function run(b, o) {
  const rounds = o.rounds ?? 2, agents = list(o.agents, [1, 4, 8]), n = String(o.iterations ?? 5);
  const loop = { false: {}, true: {} }, th = [];
  for (let r = 1; r <= rounds; r++) {
    for (const focus of [false, true]) {
      for (const k of agents) {
        const out = await b.go(`r${r} loop focus=${focus} a${k}`, 'cdpceiling', ['-agents', String(k), '-iterations', n, `-focus=${focus}`, '-label', `r${r}`]).catch((e) => (console.error(e.message), ''));
        const line = out.trim().split('\n').pop();
        ((loop[focus][k] ??= [])).push(line ? JSON.parse(line).iterations_per_s : undefined);
      }
    }
    const x = await b.measure(`r${r} tabhive a${agents.at(-1)}`, b.servers.tabhive(b.tabhive(), { transport: 'http' }), { scenario: 'interact', agents: agents.at(-1), iterations: Number(n) });
    th.push(x.iterations_per_s);
  }
  const slash = (xs) => xs.map((x) => x ?? '—').join(' / ');
  const rows = [false, true].map((focus) => {
    const last = loop[focus][agents.at(-1)];
    const ratios = th.map((t, i) => (t && last[i] ? (t / last[i]).toFixed(2) : '—'));
    return [focus ? 'tabs with focus emulation, as tabhive\'s pages' : 'tabs, no focus emulation',
      ...agents.map((k) => slash(loop[focus][k])), slash(th), ratios.join(' / ')];
  });
  b.print(['CDP loop', ...agents.map((k) => `${k} agent${k > 1 ? 's' : ''}`), `tabhive at ${agents.at(-1)} agents, same minutes`, 'tabhive ÷ loop'], rows);
}
