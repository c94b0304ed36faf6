// summarize: the table of run.sh's lines: the click latency of the 8
// agents in each run, and its ratio to the round's quiet run.
//
//	node bench/state/summarize.mjs bench-state.jsonl
import fs from 'node:fs';

const lines = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map(l => JSON.parse(l));
const runs = new Map(); // "r1 state10" -> {clicks, noise}
for (const l of lines) {
  const words = l.label.split(' ');
  const key = words.slice(0, 2).join(' ');
  if (!runs.has(key)) runs.set(key, {});
  const r = runs.get(key);
  if (words[2] === 'noise') r.noise = l.noise;
  else r.clicks = { load: l.label.split('load1=')[1], click: l.steps.click, errors: l.errors.count };
}
console.log('| run | load1 | clicks p50 (× quiet) | mean (× quiet) | p95 (× quiet) | errors | calls beside |');
console.log('|---|---|---|---|---|---|---|');
const ratios = {};
for (const [key, r] of runs) {
  if (!r.clicks) continue;
  const [round, mode] = key.split(' ');
  const q = runs.get(round + ' quiet')?.clicks?.click;
  const c = r.clicks.click;
  const x = k => {
    if (!q || mode === 'quiet') return '';
    const v = c[k] / q[k];
    (ratios[mode] ??= { p50: [], mean: [], p95: [] })[k].push(v);
    return ` (${v.toFixed(2)})`;
  };
  let beside = '';
  if (r.noise) {
    const n = r.noise;
    beside = `${n.calls} in ${n.seconds} s (${Math.round(n.calls / n.seconds)}/s)`;
    for (const [tool, t] of Object.entries(n.tools)) if (t.count) beside += `; ${tool} p50 ${t.p50} ms`;
  }
  console.log(`| ${key} | ${r.clicks.load} | ${c.p50} ms${x('p50')} | ${c.mean} ms${x('mean')} | ${c.p95} ms${x('p95')} | ${r.clicks.errors} | ${beside} |`);
}
const geo = xs => Math.exp(xs.reduce((a, v) => a + Math.log(v), 0) / xs.length).toFixed(2);
console.log('');
for (const [mode, r] of Object.entries(ratios))
  console.log(`${mode}: geometric mean of the ratios to quiet over ${r.p50.length} round(s): p50 ${geo(r.p50)}, mean ${geo(r.mean)}, p95 ${geo(r.p95)}`);
