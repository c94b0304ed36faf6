// Past one machine: the interact scenario through HAProxy to three tabhive
// instances (deploy/haproxy.cfg, started by bench/scale serve), side by
// side in one run with
//   - alone: each of the three run by itself with a third of the agents,
//     one after the other (the figure the balanced three must reach:
//     at least 0.9× their sum);
//   - direct: the three at once, each driven directly by its third of the
//     agents (no balancer): what three instances on this machine do, so
//     that the balancer's own cost is the ratio to this.
// K agents per instance must fit the machine (3K agents' work within its
// cores), or the sum of runs that each had the machine to themselves is
// more than one machine can do at once.
import { failed, list, median } from '../lib/bench.mjs';

export const title = 'Past one machine: interact through HAProxy to 3 instances, against the 3 alone and the 3 driven directly (scale)';
export const usage = '--rounds N (3), --agents K per instance, list (1), --iterations N (6)';

export async function run(b, o) {
  const rounds = o.rounds ?? 3;
  const bin = b.tabhive();
  const scale = b.servers.goProgram('scale');
  const cluster = () => {
    const port = b.servers.freePort();
    return {
      name: '3 × tabhive behind HAProxy', kind: 'cdm', transport: 'http',
      argv: [scale, 'serve', '--tabhive', bin, '--deploy', `${b.servers.ROOT}/deploy`, '--listen', `127.0.0.1:${port}`],
      url: `http://127.0.0.1:${port}/mcp`,
    };
  };
  const ips = (xs) => xs.reduce((a, x) => a + (x.iterations_per_s ?? 0), 0);
  const rows = [];
  for (const k of list(o.agents, [1])) {
    // Calls get two minutes (the harness's default is 30 s): three
    // Chromiums start at once in the warm-up, on a machine that may be
    // loaded.
    const opts = (agents) => ({ scenario: 'interact', agents, iterations: o.iterations ?? 6, callTimeoutMs: 120000 });
    const vsAlone = [], vsDirect = [];
    for (let r = 1; r <= rounds; r++) {
      const alone = async () => {
        const xs = [];
        for (let i = 1; i <= 3; i++) {
          xs.push(await b.measure(`r${r} alone ${i} a${k}`, b.servers.tabhive(bin, { transport: 'http' }), opts(k)));
        }
        return xs;
      };
      const direct = () => Promise.all([1, 2, 3].map((i) =>
        b.measure(`r${r} direct ${i} a${k}`, b.servers.tabhive(bin, { transport: 'http' }), opts(k))));
      const through = () => b.measure(`r${r} haproxy a${3 * k}`, cluster(), opts(3 * k));
      // The order turns each round, so that a load that rises or falls
      // during the run weighs on all three alike.
      const order = [['alone', alone], ['direct', direct], ['haproxy', through]];
      for (let i = 0; i < (r - 1) % 3; i++) order.push(order.shift());
      const got = {};
      for (const [name, fn] of order) got[name] = await fn();
      const sumAlone = ips(got.alone), sumDirect = ips(got.direct), lb = got.haproxy.iterations_per_s;
      if (lb && sumAlone) vsAlone.push(lb / sumAlone);
      if (lb && sumDirect) vsDirect.push(lb / sumDirect);
      const all = [...got.alone, ...got.direct, got.haproxy];
      const bad = all.map(failed).filter(Boolean).join(', ');
      rows.push([`r${r} (${order.map((x) => x[0]).join(', ')})`, k,
        `${got.alone.map((x) => x.iterations_per_s ?? '—').join(' + ')} = ${sumAlone.toFixed(2)}`,
        `${got.direct.map((x) => x.iterations_per_s ?? '—').join(' + ')} = ${sumDirect.toFixed(2)}`,
        `${lb ?? '—'}`, lb && sumAlone ? (lb / sumAlone).toFixed(2) : '—', lb && sumDirect ? (lb / sumDirect).toFixed(2) : '—',
        `${Math.min(...all.map((x) => x.load_start)).toFixed(1)}–${Math.max(...all.map((x) => x.load_end ?? x.load_start)).toFixed(1)}`,
        bad || 'none']);
    }
    rows.push(['median', k, '', '', '', vsAlone.length ? median(vsAlone).toFixed(2) : '—', vsDirect.length ? median(vsDirect).toFixed(2) : '—', '', '']);
  }
  b.print(['round (order)', 'agents per instance', 'alone, one after the other: iterations/s', 'direct, the three at once', `through HAProxy (3K agents)`,
    'HAProxy ÷ alone', 'HAProxy ÷ direct', 'load', 'failures'], rows);
}
