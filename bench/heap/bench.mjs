// bench.mjs measures heap snapshots end to end, tabhive beside
// chrome-devtools-mcp 1.11, on fixtures/big.html holding N objects:
//
//  1. take_heapsnapshot of the page: time, and how much the server's RSS
//     grows while the snapshot streams through it;
//  2. get_heapsnapshot_summary from a fresh server (cold: parse and build),
//     then the other analysis tools on the loaded snapshot (cached), each
//     timed; the server's RSS beside the bytes of the arrays the model
//     needs (measured in-process by bench/heap/arrays);
//  3. the same with chrome-devtools-mcp where it runs (its analysis needs
//     Promise.withResolvers, which polyfill.cjs gives Node 20).
//
//   node bench/heap/bench.mjs [--n 1000000] [--node-modules DIR] [--skip-cdm] [--file F] [--keep F]
//
// --file skips the snapshot and analyses F; --keep copies the snapshot to F. The server's RSS is the
// server process's own (VmRSS of its /proc status), Chromium not counted.
// It prints one JSON object, then a Markdown table.

import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import {arg, callText, nodeModules, pageIdOf, repo, serveFixtures, startCDM} from './lib.mjs';

const n = Number(arg('--n', '1000000'));
const skipCDM = process.argv.includes('--skip-cdm');
const modules = skipCDM ? null : nodeModules();
const sdkModules = modules ?? arg('--node-modules', path.join(repo, 'bench', 'node_modules'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-bench-'));
const chromium = process.env.TABHIVE_CHROMIUM || '/usr/bin/chromium';

function rss(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = k => Number((new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s) || [])[1] || 0);
    return {rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024};
  } catch {
    return {rss: 0, hwm: 0};
  }
}

// cpu is a process's user and system CPU time so far, in seconds (clock
// ticks of 1/100 s): what a call cost whatever the machine's load.
function cpu(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

// sampler records a process's peak RSS every 50 ms while running.
function sampler(pid) {
  let peak = rss(pid).rss;
  const timer = setInterval(() => { peak = Math.max(peak, rss(pid).rss); }, 50);
  return () => { clearInterval(timer); return Math.max(peak, rss(pid).rss); };
}

async function startTabhive(bin, extra = []) {
  const sdk = path.join(sdkModules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', 'client');
  const {Client} = await import(pathToFileURL(path.join(sdk, 'index.js')));
  const {StdioClientTransport} = await import(pathToFileURL(path.join(sdk, 'stdio.js')));
  const transport = new StdioClientTransport({
    command: bin,
    args: ['--headless', '--isolated', '--executable-path', chromium, '--memory-debugging', '--workspace', work, '--log-level', 'warn', ...extra],
    stderr: 'inherit',
  });
  const client = new Client({name: 'heap-bench', version: '1'});
  await client.connect(transport);
  return {client, pid: transport.pid};
}

async function timed(client, tool, args) {
  const t0 = performance.now();
  const r = await callText(client, tool, args, 3600000);
  const ms = performance.now() - t0;
  if (r.isError) return {ms, error: r.text.slice(0, 300)};
  return {ms, text: r.text};
}

const MB = b => Math.round(b / (1 << 20));
const result = {date: new Date().toISOString(), n, machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / (1 << 30))} GiB`, loadBefore: os.loadavg()[0]};

// The tabhive binary.
const bin = path.join(work, 'tabhive');
execFileSync('go', ['build', '-o', bin, './cmd/tabhive'], {cwd: repo, stdio: 'inherit'});
const {server, base} = await serveFixtures();
const url = `${base}big.html?n=${n}`;
let file = arg('--file', '');

try {
  // 1. take_heapsnapshot with tabhive.
  if (!file) {
    file = path.join(work, 'big.heapsnapshot');
    const {client, pid} = await startTabhive(bin);
    // The page's script runs for seconds (minutes on a loaded machine):
    // open a blank page, then navigate it, under the navigation's timeout.
    await callText(client, 'list_pages', {});
    const open = await timed(client, 'navigate_page', {url, timeout: 300000});
    if (open.error) throw new Error(open.error);
    const pageId = pageIdOf((await callText(client, 'list_pages', {})).text, url);
    const before = rss(pid).rss;
    const stop = sampler(pid);
    const take = await timed(client, 'take_heapsnapshot', {pageId, filePath: file});
    const peak = stop();
    result.tabhiveTake = {ms: take.ms, error: take.error, rssBefore: before, rssPeak: peak, rssGrowth: peak - before, fileBytes: take.error ? 0 : fs.statSync(file).size};
    await client.close();
    if (take.error) throw new Error(`tabhive's take_heapsnapshot failed after ${Math.round(take.ms)} ms: ${take.error}`);
  }
  result.fileBytes = fs.statSync(file).size;
  // The server reads only inside its workspace: a --file from elsewhere is
  // linked (or copied) into it.
  if (path.dirname(path.resolve(file)) !== work) {
    const inside = path.join(work, 'given.heapsnapshot');
    try { fs.linkSync(file, inside); } catch { fs.copyFileSync(file, inside); }
    file = inside;
  }

  // The arrays the model needs, measured in a process of its own.
  const arrays = JSON.parse(execFileSync('go', ['run', './bench/heap/arrays', file], {cwd: repo}).toString());
  result.arrays = arrays;

  // 2. Analysis with tabhive, from a fresh server.
  {
    const {client, pid} = await startTabhive(bin);
    const before = rss(pid);
    const cpu0 = cpu(pid);
    const stop = sampler(pid);
    const cold = await timed(client, 'get_heapsnapshot_summary', {filePath: file});
    const peak = stop();
    const after = rss(pid);
    const cpu1 = cpu(pid);
    result.tabhiveSummaryCold = {ms: cold.ms, cpuSeconds: cpu1 - cpu0, error: cold.error, rssBefore: before.rss, rssAfter: after.rss, rssPeak: Math.max(peak, after.hwm)};
    result.tabhiveCachedCPU = {};
    result.tabhiveCached = await cachedQueries(client, file, pid, result.tabhiveCachedCPU);
    result.tabhiveRSSAfterQueries = rss(pid).rss;
    await client.close();
  }

  // 3. chrome-devtools-mcp.
  if (!skipCDM) {
    const client = await startCDM(modules);
    const pid = client.transport?.pid ?? client._transport?.pid;
    const blank = pageIdOf((await callText(client, 'list_pages', {})).text, 'about:blank');
    const open = await timed(client, 'navigate_page', {pageId: blank, url, timeout: 300000});
    if (!open.error) {
      const pageId = pageIdOf((await callText(client, 'list_pages', {})).text, url);
      const before = pid ? rss(pid).rss : 0;
      const stop = pid ? sampler(pid) : () => 0;
      const take = await timed(client, 'take_heapsnapshot', {pageId, filePath: path.join(work, 'cdm.heapsnapshot')});
      const peak = stop();
      result.cdmTake = {ms: take.ms, error: take.error, rssBefore: before, rssPeak: peak, rssGrowth: peak - before};
      await callText(client, 'navigate_page', {pageId, url: 'about:blank'});
    } else {
      result.cdmTake = {error: open.error};
    }
    const before = pid ? rss(pid).rss : 0;
    const stop = pid ? sampler(pid) : () => 0;
    const cold = await timed(client, 'get_heapsnapshot_summary', {filePath: file});
    const peak = stop();
    result.cdmSummaryCold = {ms: cold.ms, error: cold.error, rssBefore: before, rssPeak: peak};
    if (!cold.error) result.cdmCached = await cachedQueries(client, file);
    await client.close();
  }
  const keep = arg('--keep', '');
  if (keep) fs.copyFileSync(file, keep);
} finally {
  server.close();
  result.loadAfter = os.loadavg()[0];
  fs.rmSync(work, {recursive: true, force: true});
}

// cachedQueries times each analysis tool on a loaded snapshot; with a pid,
// it records in cpuOut the server's CPU time each call took.
async function cachedQueries(client, file, pid = 0, cpuOut = {}) {
  const out = {};
  const timedCPU = async (name, tool, args) => {
    const c0 = pid ? cpu(pid) : 0;
    const r = await timed(client, tool, args);
    if (pid) cpuOut[name] = cpu(pid) - c0;
    return r;
  };
  const details = await timedCPU('details', 'get_heapsnapshot_details', {filePath: file, pageSize: 20});
  out.details = details.ms;
  const cls = /^(\d+),Item,/m.exec(details.text || '');
  const id = cls ? Number(cls[1]) : 1;
  const nodes = await timedCPU('classNodes', 'get_heapsnapshot_class_nodes', {filePath: file, id, pageSize: 20});
  out.classNodes = nodes.ms;
  const node = /^(\d+),Item,/m.exec(nodes.text || '');
  const nodeId = node ? Number(node[1]) : 1;
  for (const [name, tool, args] of [
    ['retainers', 'get_heapsnapshot_retainers', {nodeId, pageSize: 20}],
    ['retainingPaths', 'get_heapsnapshot_retaining_paths', {nodeId, maxDepth: 8}],
    ['dominators', 'get_heapsnapshot_dominators', {nodeId}],
    ['edges', 'get_heapsnapshot_edges', {nodeId}],
    ['objectDetails', 'get_heapsnapshot_object_details', {nodeId}],
    ['queryObjects', 'query_heapsnapshot_objects', {className: '^Item$', pageSize: 10}],
    ['duplicateStrings', 'get_heapsnapshot_duplicate_strings', {pageSize: 10}],
    ['detachedFilter', 'get_heapsnapshot_details', {filterName: 'objectsRetainedByDetachedDomNodes', pageSize: 10}],
    ['contexts', 'analyze_heapsnapshot_contexts', {pageSize: 10}],
    ['summaryAgain', 'get_heapsnapshot_summary', {}],
  ]) {
    const r = await timedCPU(name, tool, {filePath: file, ...args});
    out[name] = r.error ? `error: ${r.error}` : r.ms;
  }
  return out;
}

console.log(JSON.stringify(result));
const s = x => typeof x === 'number' ? (x / 1000).toFixed(2) + ' s' : String(x ?? '—');
const lines = [
  `| | tabhive | chrome-devtools-mcp 1.11 |`,
  `|---|---|---|`,
  `| take_heapsnapshot | ${s(result.tabhiveTake?.ms)}${result.tabhiveTake?.error ? ' (' + result.tabhiveTake.error + ')' : ''} | ${result.cdmTake?.error ? 'failed: ' + result.cdmTake.error.split('\n')[0] : s(result.cdmTake?.ms)} |`,
  `| server RSS growth during take_heapsnapshot | ${MB(result.tabhiveTake?.rssGrowth ?? 0)} MB | ${MB(result.cdmTake?.rssGrowth ?? 0)} MB |`,
  `| get_heapsnapshot_summary, cold | ${s(result.tabhiveSummaryCold.ms)} (${result.tabhiveSummaryCold.cpuSeconds?.toFixed(1)} s of CPU) | ${result.cdmSummaryCold?.error ? 'failed' : s(result.cdmSummaryCold?.ms)} |`,
  `| server RSS after loading (peak) | ${MB(result.tabhiveSummaryCold.rssAfter)} MB (${MB(result.tabhiveSummaryCold.rssPeak)} MB) | ${MB(result.cdmSummaryCold?.rssPeak ?? 0)} MB (peak) |`,
];
for (const k of Object.keys(result.tabhiveCached)) {
  const c = result.tabhiveCachedCPU?.[k];
  lines.push(`| ${k}, cached | ${s(result.tabhiveCached[k])}${c === undefined ? '' : ` (${c.toFixed(2)} s of CPU)`} | ${s(result.cdmCached?.[k])} |`);
}
console.log(lines.join('\n'));
console.log(`\nsnapshot: ${MB(result.fileBytes)} MB, ${result.arrays.nodes} nodes, ${result.arrays.edges} edges; model arrays ${MB(result.arrays.arrayBytes)} MB; server RSS after load / arrays = ${(result.tabhiveSummaryCold.rssAfter / result.arrays.arrayBytes).toFixed(2)}; load ${result.loadBefore.toFixed(1)} → ${result.loadAfter.toFixed(1)}`);
