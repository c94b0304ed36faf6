// Starting a server and connecting MCP clients to it with the MCP
// TypeScript SDK: over stdio one client, which every agent shares (the
// agents' calls go out concurrently on it); over streamable HTTP one
// client, one MCP session, per agent.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import net from 'node:net';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Tail keeps the last lines a server wrote to stderr, for error reports.
class Tail {
  constructor(n) { this.n = n; this.lines = []; }
  push(chunk) {
    for (const l of String(chunk).split('\n')) if (l.trim()) this.lines.push(l.slice(0, 400));
    if (this.lines.length > this.n) this.lines.splice(0, this.lines.length - this.n);
  }
}

async function listening(host, port, timeoutMs, exited) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (exited()) throw new Error('the server exited before listening');
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host, port });
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
      s.setTimeout(1000, () => { s.destroy(); resolve(false); });
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`the server did not listen on ${host}:${port} within ${timeoutMs} ms`);
}

// connect starts server and returns {clients, pid, stderr, close}: clients
// has one entry over stdio and `sessions` over HTTP.
export async function connect(server, sessions = 1) {
  const stderr = new Tail(20);
  const closers = [];
  const close = async () => {
    for (const fn of closers.reverse()) { try { await fn(); } catch { /* best effort */ } }
  };
  const info = { name: 'tabhive-bench', version: '1.0.0' };
  try {
    if (server.transport === 'stdio') {
      const [command, ...args] = server.argv;
      const t = new StdioClientTransport({ command, args, env: process.env, stderr: 'pipe' });
      t.stderr?.on('data', (d) => stderr.push(d));
      const c = new Client(info);
      closers.push(() => c.close());
      await c.connect(t);
      return { clients: [c], pid: t.pid, stderr, close };
    }
    const [command, ...args] = server.argv;
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => stderr.push(d));
    child.stderr.on('data', (d) => stderr.push(d));
    const exited = new Promise((r) => child.once('exit', r));
    closers.push(async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const url = new URL(server.url);
    await listening(url.hostname, Number(url.port), server.startTimeoutMs ?? 60000, () => child.exitCode !== null);
    // server.urls, if given, are the endpoints the sessions go to in turn
    // (several servers reached directly); server.url answers first.
    const urls = (server.urls ?? [server.url]).map((u) => new URL(u));
    const clients = [];
    for (let i = 0; i < sessions; i++) {
      const t = new StreamableHTTPClientTransport(urls[i % urls.length]);
      const c = new Client({ ...info, name: `${info.name}-${i}` });
      await c.connect(t);
      closers.push(async () => {
        try { await t.terminateSession(); } catch { /* not supported */ }
        await c.close();
      });
      clients.push(c);
    }
    return { clients, pid: child.pid, stderr, close };
  } catch (e) {
    await close();
    e.message += stderr.lines.length ? `\nserver stderr:\n${stderr.lines.slice(-8).join('\n')}` : '';
    throw e;
  }
}

// caller returns call(name, args), a tools/call on client timed into
// record(name, ms, ok) that returns {text, result} and throws on a tool
// error.
export function caller(client, record, timeoutMs) {
  return async (name, args) => {
    const t0 = performance.now();
    let result;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
    } catch (e) {
      record(name, performance.now() - t0, false);
      throw new Error(`${name}: ${e.message}`);
    }
    record(name, performance.now() - t0, !result.isError);
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    if (result.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
    return { text, result };
  };
}
