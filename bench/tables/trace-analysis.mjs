// Trace analysis: bench/trace/bench records a large trace of a busy page
// with tabhive's page actor (as performance_start_trace and
// performance_stop_trace do), then analyses it with tabhive's internal/devtools/trace and with
// chrome-devtools-mcp 1.11's own code (bench/trace/cdm-analyze.mjs: its
// parse with DevTools' trace engine, then its summary), each in a process
// of its own, alternating, and prints time and memory side by side.
export const title = 'Trace analysis of one large trace, side by side';
export const usage = '--record SECONDS (120: about 100 MB), --runs N (3), --trace FILE (a trace to use instead of recording one)';

export async function run(b, o) {
  const args = ['-runs', String(o.runs ?? 3)];
  if (o.trace) {
    args.push('-trace', o.trace);
  } else {
    args.push('-record', `${o.record ?? 120}s`);
  }
  const out = await b.go('trace analysis', 'trace/bench', args, 60 * 60 * 1000);
  console.log(out.trim() + '\n');
}
