// Shared helpers of the heap-snapshot dev tools: finding chrome-devtools-mcp,
// starting it with what Node 20 lacks, serving the fixture pages.
//
// chrome-devtools-mcp 1.11 runs DevTools' heap-snapshot worker, which calls
// Promise.withResolvers (Node >= 22). polyfill.cjs adds it; it is preloaded
// in the server and its worker threads through NODE_OPTIONS.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');

// nodeModules returns the node_modules directory holding chrome-devtools-mcp
// 1.11 and the MCP SDK: --node-modules DIR, else $CDM_NODE_MODULES, else
// bench/node_modules.
export function nodeModules(argv = process.argv) {
  const i = argv.indexOf('--node-modules');
  const dir = i >= 0 ? argv[i + 1] : process.env.CDM_NODE_MODULES || path.join(repo, 'bench', 'node_modules');
  if (!fs.existsSync(path.join(dir, 'chrome-devtools-mcp', 'package.json'))) {
    throw new Error(`chrome-devtools-mcp not found in ${dir}: run npm ci in bench/, or pass --node-modules DIR`);
  }
  return dir;
}

export function arg(name, def, argv = process.argv) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : def;
}

// The Chromium flags chrome-devtools-mcp needs on an offline machine.
export const cdmArgs = [
  '--headless', '--isolated', '--executablePath', process.env.TABHIVE_CHROMIUM || '/usr/bin/chromium',
  '--no-usage-statistics', '--no-performance-crux', '--memoryDebugging',
  '--chromeArg=--no-sandbox', '--chromeArg=--disable-gpu', '--chromeArg=--disable-quic',
  '--chromeArg=--no-first-run', '--chromeArg=--disable-background-networking',
  '--chromeArg=--disable-component-update', '--chromeArg=--disable-sync',
];

// startCDM starts chrome-devtools-mcp over stdio and returns a connected
// MCP client.
export async function startCDM(modules, {stderr = 'ignore'} = {}) {
  const sdk = path.join(modules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', 'client');
  const {Client} = await import(pathToFileURL(path.join(sdk, 'index.js')));
  const {StdioClientTransport} = await import(pathToFileURL(path.join(sdk, 'stdio.js')));
  const polyfill = path.join(here, 'polyfill.cjs');
  const transport = new StdioClientTransport({
    command: path.join(modules, '.bin', 'chrome-devtools-mcp'),
    args: cdmArgs,
    env: {...process.env, NODE_OPTIONS: `--require ${polyfill}`},
    stderr,
  });
  const client = new Client({name: 'tabhive-heap-tools', version: '1'});
  await client.connect(transport);
  return client;
}

// callText calls a tool and returns its text and error flag.
export async function callText(client, name, args, timeout = 600000) {
  const r = await client.callTool({name, arguments: args}, undefined, {timeout});
  return {text: r.content.filter(c => c.type === 'text').map(c => c.text).join('\n'), isError: Boolean(r.isError)};
}

// serveFixtures serves bench/heap/fixtures on 127.0.0.1 and returns the
// server and its base URL. Generated pages (?n=) are built by query.
export async function serveFixtures() {
  const dir = path.join(here, 'fixtures');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const file = path.join(dir, path.basename(url.pathname));
    if (!fs.existsSync(file)) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(fs.readFileSync(file));
  });
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  return {server, base: `http://127.0.0.1:${server.address().port}/`};
}

// pageIdOf finds the id of the page showing url in a list_pages reply.
export function pageIdOf(text, url) {
  for (const line of text.split('\n')) {
    const m = /^(\d+): (.*)$/.exec(line);
    if (m && m[2].includes(url)) return Number(m[1]);
  }
  throw new Error(`no page for ${url} in:\n${text}`);
}
