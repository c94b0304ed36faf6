// make-fixtures.mjs takes the heap snapshots the Go tests use, gzipped, into
// internal/devtools/heap/testdata: leaks-before and leaks-after, of
// fixtures/leaks.html before and after its leak grows by 200 widgets and 200
// handlers (same page, so object ids match between them).
//
//   node bench/heap/make-fixtures.mjs [--node-modules DIR] [--out DIR]
//
// It drives chrome-devtools-mcp 1.11 (take_heapsnapshot works on Node 20).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

import {arg, callText, nodeModules, pageIdOf, repo, serveFixtures, startCDM} from './lib.mjs';

const out = arg('--out', path.join(repo, 'internal', 'devtools', 'heap', 'testdata'));
const modules = nodeModules();
const {server, base} = await serveFixtures();
const client = await startCDM(modules);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-fixtures-'));
try {
  const url = base + 'leaks.html';
  await callText(client, 'new_page', {url});
  const pageId = pageIdOf((await callText(client, 'list_pages', {})).text, url);
  const take = async name => {
    const file = path.join(tmp, name + '.heapsnapshot');
    const r = await callText(client, 'take_heapsnapshot', {pageId, filePath: file});
    if (r.isError) throw new Error(r.text);
    const gz = zlib.gzipSync(fs.readFileSync(file), {level: 9});
    fs.writeFileSync(path.join(out, name + '.heapsnapshot.gz'), gz);
    console.error(`${name}: ${fs.statSync(file).size} bytes, ${gz.length} gzipped`);
  };
  await take('leaks-before');
  const r = await callText(client, 'evaluate_script', {pageId, function: '() => { grow(200); return widgets.length; }'});
  if (r.isError) throw new Error(r.text);
  await take('leaks-after');
} finally {
  await client.close();
  server.close();
  fs.rmSync(tmp, {recursive: true, force: true});
}
