// Past one machine: the interact scenario through HAProxy to three tabhive
// instances (deploy/haproxy.cfg; bench/scale serve starts them), side by
// side in one run with the same three instances reached directly, K
// sessions each: "the three alone". Through the balancer the 3K sessions
// must do at least 0.9× what the three alone do, summed: a balancer that
// misrouted, serialised or slowed the sessions would fall short.
//
// The three alone run at once by default: both sides of the ratio then ask
// the machine for the same work, whatever else it is running, so the
// ratio is the balancer's own cost. With --alone sequential each instance
// runs alone with K sessions, one after the other, and the three rates
// are summed: that compares with the balancer only when 3K sessions' work
// fits the machine's cores, or the sum is of runs that each had the
// machine to themselves.
import net from 'node:net';
import { failed, list, median } from '../lib/bench.mjs';

// openPorts returns n loopback ports the system just gave out, free now
// (held together, so all different): four servers a measurement, on a
// machine where other runs pick ports too, are more than the harness's
// fixed sequence can be sure of.
const openPorts = async (n) => {
  const held = await Promise.all(Array.from({ length: n }, () => new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = held.map((s) => s.address().port);
  await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
};

export const title = 'Past one machine: interact through HAProxy to 3 instances, against the 3 alone (scale)';
export const usage = '--rounds N (3), --agents K per instance, list (1), --iterations N (6), --alone at-once|sequential (at-once)';

export async function run(b, o) {
  const rounds = o.rounds ?? 3;
  const sequential = o.alone === 'sequential';
  const bin = b.tabhive();
  const scale = b.servers.goProgram('scale');
  // cluster: three fresh instances (browsers started and ready) behind
  // HAProxy; direct, the sessions go to the instances in turn, not to it.
  const cluster = async (direct) => {
    const [port, ...own] = await openPorts(4);
    return {
      name: direct ? '3 × tabhive, reached directly' : '3 × tabhive behind HAProxy', kind: 'cdm', transport: 'http',
      argv: [scale, 'serve', '--tabhive', bin, '--deploy', `${b.servers.ROOT}/deploy`, '--listen', `127.0.0.1:${port}`,
        '--instance-ports', own.join(',')],
      url: `http://127.0.0.1:${port}/mcp`,
      urls: direct ? own.map((p) => `http://127.0.0.1:${p}/mcp`) : undefined,
      // serve listens once three browsers are up: give it its own budget.
      startTimeoutMs: 180000,
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
        if (!sequential) return [await b.measure(`r${r} direct a${3 * k}`, await cluster(true), opts(3 * k))];
        const xs = [];
        for (let i = 1; i <= 3; i++) {
          xs.push(await b.measure(`r${r} alone ${i} a${k}`, b.servers.tabhive(bin, { transport: 'http' }), opts(k)));
        }
        return xs;
      };
      const through = async () => b.measure(`r${r} haproxy a${3 * k}`, await cluster(false), opts(3 * k));
      // The balancer first in odd rounds, last in even ones: a load that
      // rises or falls during the run weighs on both alike.
      let xs, lb;
      if (r % 2) { lb = await through(); xs = await alone(); } else { xs = await alone(); lb = await through(); }
      const sum = ips(xs), got = lb.iterations_per_s;
      if (got && sum) ratios.push(got / sum);
      const all = [...xs, lb];
      const bad = all.map(failed).filter(Boolean).join(', ');
      const shown = sequential ? `${xs.map((x) => x.iterations_per_s ?? '—').join(' + ')} = ${sum.toFixed(2)}` : sum.toFixed(2);
      rows.push([`r${r}`, 3 * k, shown, `${got ?? '—'}`, got && sum ? (got / sum).toFixed(2) : '—',
        `${Math.min(...all.map((x) => x.load_start)).toFixed(1)}–${Math.max(...all.map((x) => x.load_end ?? x.load_start)).toFixed(1)}`,
        bad || 'none']);
    }
    rows.push(['median', 3 * k, '', '', ratios.length ? median(ratios).toFixed(2) : '—', '', '']);
  }
  const aloneHead = sequential
    ? 'each instance alone with K sessions, one after the other: iterations/s, summed'
    : 'the 3 instances reached directly, K sessions each, at once: iterations/s';
  b.print(['round', 'sessions (3K)', aloneHead, 'the same sessions through HAProxy: iterations/s', 'through ÷ alone', 'load', 'failures'], rows);
}
