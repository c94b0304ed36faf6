// How close to Chromium's own ceiling: bench/cdpceiling does interact's
// browser work straight over CDP, with no MCP server and no settle waits,
// without and with focus emulation, and with focus emulation plus what
// tabhive turns on in the browser (-features tabhive: its domains, its
// document-start tracker, its in-page snapshot walker); tabhive at the last
// agent count in the same minutes.
import path from 'node:path';
import { list } from '../lib/bench.mjs';
import { ROOT } from '../lib/servers.mjs';

export const title = "How close to Chromium's own ceiling (CDP loop and tabhive)";
export const usage = '--rounds N (2), --agents 1,4,8, --iterations N (5)';

const loops = [
  { name: 'tabs, no focus emulation', args: ['-focus=false'] },
  { name: "tabs with focus emulation, as tabhive's pages", args: ['-focus=true'] },
  { name: "focus emulation and tabhive's features in the browser (domains, tracker, walker)", args: ['-focus=true', '-features', 'tabhive', '-js', path.join(ROOT, 'page', 'js')] },
];

export async function run(b, o) {
  const rounds = o.rounds ?? 2, agents = list(o.agents, [1, 4, 8]), n = String(o.iterations ?? 5);
  const loop = loops.map(() => ({})), th = [];
  for (let r = 1; r <= rounds; r++) {
    for (const [i, l] of loops.entries()) {
      for (const k of agents) {
        const out = await b.go(`r${r} loop ${l.args.join(' ')} a${k}`, 'cdpceiling', ['-agents', String(k), '-iterations', n, ...l.args, '-label', `r${r}`]).catch((e) => (console.error(e.message), ''));
        const line = out.trim().split('\n').pop();
        ((loop[i][k] ??= [])).push(line ? JSON.parse(line).iterations_per_s : undefined);
      }
    }
    const x = await b.measure(`r${r} tabhive a${agents.at(-1)}`, b.servers.tabhive(b.tabhive(), { transport: 'http' }), { scenario: 'interact', agents: agents.at(-1), iterations: Number(n) });
    th.push(x.iterations_per_s);
  }
  const slash = (xs) => xs.map((x) => x ?? '—').join(' / ');
  const rows = loops.map((l, i) => {
    const last = loop[i][agents.at(-1)];
    const ratios = th.map((t, j) => (t && last[j] ? (t / last[j]).toFixed(2) : '—'));
    return [l.name, ...agents.map((k) => slash(loop[i][k])), slash(th), ratios.join(' / ')];
  });
  b.print(['CDP loop', ...agents.map((k) => `${k} agent${k > 1 ? 's' : ''}`), `tabhive at ${agents.at(-1)} agents, same minutes`, 'tabhive ÷ loop'], rows);
}
