// A/B of two builds of tabhive on interact at 8 agents (8 streamable-HTTP
// sessions), alternating A B, B A, ... so that a load that rises or falls
// during the run weighs on both alike.
import { mean, median, ms } from './bench.mjs';

export async function ab(b, o, dflt) {
  const before = o.before ?? dflt.before, after = o.after ?? 'tree';
  const reps = o.reps ?? dflt.reps, agents = o.agents ?? 8;
  const variants = [['before', before, []], ['after', after, []]];
  if (o.policy) variants.push(['after, --allowed-url-pattern \'*://127.0.0.1:*/*\'', after, ['--allowed-url-pattern', '*://127.0.0.1:*/*']]);
  const res = variants.map(() => []);
  for (let r = 1; r <= reps; r++) {
    const order = r % 2 ? variants.map((_, i) => i) : variants.map((_, i) => i).reverse();
    for (const i of order) {
      const [name, rev, extra] = variants[i];
      if (name.startsWith('after,') && r > (o.policyRuns ?? 3)) continue;
      res[i].push(await b.measure(`r${r} ${name}`, b.servers.tabhive(b.tabhive(rev), { transport: 'http', extra, name: `tabhive ${name}` }),
        { scenario: 'interact', agents, iterations: o.iterations ?? 5 }));
    }
  }
  const rows = variants.map(([name, rev], i) => {
    const xs = res[i], its = xs.map((x) => x.iterations_per_s ?? 0);
    return [`${name} (${rev})`, its.join(' '), mean(its)?.toFixed(2), median(its)?.toFixed(2),
      xs.map((x) => ms(x.tools?.click?.p50)).join(' '), `${ms(median(xs.map((x) => x.tools?.click?.p50 ?? 0)))} ms`,
      `${ms(median(xs.map((x) => x.tools?.new_page?.p50 ?? 0)))} ms`,
      xs.map((x) => x.cpu?.chromium_ms_per_iteration ?? '—').join(' '), median(xs.map((x) => x.cpu?.chromium_ms_per_iteration).filter(Boolean)),
      median(xs.map((x) => x.cpu?.server_ms_per_iteration).filter(Boolean))];
  });
  b.print(['binary', `iterations/s, each run`, 'mean', 'median', 'click p50 per run (ms)', 'click p50 (median of runs)', 'new_page p50 (median of runs)',
    'Chromium CPU ms / iteration, each run', 'median', 'tabhive CPU ms / iteration, median'], rows);
  const m = res.map((xs) => mean(xs.map((x) => x.iterations_per_s ?? 0)));
  const cpu = res.map((xs) => median(xs.map((x) => x.cpu?.chromium_ms_per_iteration).filter(Boolean)));
  b.note(`after / before: ${(m[1] / m[0]).toFixed(2)} (mean), ${(median(res[1].map((x) => x.iterations_per_s)) / median(res[0].map((x) => x.iterations_per_s))).toFixed(2)} (median); Chromium CPU per iteration, after / before: ${(cpu[1] / cpu[0]).toFixed(2)} (median).`);
}
