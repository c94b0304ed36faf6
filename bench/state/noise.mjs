// noise: one more MCP session on a server, keeping a page of its own busy
// with agent-state calls — set_cookie, route_requests, list_routes, and
// unroute_requests every twentieth round — one call at a time, while other
// agents are measured beside it (bench/tables/state-noise.mjs). With rate,
// at most that many calls a second; else as many as the server answers.
// With mode "control" it calls list_pages instead, a call that takes no
// lock and asks the browser nothing: what the server's and the machine's
// CPU alone cost the agents beside.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { summary } from '../lib/harness.mjs';

// startNoise connects to the server at url, opens its page and starts the
// calls; it returns stop, which ends them and resolves to what they were:
// {mode, rate, seconds, calls, tools: {name: {count, p50, p95, max}}}.
export async function startNoise(url, { mode = 'state', rate = 0 } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'tabhive-bench-noise', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
    const text = (r.content ?? []).map((c) => c.text ?? '').join('\n');
    if (r.isError) throw new Error(`${name}: ${text.slice(0, 300)}`);
    return text;
  };
  const opened = await call('new_page', { url: 'about:blank', background: true });
  const pageId = Number(/^(\d+): .*\[selected\]/m.exec(opened)[1]);
  const ms = mode === 'control' ? { list_pages: [] } : { set_cookie: [], route_requests: [], list_routes: [], unroute_requests: [] };
  let stopped = false, made = 0, failed = 0, firstFailure;
  const start = performance.now();
  const timed = async (name, args) => {
    if (rate > 0) {
      const wait = start + (made / rate) * 1000 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    made++;
    const t0 = performance.now();
    try {
      await call(name, args);
      ms[name].push(performance.now() - t0);
    } catch (e) {
      // A call that fails (a budget run out on a loaded machine) is
      // counted, and the loop goes on.
      failed++;
      firstFailure ??= e.message.slice(0, 300);
    }
  };
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      if (mode === 'control') {
        await timed('list_pages', {});
        continue;
      }
      await timed('set_cookie', { pageId, name: `n${i % 50}`, value: String(i), domain: 'noise.test' });
      await timed('route_requests', { pageId, urlPattern: `/api/${i % 20}/*`, action: 'fulfill', body: 'noise' });
      await timed('list_routes', { pageId });
      if (i % 20 === 19) await timed('unroute_requests', { pageId });
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    const seconds = (performance.now() - start) / 1000;
    try {
      await call('close_page', { pageId });
      await transport.terminateSession();
    } catch { /* best effort: the server goes with the run */ }
    await client.close();
    const out = { mode, rate, seconds: Math.round(seconds * 10) / 10, calls: 0, tools: {} };
    for (const [name, xs] of Object.entries(ms)) {
      out.calls += xs.length;
      if (xs.length) out.tools[name] = summary(xs);
    }
    if (failed) Object.assign(out, { failed, first_failure: firstFailure });
    return out;
  };
}
