// Agent state beside clicks: do set_cookie and route_requests calls on one
// page slow the clicks of agents on other pages? 8 agents (8 MCP sessions
// over HTTP, a page each) click 30 times each, as click-latency does; a
// ninth session keeps a page of its own busy beside them (bench/state/
// noise.mjs), in turn: nothing ("quiet"), state calls at 10 a second
// ("state 10/s"), state calls as fast as the server answers ("state max"),
// and list_pages as fast as it answers ("control max": a call that takes
// no lock and asks the browser nothing, so the CPU alone). Each run is a
// tabhive of its own; the order of the four is reversed every other round.
import { median, ms, ratio } from '../lib/bench.mjs';
import { startNoise } from '../state/noise.mjs';

export const title = 'Agent state beside clicks: set_cookie and route_requests on one page, clicks on eight others (state-noise)';
export const usage = '--rounds N (3), --clicks N (30), --agents N (8), --rate N (10)';

export async function run(b, o) {
  const agents = o.agents ?? 8;
  const rate = o.rate ?? 10;
  const modes = [
    ['quiet', null],
    [`state ${rate}/s`, { mode: 'state', rate }],
    ['state max', { mode: 'state' }],
    ['control max', { mode: 'control' }],
  ];
  const rows = [];
  const ratios = new Map();
  for (let r = 1; r <= (o.rounds ?? 3); r++) {
    const order = r % 2 ? modes : [...modes].reverse();
    const got = new Map();
    for (const [name, noise] of order) {
      const opts = { scenario: 'click-latency', agents, iterations: o.clicks ?? 30 };
      if (noise) opts.beside = (server) => startNoise(server.url, noise);
      got.set(name, await b.measure(`r${r} ${name}`, b.servers.tabhive(b.tabhive(), { transport: 'http' }), opts));
    }
    const quiet = got.get('quiet').tools?.click;
    for (const [name] of modes) {
      const res = got.get(name);
      const click = res.tools?.click;
      const n = res.beside;
      const beside = n ? `${n.calls} in ${n.seconds} s (${Math.round(n.calls / n.seconds)}/s${n.failed ? `, ${n.failed} failed` : ''}); p50 ${Object.entries(n.tools).map(([t, s]) => `${t} ${ms(s.p50)}`).join(', ')} ms` : '—';
      if (name !== 'quiet' && click && quiet) {
        if (!ratios.has(name)) ratios.set(name, []);
        ratios.get(name).push(click.p50 / quiet.p50);
      }
      rows.push([`r${r} ${name}`, `${res.load_start.toFixed(0)}`, click ? `${ms(click.p50)} / ${ms(click.p95)}` : 'failed', name === 'quiet' ? '' : ratio(click?.p50, quiet?.p50), res.iterations_failed ? `${res.iterations_failed} failed` : '', beside]);
    }
  }
  b.print(['run', 'load1', 'clicks p50 / p95 ms', 'p50 × quiet', 'errors', 'calls beside (one session)'], rows);
  b.note([...ratios].map(([name, xs]) => `${name}: median of the rounds' p50 ratios to quiet ${median(xs).toFixed(2)}`).join('; ') + '.');
}
