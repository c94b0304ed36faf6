// How close to Chromium's own ceiling: bench/cdpceiling does interact's
// browser work straight over CDP, with no MCP server and no settle waits,
// without and with focus emulation, and with focus emulation plus what
// tabhive turns on in the browser (-features tabhive: its domains, its
// document-start tracker, its in-page snapshot walker); tabhive at the last
// agent count in the same minutes. The order is reversed every other
// round, so that a load that rises or falls weighs on all alike; beside
// iterations/s, each run's Chromium CPU per iteration (/proc), which the
// load disturbs less. The two ratios that matter: the features loop
// ÷ the plain loop (what the features cost Chromium) and tabhive ÷ the
// features loop (what tabhive's own driving costs). --wait-snapshot: every
// loop also takes the snapshot that wait_for's reply carries (in
// chrome-devtools-mcp and in tabhive), so that the loops do the browser
// work of tabhive's replies.
import path from 'node:path';
import { list, median } from '../lib/bench.mjs';
import { ROOT } from '../lib/servers.mjs';

export const title = "How close to Chromium's own ceiling (CDP loop and tabhive)";
export const usage = '--rounds N (2), --agents 1,4,8, --iterations N (5), --wait-snapshot';

const loops = [
  { name: 'tabs, no focus emulation', args: ['-focus=false'] },
  { name: "tabs with focus emulation, as tabhive's pages", args: ['-focus=true'] },
  { name: "focus emulation and tabhive's features in the browser (domains, tracker, walker at document start)", args: ['-focus=true', '-features', 'tabhive', '-js', path.join(ROOT, 'page', 'js')] },
];

// sum is the CPU one iteration costs the machine's cores, ms: a loop's
// Chromium and the loop itself, or tabhive's Chromium, tabhive and the
// harness's MCP client; total writes it with its parts.
const sum = (x, kind) => {
  const parts = kind === 'loop' ? [x?.chromium_cpu_ms_per_iteration, x?.loop_cpu_ms_per_iteration] : [x?.chromium_cpu_ms_per_iteration, x?.server_cpu_ms_per_iteration, x?.client_cpu_ms_per_iteration];
  return parts.every((v) => v !== undefined) ? parts.reduce((a, v) => a + v, 0) : undefined;
};
const total = (x, kind) => {
  const s = sum(x, kind);
  if (s === undefined) return '—';
  const r = (v) => Math.round(v);
  return kind === 'loop' ? `${r(s)} (${r(x.chromium_cpu_ms_per_iteration)} + ${r(x.loop_cpu_ms_per_iteration)})` : `${r(s)} (${r(x.chromium_cpu_ms_per_iteration)} + ${r(x.server_cpu_ms_per_iteration)} + ${r(x.client_cpu_ms_per_iteration)})`;
};

export async function run(b, o) {
  const rounds = o.rounds ?? 2, agents = list(o.agents, [1, 4, 8]), n = String(o.iterations ?? 5), last = agents.at(-1);
  const loop = loops.map(() => ({})), th = [];
  const runLoop = async (r, i) => {
    const l = loops[i];
    for (const k of agents) {
      const out = await b.go(`r${r} loop ${l.args.join(' ')} a${k}`, 'cdpceiling', ['-agents', String(k), '-iterations', n, ...l.args, ...(o.waitSnapshot ? ['-wait-snapshot'] : []), '-label', `r${r}`]).catch((e) => (console.error(e.message), ''));
      const line = out.trim().split('\n').pop();
      ((loop[i][k] ??= [])).push(line ? JSON.parse(line) : {});
    }
  };
  const runTabhive = async (r) => {
    const x = await b.measure(`r${r} tabhive a${last}`, b.servers.tabhive(b.tabhive(), { transport: 'http' }), { scenario: 'interact', agents: last, iterations: Number(n) });
    th.push({
      iterations_per_s: x.iterations_per_s, chromium_cpu_ms_per_iteration: x.cpu?.chromium_ms_per_iteration, server_cpu_ms_per_iteration: x.cpu?.server_ms_per_iteration,
      client_cpu_ms_per_iteration: x.cpu && x.iterations_ok ? (x.cpu.client_s * 1000) / x.iterations_ok : undefined,
    });
  };
  for (let r = 1; r <= rounds; r++) {
    const steps = [...loops.map((_, i) => () => runLoop(r, i)), () => runTabhive(r)];
    if (r % 2 === 0) steps.reverse();
    for (const s of steps) await s();
  }
  const slash = (xs) => xs.map((x) => x ?? '—').join(' / ');
  const its = (xs) => xs.map((x) => x.iterations_per_s);
  const cpu = (xs) => xs.map((x) => (x.chromium_cpu_ms_per_iteration === undefined ? undefined : Math.round(x.chromium_cpu_ms_per_iteration)));
  const rows = loops.map((l, i) => {
    const at = loop[i][last];
    const ratios = th.map((t, j) => (t.iterations_per_s && at[j].iterations_per_s ? (t.iterations_per_s / at[j].iterations_per_s).toFixed(2) : '—'));
    return [l.name, ...agents.map((k) => slash(its(loop[i][k]))), slash(cpu(at)), slash(its(th)), ratios.join(' / ')];
  });
  rows.push([`tabhive (its Chromium; tabhive itself ${slash(th.map((t) => t.server_cpu_ms_per_iteration))} ms)`, ...agents.map(() => ''), slash(cpu(th)), slash(its(th)), '']);
  b.print(['CDP loop', ...agents.map((k) => `${k} agent${k > 1 ? 's' : ''}`), `Chromium CPU ms / iteration at ${last}`, `tabhive at ${last} agents, same minutes`, 'tabhive ÷ loop'], rows);
  const per = (a, c) => a.map((x, j) => (x && c[j] ? x / c[j] : undefined));
  const fmt = (xs) => `${xs.map((x) => (x ? x.toFixed(2) : '—')).join(' / ')} (median ${median(xs.filter(Boolean))?.toFixed(2) ?? '—'})`;
  const plain = loop[1][last], feat = loop[2][last];
  b.note([`At ${last} agents, round by round${o.waitSnapshot ? " (each loop also taking the snapshot wait_for's reply carries: --wait-snapshot)" : ''}:`,
    `- features loop ÷ plain loop (focus emulation), iterations/s: ${fmt(per(its(feat), its(plain)))}; Chromium CPU per iteration, plain ÷ features: ${fmt(per(cpu(plain), cpu(feat)))}`,
    `- tabhive ÷ features loop, iterations/s: ${fmt(per(its(th), its(feat)))}; Chromium CPU per iteration, features loop ÷ tabhive: ${fmt(per(cpu(feat), cpu(th)))}`,
    `- all the CPU an iteration costs the two cores, ms (the features loop: its Chromium and itself; tabhive: its Chromium, tabhive and the MCP client, which the loop does not have), round by round: ${feat.map((f, j) => `${total(f, 'loop')} vs ${total(th[j], 'tabhive')}`).join(' / ')}; features loop ÷ tabhive: ${fmt(per(feat.map((f) => sum(f, 'loop')), th.map((t) => sum(t, 'tabhive'))))}. On saturated cores iterations/s go as the inverse of this CPU.`].join('\n'));
}
