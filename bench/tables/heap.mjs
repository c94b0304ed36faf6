// Heap snapshots of a page holding N objects: take_heapsnapshot, then the
// analysis tools from a cold start and on the loaded snapshot, tabhive
// beside chrome-devtools-mcp 1.11 (whose analysis runs on Node 20 only
// with bench/heap/polyfill.cjs preloaded). bench/heap/bench.mjs does the
// work; this prints its table.
import { execFile } from 'node:child_process';
import path from 'node:path';

import { BENCH, ROOT } from '../lib/servers.mjs';

export const title = 'Heap snapshots: take, analyse cold and cached (tabhive and chrome-devtools-mcp)';
export const usage = '--n N objects (1000000), --skip-cdm, --file F (analyse F instead of taking a snapshot)';

export async function run(b, o) {
  const args = [path.join(BENCH, 'heap', 'bench.mjs'), '--n', String(o.n ?? 1000000), '--node-modules', path.join(BENCH, 'node_modules')];
  if (o['skip-cdm']) args.push('--skip-cdm');
  if (o.file) args.push('--file', String(o.file));
  const out = await new Promise((resolve, reject) => {
    const child = execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 16 << 20, timeout: 3 * 60 * 60 * 1000 }, (err, stdout) => {
      if (err) reject(err); else resolve(stdout);
    });
    child.stderr.pipe(process.stderr);
  });
  const [json, ...table] = out.trim().split('\n');
  b.save({ label: 'heap', ...JSON.parse(json) });
  console.log(table.join('\n') + '\n');
}
