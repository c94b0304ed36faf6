// tabhive's own CPU, profiled: interact at 8 agents against tabhive started
// with --pprof, Go's CPU profile taken over the whole measured phase (in
// chunks of --seconds, merged with go tool pprof), and the CPU seconds per
// iteration of tabhive, of its Chromium and of the harness (/proc). The
// merged profile is kept beside the raw results; its top functions are
// printed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { ms } from '../lib/bench.mjs';

export const title = "tabhive's own CPU per iteration, profiled (interact)";
export const usage = '--rev REV (tree), --agents N (8), --iterations N (5), --seconds N (5), --top N (25)';

export async function run(b, o) {
  const port = b.servers.freePort();
  const server = b.servers.tabhive(b.tabhive(), { transport: 'http', extra: ['--pprof', `127.0.0.1:${port}`] });
  const seconds = o.seconds ?? 5;
  const chunks = [];
  // beside: once the sessions are warm, profile back to back until the
  // measured phase ends (the last chunk runs on a little, idle).
  const beside = async () => {
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        const r = await fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=${seconds}`);
        if (!r.ok) throw new Error(`pprof: ${r.status} ${await r.text()}`);
        chunks.push(Buffer.from(await r.arrayBuffer()));
      }
    })();
    return async () => { stopped = true; await loop; return { profile_chunks: chunks.length }; };
  };
  const x = await b.measure('profile', server, { scenario: 'interact', agents: o.agents ?? 8, iterations: o.iterations ?? 5, beside });
  if (x.fatal || !chunks.length) throw new Error(`no profile: ${x.fatal ?? 'the measured phase ended before a chunk'}`);
  const files = chunks.map((c, i) => { const f = `${b.out}.cpu${i}.pb.gz`; fs.writeFileSync(f, c); return f; });
  const merged = `${b.out.replace(/\.jsonl$/, '')}.cpu.pb.gz`;
  execFileSync('go', ['tool', 'pprof', '-proto', ...files], { stdio: ['ignore', fs.openSync(merged, 'w'), 'inherit'] });
  files.forEach((f) => fs.rmSync(f));
  const c = x.cpu;
  b.print(['iterations', 'iterations/s', 'tabhive CPU ms / iteration', 'Chromium CPU ms / iteration', 'harness CPU ms / iteration', 'load start → end'],
    [[x.iterations_ok, x.iterations_per_s, c.server_ms_per_iteration, c.chromium_ms_per_iteration, ms((c.client_s / x.iterations_ok) * 1000),
      `${x.load_start.toFixed(1)} → ${x.load_end.toFixed(1)}`]]);
  const top = (sort) => execFileSync('go', ['tool', 'pprof', '-top', `-nodecount=${o.top ?? 25}`, ...(sort === 'cum' ? ['-cum'] : []), merged], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  b.note(`The profile: ${merged} (\`go tool pprof -http=127.0.0.1:0 ${merged}\`). Top by own time:\n\n\`\`\`\n${top('flat').trim()}\n\`\`\``);
  b.note(`Top by cumulative time:\n\n\`\`\`\n${top('cum').trim()}\n\`\`\``);
}
