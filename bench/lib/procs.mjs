// Processes: the resident memory of a server's process tree, split into
// the server itself and the Chromium it drives, and the clean-up of what a
// server left behind. Linux only (/proc).

import fs from 'node:fs';
import path from 'node:path';

// table reads /proc once: pid → {ppid, comm, start}.
function table() {
  const out = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const f = stat.slice(close + 2).split(' ');
      // f[11], f[12]: utime and stime, in clock ticks (100 a second).
      out.set(Number(d), { ppid: Number(f[1]), comm: stat.slice(stat.indexOf('(') + 1, close), start: f[19], state: f[0], ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone */ }
  }
  return out;
}

function rssKB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch { return 0; }
}

// isChromium: Chromium's binaries (chrome, chromium, its crash handler), or
// Debian's /usr/bin/chromium wrapper, a shell named chromium. A Node server
// whose script is called chrome-devtools-mcp runs node, so it is not.
function isChromium(pid, comm) {
  let exe = '';
  try { exe = path.basename(fs.readlinkSync(`/proc/${pid}/exe`)); } catch { /* gone */ }
  return /chrom/i.test(exe) || comm === 'chromium';
}

// tree lists root and its descendants; a process is Chromium's when it or
// an ancestor below root is a Chromium binary.
function tree(root) {
  const t = table();
  if (!t.has(root)) return [];
  const kids = new Map();
  for (const [pid, p] of t) {
    if (!kids.has(p.ppid)) kids.set(p.ppid, []);
    kids.get(p.ppid).push(pid);
  }
  const out = [];
  const stack = [[root, false]];
  while (stack.length) {
    const [pid, under] = stack.pop();
    const p = t.get(pid);
    if (!p) continue;
    const chromium = under || isChromium(pid, p.comm);
    out.push({ pid, start: p.start, chromium, ticks: p.ticks });
    for (const k of kids.get(pid) ?? []) stack.push([k, chromium]);
  }
  return out;
}

// Sampler samples a process tree's RSS every interval and keeps the peaks
// of the sums: VmRSS summed over processes counts shared pages once per
// process, so Chromium's figure overstates its memory, comparably between
// runs. It also keeps each process's CPU time (user + system) as last
// seen, so that the CPU the server and Chromium spent between mark() and
// cpu() is known: a process that exits between two samples loses at most
// one interval of it, which is what sampling every 200 ms is for (a
// renderer lives for seconds).
export class Sampler {
  constructor(root, intervalMs = 200) {
    this.root = root;
    this.intervalMs = intervalMs;
    this.serverKB = 0;
    this.chromiumKB = 0;
    this.seen = new Map(); // pid → start time, for clean-up
    this.ticks = new Map(); // "pid start" → {ticks, chromium}, as last seen
    this.base = new Map(); // the same at mark()
  }
  sample() {
    let server = 0, chromium = 0;
    for (const p of tree(this.root)) {
      this.seen.set(p.pid, p.start);
      this.ticks.set(`${p.pid} ${p.start}`, { ticks: p.ticks, chromium: p.chromium });
      const kb = rssKB(p.pid);
      if (p.chromium) chromium += kb; else server += kb;
    }
    this.serverKB = Math.max(this.serverKB, server);
    this.chromiumKB = Math.max(this.chromiumKB, chromium);
  }
  start() {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }
  stop() { clearInterval(this.timer); }
  // mark starts the CPU count: cpu() reports what was spent after it.
  mark() {
    this.sample();
    this.base = new Map([...this.ticks].map(([k, v]) => [k, v.ticks]));
  }
  // cpu returns the CPU seconds the server's own processes and Chromium's
  // spent since mark().
  cpu() {
    this.sample();
    let server = 0, chromium = 0;
    for (const [k, v] of this.ticks) {
      const d = v.ticks - (this.base.get(k) ?? 0);
      if (v.chromium) chromium += d; else server += d;
    }
    return { server_s: server / 100, chromium_s: chromium / 100 };
  }
  report() {
    const mb = (kb) => Math.round(kb / 102.4) / 10;
    return { server_peak_mb: mb(this.serverKB), chromium_peak_mb: mb(this.chromiumKB) };
  }
}

// reap waits up to graceMs for the processes a sampler saw to exit, then
// kills those still running: only processes of the measured server's tree,
// recognised by pid and start time, never others.
export async function reap(seen, graceMs = 5000) {
  const alive = () => [...seen].filter(([pid, start]) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return f[19] === start && f[0] !== 'Z';
    } catch { return false; }
  });
  const until = Date.now() + graceMs;
  while (alive().length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const left = alive();
  for (const [pid] of left) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  return left.length;
}
