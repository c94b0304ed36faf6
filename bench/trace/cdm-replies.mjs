// Dev-only: the shape of chrome-devtools-mcp 1.11's replies for trace
// files: the summary performance_stop_trace gives and each listed
// insight's analysis as performance_analyze_insight gives it, made by its
// own code (its bundled DevTools formatters). internal/devtools/trace's shape test
// holds tabhive's replies to it.
//
//   node cdm-replies.mjs [--cdm DIR] [--text] OUTDIR TRACE...
//
// Writes OUTDIR/NAME.shape.json per trace: the summary's labelled lines
// (URL, bounds, metrics, each insight's name, bounds and wasted bytes) and,
// per insight, its section headings and the data its analysis names (event
// references, URLs, network request rows). Prose is left out: it is
// DevTools', and tabhive words its own. With --text it writes the whole
// replies too, as NAME.txt, to read.
import './polyfill.mjs';
import fs from 'node:fs';
import path from 'node:path';
import {cdmDir, loadEngine, readTrace} from './cdm.mjs';

const args = process.argv.slice(2);
const cdm = cdmDir(args);
let text = false;
if (args[0] === '--text') {
  text = true;
  args.shift();
}
const [out, ...files] = args;
if (!cdm || !out || !files.length) {
  console.error('usage: node cdm-replies.mjs [--cdm DIR] OUTDIR TRACE...');
  process.exit(2);
}
const {parseRawTraceBuffer, getTraceSummary, getInsightOutput, traceResultIsSuccess} = await loadEngine(cdm);
fs.mkdirSync(out, {recursive: true});
for (const file of files) {
  const result = await parseRawTraceBuffer(readTrace(file), {cpuThrottling: 1});
  if (!traceResultIsSuccess(result)) {
    throw new Error(`${file}: ${result.error}`);
  }
  const summary = getTraceSummary(result);
  const parts = [summary];
  const shape = {summary: summaryShape(summary), insights: {}};
  for (const set of result.insights.values()) {
    for (const [name, model] of Object.entries(set.model)) {
      if (model.state === 'pass') {
        continue;
      }
      const r = getInsightOutput(result, set.id, name);
      const output = r.output ?? r.error;
      parts.push(`=== ${set.id} ${name}\n${output}`);
      shape.insights[`${set.id} ${name}`] = insightShape(output);
    }
  }
  const name = path.basename(file).replace(/\.json(\.gz)?$/, '');
  fs.writeFileSync(path.join(out, name + '.shape.json'), JSON.stringify(shape, null, 1) + '\n');
  if (text) {
    fs.writeFileSync(path.join(out, name + '.txt'), parts.join('\n'));
  }
  console.error(name);
}

// summaryShape keeps the summary's labelled lines: what an agent reads
// values from.
function summaryShape(summary) {
  const keep = /^(URL|Trace bounds|CPU throttling|Network throttling|Bounds|Metrics \(lab|Metrics \(field|Available insights):|^## insight set id: |^  - (LCP|INP|CLS)|^    - (TTFB|Load delay|Load duration|Render delay):|^  - insight name: |^    (relevant trace bounds|estimated wasted bytes):/;
  return summary.split('\n').filter(l => keep.test(l) && !l.startsWith('## Details'));
}

// insightShape keeps an analysis' headings and the data it names.
function insightShape(output) {
  const lines = output.split('\n');
  const refs = new Set();
  const urls = new Set();
  for (const l of lines) {
    for (const m of l.matchAll(/\(eventKey: [^)]*\)/g)) {
      refs.add(m[0]);
    }
    for (const m of l.matchAll(/https?:\/\/[^\s,)\]|]+/g)) {
      urls.add(m[0].replace(/[.]$/, ''));
    }
  }
  return {
    headings: lines.filter(l => l.startsWith('## ')).map(l => l.replace(/:.*$/, ':')),
    title: lines[0],
    refs: [...refs],
    urls: [...urls].filter(u => !/developer\.chrome\.com|web\.dev|developers\.google\.com|fonts\.google\.com|philipwalton/.test(u)),
    rows: lines.filter(l => /^\d+;s-\d+;/.test(l) || l.startsWith('allUrls = ')),
  };
}
