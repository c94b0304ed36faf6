// new_page on real pages: bench/newpage/newpage.mjs opens four pages
// served locally (the Go specification from GOROOT, underscore's
// documentation from /usr/share/doc, Swagger UI and a CodeMirror editor
// from bench/node_modules) with tabhive and chrome-devtools-mcp 1.11, the
// servers' order alternating from round to round, and checks that each
// snapshot shows what the page's scripts rendered.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ratio } from '../lib/bench.mjs';

export const title = 'new_page on real pages, side by side';
export const usage = '--rev REV (tree), --rounds N (3), --pages swagger-ui,... (all four)';

const names = { 'go-spec': 'Go specification', 'underscore-doc': 'underscore documentation', codemirror: 'CodeMirror editor', 'swagger-ui': 'Swagger UI' };

export async function run(b, o) {
  const bench = b.servers.BENCH;
  const servers = { tabhive: b.servers.tabhive(b.tabhive()), cdm: b.servers.cdm() };
  const args = [path.join(bench, 'newpage/newpage.mjs'), '--apps', bench, '--rounds', String(o.rounds ?? 3),
    ...(o.pages ? ['--pages', String(o.pages)] : []),
    ...Object.entries(servers).flatMap(([label, s]) => ['--server', `${label}=${s.argv.join(' ')}`])];
  console.error(`[bench] newpage: ${o.rounds ?? 3} round(s), tabhive and chrome-devtools-mcp`);
  const stdout = await new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { env: { ...process.env, BENCH_DEPS: bench }, maxBuffer: 16 << 20, timeout: 60 * 60 * 1000 },
      (err, out) => (err ? reject(new Error(`newpage: ${err.message}`)) : resolve(out)));
    child.stderr.pipe(process.stderr);
  });
  const out = JSON.parse(stdout.trim().split('\n').pop());
  b.save({ label: 'newpage', ...out });
  const cell = (x) => `${x.median_ms} ms${x.not_rendered ? ` (${x.not_rendered} not rendered)` : ''}`;
  const rows = Object.entries(names).filter(([key]) => out.pages[key]).map(([key, name]) => {
    const p = out.pages[key];
    return [name, cell(p.tabhive), cell(p.cdm), ratio(p.tabhive.median_ms, p.cdm.median_ms),
      `${p.tabhive.samples.join(' ')} / ${p.cdm.samples.join(' ')}`,
      `${p.tabhive.dcl_median_ms ?? '—'} / ${p.cdm.dcl_median_ms ?? '—'} ms`, ratio(p.tabhive.dcl_median_ms, p.cdm.dcl_median_ms)];
  });
  b.print(['page', `tabhive, median of ${out.rounds}`, 'chrome-devtools-mcp 1.11', 'tabhive / cdm', 'each round, tabhive / cdm (ms)', "the page's DOMContentLoaded, tabhive / cdm (median)", 'DCL tabhive / cdm'], rows);
  b.note(`Load average at the start and after each round: ${out.loads.join(', ')}.`);
}
