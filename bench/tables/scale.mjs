// Past one machine: the interact scenario through HAProxy to three tabhive
// instances (deploy/haproxy.cfg; bench/scale serve starts them), side by
// side in one run with each of the three run alone with a third of the
// agents, one after the other. Through the balancer, the 3K sessions must
// do at least 0.9× what the three alone do with K each, summed: a balancer
// that misrouted, serialised or slowed the sessions would fall short. K
// must fit the machine (3K agents' work within its cores), or the sum of
// runs that each had the machine to themselves is more than one machine
// can do at once.
import { failed, list, median } from '../lib/bench.mjs';

export const title = 'Past one machine: interact through HAProxy to 3 instances, against the 3 alone (scale)';
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
    // Calls get two minutes (the harness's default is 30 s), for a
    // machine that may be loaded.
    const opts = (agents) => ({ scenario: 'interact', agents, iterations: o.iterations ?? 6, callTimeoutMs: 120000 });
    const ratios = [];
    for (let r = 1; r <= rounds; r++) {
      const alone = async () => {
        const xs = [];
        for (let i = 1; i <= 3; i++) {
          xs.push(await b.measure(`r${r} alone ${i} a${k}`, b.servers.tabhive(bin, { transport: 'http' }), opts(k)));
        }
        return xs;
      };
      const through = () => b.measure(`r${r} haproxy a${3 * k}`, cluster(), opts(3 * k));
      // The balancer first in odd rounds, last in even ones: a load that
      // rises or falls during the run weighs on both alike.
      let xs, lb;
      if (r % 2) { lb = await through(); xs = await alone(); } else { xs = await alone(); lb = await through(); }
      const sum = ips(xs), got = lb.iterations_per_s;
      if (got && sum) ratios.push(got / sum);
      const all = [...xs, lb];
      const bad = all.map(failed).filter(Boolean).join(', ');
      rows.push([`r${r}`, k, `${xs.map((x) => x.iterations_per_s ?? '—').join(' + ')} = ${sum.toFixed(2)}`, 3 * k,
        `${got ?? '—'}`, got && sum ? (got / sum).toFixed(2) : '—',
        `${Math.min(...all.map((x) => x.load_start)).toFixed(1)}–${Math.max(...all.map((x) => x.load_end ?? x.load_start)).toFixed(1)}`,
        bad || 'none']);
    }
    rows.push(['median', k, '', 3 * k, '', ratios.length ? median(ratios).toFixed(2) : '—', '', '']);
  }
  b.print(['round', 'agents per instance', 'alone, one after the other: iterations/s', 'agents through HAProxy', 'iterations/s through HAProxy', '÷ sum alone', 'load', 'failures'], rows);
}
