// The servers measured, and how each is started: tabhive (built from this
// tree, or from an earlier commit of it), chrome-devtools-mcp 1.11.0 and
// @playwright/mcp 0.0.83 from bench/node_modules. Every Chromium gets the
// switches that keep it from stalling on a closed network.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const ROOT = path.dirname(BENCH);
export const CACHE = path.join(BENCH, '.cache');

const log = (...a) => console.error('[bench]', ...a);

// chromium returns the Chromium binary: $TABHIVE_CHROMIUM, else the first
// of chromium, chromium-browser, google-chrome on PATH.
export function chromium() {
  if (process.env.TABHIVE_CHROMIUM) return process.env.TABHIVE_CHROMIUM;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (process.env.PATH ?? '').split(':')) {
      const p = path.join(dir, name);
      try { fs.accessSync(p, fs.constants.X_OK); return p; } catch { /* next */ }
    }
  }
  throw new Error('no Chromium found: install it (apt-get install -y chromium) or set TABHIVE_CHROMIUM');
}

// Switches for the two Node servers' Chromium: what tabhive passes on its
// own (internal/launch), the ones that matter offline.
export function offlineSwitches() {
  const s = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'];
  if (process.getuid?.() === 0) s.unshift('--no-sandbox'); // Chromium refuses to run as root without it
  return s;
}

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...opts }).trim();
}

// tabhiveBinary builds tabhive and returns its path: from the working tree
// when rev is "tree" (rebuilt each time: Go's cache makes that quick), else
// from commit rev of this repository's history (built once, then cached).
export function tabhiveBinary(rev = 'tree') {
  const bin = path.join(CACHE, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  if (rev === 'tree') {
    const out = path.join(bin, 'tabhive-tree');
    log('go build ./cmd/tabhive (this tree)');
    sh('go', ['build', '-o', out, './cmd/tabhive'], { cwd: ROOT });
    return out;
  }
  const full = sh('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: ROOT });
  const out = path.join(bin, `tabhive-${full.slice(0, 12)}`);
  if (fs.existsSync(out)) return out;
  const src = fs.mkdtempSync(path.join(os.tmpdir(), `tabhive-${full.slice(0, 7)}-`));
  try {
    log(`go build ./cmd/tabhive at ${full.slice(0, 12)}`);
    execFileSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', ROOT, full, src], { stdio: 'inherit' });
    sh('go', ['build', '-o', out, './cmd/tabhive'], { cwd: src });
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  return out;
}

// goProgram builds one of bench/'s Go programs (bench/<dir>) and returns its
// path.
export function goProgram(dir) {
  const out = path.join(CACHE, 'bin', dir);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  sh('go', ['build', '-o', out, `./bench/${dir}`], { cwd: ROOT });
  return out;
}

let portSeq = 0;
// freePort picks a loopback port for an HTTP server: a different one for
// each server of a run, so that a server slow to release its port does not
// hold up the next.
export function freePort() {
  return 18900 + (process.pid % 500) + (portSeq++ % 40) * 3;
}

// A server is {name, kind, transport, argv, url?}: kind is the tool set the
// scenarios speak ("cdm": chrome-devtools-mcp's names, which tabhive
// speaks too; "pwm": @playwright/mcp's), argv the command line, url the
// MCP endpoint of an HTTP server (urls?, several endpoints the sessions
// go to in turn; startTimeoutMs?, how long it may take to listen, 60 s).

const helps = new Map();
// supports reports whether the tabhive binary bin has flag (an older build
// may not).
function supports(bin, flag) {
  if (!helps.has(bin)) {
    const r = spawnSync(bin, ['--help'], { encoding: 'utf8' });
    helps.set(bin, `${r.stdout}${r.stderr}`);
  }
  const name = flag.replace(/^-+/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*--?${name}\\b`, 'm').test(helps.get(bin));
}

// tabhive: bin from tabhiveBinary; transport "stdio" or "http"; extra
// flags appended; optional flags ([name, value] pairs) appended when the
// build has them, such as --snapshot-max-bytes, which builds before it
// do not need.
export function tabhive(bin, { transport = 'stdio', extra = [], optional = [], name = 'tabhive' } = {}) {
  const opt = optional.filter(([flag]) => supports(bin, flag)).flat();
  const argv = [bin, '--headless', '--isolated', ...(supports(bin, 'log-level') ? ['--log-level', 'warn'] : []), ...extra, ...opt];
  if (transport === 'stdio') return { name, kind: 'cdm', transport, argv };
  const port = freePort();
  return { name, kind: 'cdm', transport, argv: [...argv, '--http', `127.0.0.1:${port}`], url: `http://127.0.0.1:${port}/mcp` };
}

// cdm: chrome-devtools-mcp 1.11.0 over stdio (its only transport). Its
// usage statistics and CrUX lookups are off: they reach Google.
export function cdm({ name = 'chrome-devtools-mcp' } = {}) {
  const argv = [path.join(BENCH, 'node_modules/.bin/chrome-devtools-mcp'), '--headless', '--isolated',
    '--executablePath', chromium(), '--no-usage-statistics', '--no-performance-crux',
    ...offlineSwitches().map((s) => `--chromeArg=${s}`)];
  return { name, kind: 'cdm', transport: 'stdio', argv };
}

// pwm: @playwright/mcp 0.0.83. Chromium's switches go through a config
// file; it has no flag for them.
export function pwm({ transport = 'http', extra = [], name = '@playwright/mcp' } = {}) {
  fs.mkdirSync(CACHE, { recursive: true });
  const config = path.join(CACHE, 'pwm.json');
  fs.writeFileSync(config, JSON.stringify({
    browser: {
      browserName: 'chromium', isolated: true,
      launchOptions: { executablePath: chromium(), headless: true, args: offlineSwitches() },
    },
  }, null, 2));
  const out = path.join(CACHE, 'pwm-out');
  const argv = [path.join(BENCH, 'node_modules/.bin/playwright-mcp'), '--config', config, '--output-dir', out, ...extra];
  if (transport === 'stdio') return { name, kind: 'pwm', transport, argv };
  const port = freePort();
  return {
    name, kind: 'pwm', transport,
    argv: [...argv, '--host', '127.0.0.1', '--port', String(port), '--allowed-hosts', `127.0.0.1:${port}`],
    url: `http://127.0.0.1:${port}/mcp`,
  };
}
