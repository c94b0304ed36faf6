// What every table's command shares: its options, building the binaries
// it measures, running a measurement with a line of progress, keeping the
// raw results, and printing the table.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './harness.mjs';
import * as servers from './servers.mjs';

const log = (...a) => console.error('[bench]', ...a);
const load = () => os.loadavg()[0].toFixed(1);

// parseOptions reads "--name value" and "--flag" words into an object with
// camelCase keys; a number is a number, "a,b" a list where asked.
export function parseOptions(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) o[key] = true;
    else { o[key] = /^\d+(\.\d+)?$/.test(next) ? Number(next) : next; i++; }
  }
  return o;
}

export const list = (v, dflt) => (v === undefined ? dflt : String(v).split(',').map((x) => (/^\d+$/.test(x) ? Number(x) : x)));

// Bench is the context a table's run gets.
export class Bench {
  constructor(table, opts) {
    this.table = table;
    this.opts = opts;
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    this.out = opts.out ?? path.join(servers.BENCH, 'results', `${table}-${stamp}.jsonl`);
    fs.mkdirSync(path.dirname(path.resolve(this.out)), { recursive: true });
    this.bins = new Map();
    this.servers = servers;
  }

  // tabhive returns the binary built from rev ("tree": this working tree).
  tabhive(rev = this.opts.rev ?? 'tree') {
    if (!this.bins.has(rev)) this.bins.set(rev, servers.tabhiveBinary(rev));
    return this.bins.get(rev);
  }

  // save appends one raw result to the run's file, this checkout's path
  // written as ".".
  save(obj) { fs.appendFileSync(this.out, JSON.stringify(obj).split(servers.ROOT + path.sep).join('./') + '\n'); }

  // measure runs one scenario against one server (harness.run), saves and
  // returns its result; label names it in the raw file.
  async measure(label, server, opts) {
    log(`${label}: ${server.name} ${opts.scenario}, ${opts.agents ?? 1} agent(s), load ${load()}`);
    const r = await run(server, { ...opts, label });
    this.save(r);
    if (r.fatal) log(`  failed: ${r.fatal.split('\n')[0]}`);
    else if (r.iterations_failed) log(`  ${r.iterations_failed} iteration(s) failed: ${r.errors[0]}`);
    return r;
  }

  // go runs one of bench/'s Go programs with args and returns its stdout;
  // its stderr goes to ours.
  async go(label, dir, args, timeoutMs = 30 * 60 * 1000) {
    const bin = servers.goProgram(dir);
    log(`${label}: ${dir} ${args.join(' ').slice(0, 160)}, load ${load()}`);
    const stdout = await new Promise((resolve, reject) => {
      const child = execFile(bin, args, { maxBuffer: 64 << 20, timeout: timeoutMs }, (err, out) => {
        if (err) reject(new Error(`${dir}: ${err.message}`)); else resolve(out);
      });
      child.stderr.pipe(process.stderr);
    });
    this.save({ label, program: dir, args, date: new Date().toISOString(), stdout });
    return stdout;
  }

  // print writes a table in Markdown: headers and rows of cells.
  print(headers, rows) {
    const line = (cells) => `| ${cells.join(' | ')} |`;
    console.log([line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n') + '\n');
  }

  note(text) { console.log(text + '\n'); }

  done() {
    console.log(`Raw results: ${path.resolve(this.out)}; load average now ${load()}.`);
  }
}

// Formatting.
export const ms = (x) => (x === undefined ? '—' : x >= 1000 ? Math.round(x).toLocaleString('en') : String(Math.round(x * 10) / 10));
export const pp = (s) => (s ? `${ms(s.p50)} / ${ms(s.p95)}` : '—');
export const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '—');
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : undefined;
};
export const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
// failed names what went wrong in a run, for a cell.
export const failed = (r) => (r.fatal ? 'failed' : r.iterations_failed ? `${r.iterations_failed} failed` : '');
