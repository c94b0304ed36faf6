// The scenarios, and one measured run of a scenario against one server.
//
// A run starts the server, connects (one stdio client shared by the agents,
// or one HTTP session per agent), warms each session up (opens and closes a
// page, which launches the browser; not measured), then runs the scenario's
// iterations, all agents at once, each on a page of its own. It returns
// one result object (see run): per tool and per step, the count and
// nearest-rank p50/p95/max of the latency one tools/call takes as the
// client sees it; iterations and calls per second over the measured phase;
// the peak RSS of the server's process tree, apart from Chromium's; the
// CPU seconds the server and Chromium spent in the measured phase (cpu),
// which a loaded machine changes less than it changes wall time.

import os from 'node:os';
import { caller, connect } from './connect.mjs';
import { reap, Sampler } from './procs.mjs';
import { serveFixtures } from './fixtures.mjs';

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A page list line is "<id>: <title> (<url>) [selected]", or "<id>: <url>"
// for a page without a title of its own.
function pageIdFrom(text, url) {
  for (const line of text.split('\n')) {
    const m = /^(\d+): (.*?)( \[selected\])?( isolatedContext=\S+)?\s*$/.exec(line);
    if (m && (m[2] === url || m[2].endsWith(`(${url})`))) return Number(m[1]);
  }
  return undefined;
}

// Tools: how each kind of server does the scenarios' steps.
const tools = {
  // chrome-devtools-mcp's tools, which tabhive speaks too; each agent names
  // its page with pageId, so agents can share one connection.
  cdm: {
    shared: true,
    async setup() {},
    async open(call, url) {
      const { text, result } = await call('new_page', { url });
      const pageId = result.structuredContent?.pageId ?? pageIdFrom(text, url);
      if (pageId === undefined) throw new Error(`new_page: no page id for ${url} in: ${text.slice(0, 300)}`);
      return { pageId };
    },
    snapshot: async (call, p) => (await call('take_snapshot', { pageId: p.pageId })).text,
    click: async (call, p, ref) => (await call('click', { pageId: p.pageId, uid: ref.id })).text,
    navigate: async (call, p, url) => (await call('navigate_page', { pageId: p.pageId, type: 'url', url })).text,
    waitFor: async (call, p, text, ms) => (await call('wait_for', { pageId: p.pageId, text: [text], timeout: ms })).text,
    close: async (call, p) => (await call('close_page', { pageId: p.pageId })).text,
    // uid=1_2 button "Run task"
    find(snap, role, name) {
      const m = new RegExp(`uid=(\\S+) ${esc(role)} "${esc(name)}"`).exec(snap);
      return m && { id: m[1], role, name };
    },
  },
  // @playwright/mcp: its tools act on the session's current tab, so each
  // agent needs a session of its own. A base tab stays open, so that
  // closing an iteration's tab never closes the browser context.
  pwm: {
    shared: false,
    async setup(call, base) { await call('browser_navigate', { url: base }); },
    async open(call, url) { await call('browser_tabs', { action: 'new', url }); return {}; },
    snapshot: async (call) => (await call('browser_snapshot', {})).text,
    click: async (call, _p, ref) => (await call('browser_click', { target: ref.id, element: `${ref.role} "${ref.name}"` })).text,
    navigate: async (call, _p, url) => (await call('browser_navigate', { url })).text,
    waitFor: async (call, _p, text) => (await call('browser_wait_for', { text })).text,
    close: async (call) => (await call('browser_tabs', { action: 'close' })).text,
    // - button "Run task" [ref=e3]
    find(snap, role, name) {
      const m = new RegExp(`${esc(role)} "${esc(name)}"[^\\n]*?\\[ref=([^\\]]+)\\]`).exec(snap);
      return m && { id: m[1], role, name };
    },
  },
};

class CheckError extends Error {}

function must(T, snap, role, name) {
  const ref = T.find(snap, role, name);
  if (!ref) throw new CheckError(`${role} "${name}" not in the snapshot: ${snap.slice(0, 200)}`);
  return ref;
}

// Each scenario is one iteration of one agent. ctx: T (tools), call,
// step(name, fn), fx (fixture URL), agent, iter, opts, timeLeft(), note.
async function onPage(ctx, url, fn) {
  const p = await ctx.step('open', () => ctx.T.open(ctx.call, url));
  try {
    return await fn(p);
  } finally {
    try { await ctx.step('close', () => ctx.T.close(ctx.call, p)); } catch { /* counted */ }
  }
}

async function snapshot(ctx, p) {
  const text = await ctx.step('snapshot', () => ctx.T.snapshot(ctx.call, p));
  ctx.note.snapshotBytes.push(Buffer.byteLength(text));
  return text;
}

export const scenarios = {
  // open, snapshot, click a button whose effect lands 50 ms later, wait for
  // it, navigate, snapshot, click a link that navigates, snapshot (which
  // must show the new page), close: 9 calls.
  async interact(ctx) {
    const { T, call, fx } = ctx;
    await onPage(ctx, `${fx}/button-async?agent=${ctx.agent}&iter=${ctx.iter}`, async (p) => {
      let snap = await snapshot(ctx, p);
      const button = must(T, snap, 'button', 'Run task');
      await ctx.step('click', () => T.click(call, p, button));
      await ctx.step('wait_for', () => T.waitFor(call, p, 'Done 1', 5000));
      await ctx.step('navigate', () => T.navigate(call, p, `${fx}/nav-a`));
      snap = await snapshot(ctx, p);
      const link = must(T, snap, 'link', 'Go to page B');
      await ctx.step('click', () => T.click(call, p, link));
      snap = await snapshot(ctx, p);
      if (!snap.includes('Page B loaded')) throw new CheckError(`after the link: no "Page B loaded" in ${snap.slice(0, 200)}`);
    });
  },
  // opts.iterations clicks on the button, then wait_for the last effect.
  async 'click-latency'(ctx) {
    const { T, call } = ctx;
    await onPage(ctx, `${ctx.fx}/button-async?agent=${ctx.agent}`, async (p) => {
      const button = must(T, await snapshot(ctx, p), 'button', 'Run task');
      let n = 0;
      for (; n < ctx.opts.iterations && ctx.timeLeft() > 0; n++) await ctx.step('click', () => T.click(call, p, button));
      await ctx.step('wait_for', () => T.waitFor(call, p, `Done ${n}`, 5000));
    });
  },
  // opts.snapshots snapshots of /large?n=opts.largeN, each checked for the
  // last item (largeN 0: no check, for documents served with opts.doc).
  async 'snapshot-large'(ctx) {
    const n = ctx.opts.largeN;
    await onPage(ctx, `${ctx.fx}/large?n=${n}&agent=${ctx.agent}&iter=${ctx.iter}`, async (p) => {
      for (let m = 0; m < ctx.opts.snapshots; m++) {
        const snap = await snapshot(ctx, p);
        if (n > 0 && !snap.includes(`button ${n - 1}`)) {
          throw new CheckError(`snapshot ${m} lacks "button ${n - 1}" (${Buffer.byteLength(snap)} bytes)`);
        }
      }
    });
  },
};

const round1 = (x) => Math.round(x * 10) / 10;

// summary: count and nearest-rank percentiles.
export function summary(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return { count: s.length, p50: round1(at(50)), p95: round1(at(95)), max: round1(s[s.length - 1]) };
}

function table(map) {
  const out = {};
  for (const [name, e] of [...map].sort()) out[name] = { ...summary(e.ms), errors: e.errors };
  return out;
}

// run measures one scenario against one server (see servers.mjs) and
// returns the result. opts: scenario, agents (1), iterations (interact 5,
// click-latency 30, snapshot-large 1), snapshots (5), largeN (2000), doc
// (an HTML file served as /large), callTimeoutMs (30000), maxSeconds (600),
// label; beside, if set, is async (server) => stop: it starts other work on
// the server once the sessions are warm, and stop() ends it when the
// measured phase does and resolves to what the result keeps as beside.
export async function run(server, opts) {
  opts = { agents: 1, snapshots: 5, largeN: 2000, callTimeoutMs: 30000, maxSeconds: 600, ...opts };
  opts.iterations ??= { interact: 5, 'click-latency': 30, 'snapshot-large': 1 }[opts.scenario];
  const scenario = scenarios[opts.scenario];
  if (!scenario) throw new Error(`no scenario ${opts.scenario}`);
  const T = tools[server.kind];
  if (!T.shared && server.transport === 'stdio' && opts.agents > 1) {
    throw new Error(`${server.name} has one current tab per session: ${opts.agents} agents need --http`);
  }
  const out = {
    label: opts.label, server: server.name, transport: server.transport, argv: server.argv.slice(1).join(' '),
    scenario: opts.scenario, agents: opts.agents, iterations: opts.iterations,
    date: new Date().toISOString(), load_start: os.loadavg()[0],
  };
  if (opts.scenario === 'snapshot-large') Object.assign(out, { snapshots: opts.snapshots, large_n: opts.largeN });
  const fixtures = await serveFixtures({ doc: opts.doc });
  let conn, sampler, stopBeside;
  try {
    conn = await connect(server, server.transport === 'stdio' ? 1 : opts.agents);
    out.server_info = conn.clients[0].getServerVersion();
    sampler = new Sampler(conn.pid);
    sampler.start();
    const tools = new Map(), steps = new Map();
    let calls = 0;
    const record = (map) => (name, ms, ok) => {
      if (!map.has(name)) map.set(name, { ms: [], errors: 0 });
      map.get(name).ms.push(ms);
      if (!ok) map.get(name).errors++;
    };
    const onCall = (name, ms, ok) => { calls++; record(tools)(name, ms, ok); };
    const step = async (name, fn) => {
      const t0 = performance.now();
      try {
        const r = await fn();
        record(steps)(name, performance.now() - t0, true);
        return r;
      } catch (e) {
        record(steps)(name, performance.now() - t0, false);
        throw e;
      }
    };
    const calls_ = conn.clients.map((c) => caller(c, onCall, opts.callTimeoutMs));
    // Warm-up, not measured: launches the browser.
    const t0 = performance.now();
    out.warmup_ms = [];
    for (const call of calls_) {
      const w = performance.now();
      await T.setup(call, `${fixtures.url}/`);
      await T.close(call, await T.open(call, `${fixtures.url}/?warmup=${out.warmup_ms.length}`));
      out.warmup_ms.push(round1(performance.now() - w));
    }
    out.setup_s = round1((performance.now() - t0) / 1000);
    tools.clear(); steps.clear(); calls = 0;
    if (opts.beside) stopBeside = await opts.beside(server);

    const note = { snapshotBytes: [], errors: [] };
    sampler.mark();
    const client0 = process.cpuUsage();
    const start = performance.now();
    const deadline = start + opts.maxSeconds * 1000;
    let ok = 0, failed = 0;
    const agent = async (a) => {
      const ctx = {
        T, call: calls_[server.transport === 'stdio' ? 0 : a], step, fx: fixtures.url, agent: a, opts, note,
        timeLeft: () => deadline - performance.now(),
      };
      const n = opts.scenario === 'click-latency' ? 1 : opts.iterations;
      for (ctx.iter = 0; ctx.iter < n && ctx.timeLeft() > 0; ctx.iter++) {
        try {
          await scenario(ctx);
          ok++;
        } catch (e) {
          failed++;
          if (note.errors.length < 3) note.errors.push(`agent ${a} iteration ${ctx.iter}: ${e.message.slice(0, 300)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: opts.agents }, (_, a) => agent(a)));
    const wall = (performance.now() - start) / 1000;
    const cpu = sampler.cpu();
    const client = process.cpuUsage(client0);
    cpu.client_s = Math.round((client.user + client.system) / 1e4) / 100; // this process: the MCP client and the fixtures
    if (stopBeside) out.beside = await stopBeside();
    stopBeside = undefined;
    Object.assign(out, {
      wall_s: Math.round(wall * 1000) / 1000,
      calls, calls_per_s: round1(calls / wall),
      iterations_ok: ok, iterations_failed: failed, iterations_per_s: Math.round((ok / wall) * 100) / 100,
      tools: table(tools), steps: table(steps), errors: note.errors,
      rss: sampler.report(), load_end: os.loadavg()[0],
      cpu: { ...cpu, server_ms_per_iteration: ok ? Math.round((cpu.server_s / ok) * 1000) : undefined,
        chromium_ms_per_iteration: ok ? Math.round((cpu.chromium_s / ok) * 1000) : undefined },
    });
    if (note.snapshotBytes.length) out.snapshot_bytes = note.snapshotBytes[note.snapshotBytes.length - 1];
    if (failed) out.server_stderr = conn.stderr.lines.slice(-5);
  } catch (e) {
    out.fatal = e.message.slice(0, 1500);
  } finally {
    if (stopBeside) out.beside = await stopBeside().catch((e) => ({ fatal: e.message }));
    sampler?.stop();
    await conn?.close();
    if (sampler) {
      const killed = await reap(sampler.seen);
      if (killed) out.left_over_killed = killed;
    }
    await fixtures.stop();
  }
  return out;
}
