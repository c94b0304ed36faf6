#!/usr/bin/env node
// One command per table of docs/BENCHMARKS.md:
//
//   node bench/run.mjs list               the tables, with their options
//   node bench/run.mjs TABLE [--option value ...]
//
// Each table is a module of bench/tables/ (TABLE.mjs). Its command builds
// what it measures (tabhive from this tree, or from a commit of its
// history), runs every server in one run, prints the table's figures side
// by side in Markdown on stdout (progress on stderr), and keeps the raw
// results in bench/results/ (or --out FILE).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench, parseOptions } from './lib/bench.mjs';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tables');

async function tables() {
  const out = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
    out.push({ name: f.slice(0, -4), ...(await import(pathToFileURL(path.join(dir, f)))) });
  }
  return out;
}

async function main() {
  const [name, ...rest] = process.argv.slice(2);
  const all = await tables();
  if (!name || name === 'list' || name === '-h' || name === '--help') {
    for (const t of all) console.log(`${t.name.padEnd(20)} ${t.title}\n${' '.repeat(21)}options: ${t.usage || 'none'}`);
    return;
  }
  const t = all.find((t) => t.name === name);
  if (!t) throw new Error(`no table ${name}: node bench/run.mjs list names them`);
  const b = new Bench(name, parseOptions(rest));
  console.log(`## ${t.title}\n\n${new Date().toISOString()}, node bench/run.mjs ${[name, ...rest].join(' ')}\n`);
  await t.run(b, b.opts);
  b.done();
}

main().catch((e) => {
  console.error(e.stack ?? e);
  process.exit(1);
});
