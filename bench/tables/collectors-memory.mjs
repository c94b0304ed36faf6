// Collectors under endless traffic: bench/collectorsmemory drives a page
// that logs, fetches and throws without end and reloads every 10 s, over
// stdio, and samples the server's RSS each second.
import { list } from '../lib/bench.mjs';

export const title = 'Collectors under endless traffic (server RSS)';
export const usage = '--durations 60s,180s (tabhive; chrome-devtools-mcp gets the first)';

const cmdline = (s) => s.argv;

export async function run(b, o) {
  const durations = list(o.durations, ['60s', '180s']).map(String);
  const runs = durations.map((d) => ['tabhive', d, b.servers.tabhive(b.tabhive())]);
  runs.push(['chrome-devtools-mcp 1.11', durations[0], b.servers.cdm()]);
  const rows = [];
  for (const [name, d, server] of runs) {
    const out = await b.go(`${name} ${d}`, 'collectorsmemory', ['-duration', d, '--', ...cmdline(server)]).catch((e) => (console.error(e.message), ''));
    const m = /start ([\d.]+) MiB, peak ([\d.]+) MiB, end ([\d.]+) MiB, slope ([-\d.]+) MiB\/min over \d+ samples, ([-\d.]+) MiB\/min from (\S+) on/.exec(out);
    rows.push(m ? [`${name}, ${d}`, `${m[1]} MiB`, `${m[2]} MiB`, `${m[3]} MiB`, `${m[4]} MiB/min`, `${m[5]} MiB/min (t ≥ ${m[6]})`] : [`${name}, ${d}`, 'failed', '', '', '', '']);
  }
  b.print(['server, run', 'start', 'peak', 'end', 'slope, whole run', 'slope once full'], rows);
}
