// Many agents, many tabs: interact at 1, 4 and 8 agents (or --agents) for
// the three servers, interleaved per agent count, the servers' order
// reversed every other round: chrome-devtools-mcp over stdio,
// @playwright/mcp and tabhive over streamable HTTP (one session per
// agent). Beside iterations/s: each server's memory per agent (server and
// Chromium peaks over the agents), its CPU per iteration, and, when the
// agent counts include 1, each step's p50 and p95 at the other counts as a
// multiple of its own 1-agent p50 (the goal: no call slower than 3× it).
import { failed, list, median, ms, pp } from '../lib/bench.mjs';

export const title = "Throughput: interact at each agent count (--agents), and each step's latency";
export const usage = '--rounds N (2), --agents 1,4,8, --iterations N (5), --servers cdm,pwm,tabhive';

const stepNames = ['open', 'snapshot', 'click', 'wait_for', 'navigate', 'close'];

export async function run(b, o) {
  const rounds = o.rounds ?? 2;
  const agents = list(o.agents, [1, 4, 8]);
  const all = {
    cdm: ['chrome-devtools-mcp', () => b.servers.cdm()],
    pwm: ['@playwright/mcp', () => b.servers.pwm()],
    tabhive: ['tabhive', () => b.servers.tabhive(b.tabhive(), { transport: 'http' })],
  };
  const kinds = list(o.servers, ['cdm', 'pwm', 'tabhive']).map((k) => all[k] ?? (() => { throw new Error(`--servers: no server ${k} (cdm, pwm, tabhive)`); })());
  const res = {}; // agents → server → [result per round]
  for (let r = 1; r <= rounds; r++) {
    for (const k of agents) {
      const order = r % 2 ? kinds : [...kinds].reverse();
      for (const [name, server] of order) {
        const x = await b.measure(`r${r} ${name} a${k}`, server(), { scenario: 'interact', agents: k, iterations: o.iterations ?? 5 });
        ((res[k] ??= {})[name] ??= []).push(x);
      }
    }
  }
  const slash = (xs) => xs.map((x) => x).join(' / ');
  const rows = [], steps = [];
  const base = kinds[0][0];
  for (const k of agents) {
    for (const [name] of kinds) {
      const xs = res[k][name], first = res[k][base];
      const peak = (f) => Math.max(...xs.map((x) => f(x.rss) ?? 0));
      rows.push([k, name, slash(xs.map((x) => `${x.iterations_per_s ?? '—'}${failed(x) ? ` (${failed(x)})` : ''}`)),
        slash(xs.map((x) => x.calls_per_s ?? '—')),
        slash(xs.map((x, i) => (x.iterations_per_s && first[i].iterations_per_s ? (x.iterations_per_s / first[i].iterations_per_s).toFixed(2) : '—'))),
        ms(peak((r) => r?.server_peak_mb)), ms(peak((r) => r?.chromium_peak_mb)),
        ms((peak((r) => r?.server_peak_mb) + peak((r) => r?.chromium_peak_mb)) / k),
        slash(xs.map((x) => (x.cpu ? `${x.cpu.server_ms_per_iteration} + ${x.cpu.chromium_ms_per_iteration}` : '—')))]);
      const s = xs[0].steps ?? {};
      steps.push([k, name, ...stepNames.map((n) => pp(s[n]))]);
    }
  }
  b.print(['agents', 'server', `iterations/s ${Array.from({ length: rounds }, (_, i) => `r${i + 1}`).join(' / ')}`, 'calls/s', `× ${base}`,
    'server RSS peak MB', 'Chromium RSS peak MB', 'MB per agent (both peaks ÷ agents)', 'CPU ms / iteration, server + Chromium'], rows);
  b.note('p50 / p95 ms per step, r1:');
  b.print(['agents', 'server', ...stepNames], steps);
  if (!agents.includes(1) || agents.length < 2) return;
  // Each step's p50 and p95 over all rounds, as a multiple of the same
  // server's 1-agent p50 (the median of its rounds' p50s).
  const ratios = [];
  for (const k of agents.filter((k) => k !== 1)) {
    for (const [name] of kinds) {
      const one = (n) => median(res[1][name].map((x) => x.steps?.[n]?.p50).filter(Boolean));
      const worst = [];
      const cells = stepNames.map((n) => {
        const at = (q) => median(res[k][name].map((x) => x.steps?.[n]?.[q]).filter(Boolean));
        const p50 = at('p50') / one(n), p95 = at('p95') / one(n);
        if (Number.isFinite(p95)) worst.push(p95);
        return Number.isFinite(p50) ? `${p50.toFixed(1)}× / ${p95.toFixed(1)}×` : '—';
      });
      ratios.push([k, name, ...cells, worst.length ? `${Math.max(...worst).toFixed(1)}×` : '—']);
    }
  }
  b.note("Each step's p50 / p95 as a multiple of the same server's 1-agent p50 (medians over rounds):");
  b.print(['agents', 'server', ...stepNames, 'slowest p95'], ratios);
}
