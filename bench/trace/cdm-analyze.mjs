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
import {cdmDir, loadEngine, readTrace} from './cdm.mjs';

const args = process.argv.slice(2);
const cdm = cdmDir(args);
if (!cdm || args.length !== 1) {
  console.error('usage: node cdm-analyze.mjs [--cdm DIR] TRACE');
  process.exit(2);
}
const {parseRawTraceBuffer, getTraceSummary, traceResultIsSuccess} = await loadEngine(cdm);

const start = performance.now();
const result = await parseRawTraceBuffer(readTrace(args[0]), {cpuThrottling: 1});
if (!traceResultIsSuccess(result)) {
  console.error(result.error);
  process.exit(1);
}
const summary = getTraceSummary(result);
const ms = performance.now() - start;
console.log(JSON.stringify({ms: Math.round(ms), peakMB: Math.round(process.resourceUsage().maxRSS / 1024), summaryBytes: summary.length}));
