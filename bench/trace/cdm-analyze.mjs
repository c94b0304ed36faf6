// Dev-only: chrome-devtools-mcp 1.11's own analysis of a trace file, timed:
// what performance_stop_trace does once Chrome has handed over the trace
// (parse it with DevTools' trace engine, then write the summary). The
// benchmark (bench/trace/bench) runs it beside tabhive's analysis of the
// same file.
//
//   node cdm-analyze.mjs [--cdm DIR] TRACE
//
// DIR is chrome-devtools-mcp's package directory; by default the one the
// bench/ package installs, else /work/cdm's. Prints one JSON line: the
// time taken (ms), the peak RSS of this process (MB), and the summary's
// length.
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const args = process.argv.slice(2);
let cdm = null;
if (args[0] === '--cdm') {
  cdm = args[1];
  args.splice(0, 2);
}
if (!cdm) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const c of [path.join(here, '..', 'node_modules', 'chrome-devtools-mcp'), '/work/cdm/node_modules/chrome-devtools-mcp']) {
    if (fs.existsSync(c)) {
      cdm = c;
      break;
    }
  }
}
if (!cdm || args.length !== 1) {
  console.error('usage: node cdm-analyze.mjs [--cdm DIR] TRACE');
  process.exit(2);
}
const {parseRawTraceBuffer, getTraceSummary, traceResultIsSuccess} =
    await import(pathToFileURL(path.join(cdm, 'build/src/processors/PerformanceTrace.js')).href);
// chrome-devtools-mcp sets DevTools' globals up (its locale, above all:
// without it every insight fails) when it creates its context; so does this.
const {overrideDevToolsGlobals} = await import(pathToFileURL(path.join(cdm, 'build/src/devtools/DevtoolsUtils.js')).href);
overrideDevToolsGlobals({loadResource: async url => {
  throw new Error(`no resource loading here (${url})`);
}});

const start = performance.now();
let buf = fs.readFileSync(args[0]);
if (buf[0] === 0x1f && buf[1] === 0x8b) {
  buf = zlib.gunzipSync(buf);
}
const result = await parseRawTraceBuffer(buf, {cpuThrottling: 1});
if (!traceResultIsSuccess(result)) {
  console.error(result.error);
  process.exit(1);
}
const summary = getTraceSummary(result);
const ms = performance.now() - start;
console.log(JSON.stringify({ms: Math.round(ms), peakMB: Math.round(process.resourceUsage().maxRSS / 1024), summaryBytes: summary.length}));
