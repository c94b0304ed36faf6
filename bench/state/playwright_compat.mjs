// Storage state files move between Playwright, @playwright/mcp and tabhive
// (bench/tables/state-compat.mjs prints the checks).
//
// A fixture site sets what a login sets: an httpOnly session cookie, a
// localStorage token and an IndexedDB record holding a Date. Then:
//
//  1. Playwright (the library @playwright/mcp 0.0.83 bundles) logs in and
//     writes context.storageState({indexedDB: true}); tabhive loads the file
//     (load_storage_state) and its page finds itself logged in.
//  2. @playwright/mcp logs in and saves with browser_storage_state; tabhive
//     loads that file the same way.
//  3. tabhive logs in and saves (save_storage_state); Playwright starts a
//     context from the file (newContext({storageState})) and @playwright/mcp
//     loads it (browser_set_storage_state): both find themselves logged in,
//     the Date intact.
//
// With fixtureOut, Playwright's file of step 1 is also copied there: that is
// how browser/storagestate/testdata/playwright.json was made.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);

// compat runs the checks with the tabhive binary tabhive and Chromium at
// chromiumPath (given chromiumArgs, which @playwright/mcp and Playwright
// need on a closed network), and returns them: [{name, ok, detail}].
export async function compat({ tabhive, chromiumPath, chromiumArgs, fixtureOut }) {
  const { chromium } = require('playwright');
  // The package exports no cli.js; it sits beside its package.json.
  const cli = path.join(path.dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-compat-'));
  const checks = [];

  // The fixture site. /login?user=U logs U in; /account shows what the
  // server and the page know.
  const site = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (url.pathname === '/login') {
      const user = url.searchParams.get('user');
      res.setHeader('Set-Cookie', `session=for-${user}; Path=/; HttpOnly`);
      res.end(`<title>Welcome</title><p id=done>storing</p><script>
  localStorage.setItem('token', 'tok-${user}');
  const open = indexedDB.open('app', 3);
  open.onupgradeneeded = () => open.result.createObjectStore('prefs', {keyPath: 'id'});
  open.onsuccess = () => {
    const tx = open.result.transaction('prefs', 'readwrite');
    tx.objectStore('prefs').put({id: 'theme', value: '${user}-dark', when: new Date(86400000)});
    tx.oncomplete = () => { open.result.close(); done.textContent = 'stored' };
  };</script>`);
      return;
    }
    const who = /session=([^;]+)/.exec(req.headers.cookie || '')?.[1] || 'nobody';
    res.end(`<title>Account</title><p>cookie: ${who}</p><p id=tok>token: ?</p><p id=pref>pref: ?</p><script>
  tok.textContent = 'token: ' + localStorage.getItem('token');
  const open = indexedDB.open('app');
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('prefs')) { pref.textContent = 'pref: none'; return }
    const get = db.transaction('prefs').objectStore('prefs').get('theme');
    get.onsuccess = () => pref.textContent = 'pref: ' + (get.result ? get.result.value + ' ' + (get.result.when instanceof Date && get.result.when.getTime()) : 'none');
  };</script>`);
  });
  await new Promise(r => site.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${site.address().port}`;

  function check(name, ok, detail) {
    checks.push({ name, ok, detail: ok ? '' : String(detail).slice(0, 2000) });
  }
  const loggedIn = user => [`cookie: for-${user}`, `token: tok-${user}`, `pref: ${user}-dark 86400000`];

  async function mcp(command, args) {
    const client = new Client({ name: 'state-compat', version: '0' });
    await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    const call = async (name, a = {}) => {
      const r = await client.callTool({ name, arguments: a });
      const text = r.content.filter(c => c.type === 'text').map(c => c.text).join('\n');
      if (r.isError) throw new Error(`${name}: ${text}`);
      return text;
    };
    return { client, call };
  }

  const tabhiveArgs = ['--headless', '--isolated', '--executable-path', chromiumPath, '--workspace', dir, '--log-level', 'error'];
  const pwmConfig = path.join(dir, 'pwm.json');
  fs.writeFileSync(pwmConfig, JSON.stringify({ browser: { browserName: 'chromium', isolated: true, launchOptions: { executablePath: chromiumPath, headless: true, args: chromiumArgs } } }));
  const pwmArgs = [cli, '--config', pwmConfig, '--caps', 'storage', '--output-dir', dir];

  // tabhive loads file in a fresh page and reports what /account shows.
  async function tabhiveLoads(file) {
    const th = await mcp(tabhive, tabhiveArgs);
    try {
      await th.call('load_storage_state', { filePath: file });
      await th.call('navigate_page', { url: `${base}/account` });
      await th.call('wait_for', { text: ['pref: '] });
      return await th.call('take_snapshot');
    } finally {
      await th.client.close();
    }
  }

  // 1. Playwright writes, tabhive reads.
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/login?user=pw`);
    await page.getByText('stored').waitFor();
    const file = path.join(dir, 'playwright.json');
    await ctx.storageState({ path: file, indexedDB: true });
    await ctx.close();
    if (fixtureOut)
      fs.copyFileSync(file, fixtureOut);
    const snap = await tabhiveLoads(file);
    for (const want of loggedIn('pw'))
      check(`Playwright storageState({indexedDB: true}) -> tabhive load_storage_state: ${want}`, snap.includes(want), snap);
  }

  // 2. @playwright/mcp writes, tabhive reads.
  {
    const pwm = await mcp(process.execPath, pwmArgs);
    const file = path.join(dir, 'pwmcp.json');
    try {
      await pwm.call('browser_navigate', { url: `${base}/login?user=pwmcp` });
      await pwm.call('browser_wait_for', { text: 'stored' });
      await pwm.call('browser_storage_state', { filename: file });
    } finally {
      await pwm.client.close();
    }
    const snap = await tabhiveLoads(file);
    // browser_storage_state saves no IndexedDB: the cookie and the token only.
    for (const want of loggedIn('pwmcp').slice(0, 2))
      check(`@playwright/mcp browser_storage_state -> tabhive load_storage_state: ${want}`, snap.includes(want), snap);
  }

  // 3. tabhive writes, Playwright and @playwright/mcp read.
  {
    const file = path.join(dir, 'tabhive.json');
    const th = await mcp(tabhive, tabhiveArgs);
    try {
      await th.call('navigate_page', { url: `${base}/login?user=th` });
      await th.call('wait_for', { text: ['stored'] });
      await th.call('save_storage_state', { filePath: file });
    } finally {
      await th.client.close();
    }
    const ctx = await browser.newContext({ storageState: file });
    const page = await ctx.newPage();
    await page.goto(`${base}/account`);
    await page.getByText('pref: th').waitFor();
    const body = await page.textContent('body');
    for (const want of loggedIn('th'))
      check(`tabhive save_storage_state -> Playwright newContext({storageState}): ${want}`, body.includes(want), body);
    await ctx.close();

    const pwm = await mcp(process.execPath, pwmArgs);
    try {
      await pwm.call('browser_set_storage_state', { filename: file });
      await pwm.call('browser_navigate', { url: `${base}/account` });
      await pwm.call('browser_wait_for', { text: 'pref: th' });
      const snap = await pwm.call('browser_snapshot');
      for (const want of loggedIn('th'))
        check(`tabhive save_storage_state -> @playwright/mcp browser_set_storage_state: ${want}`, snap.includes(want), snap);
    } finally {
      await pwm.client.close();
    }
  }

  await browser.close();
  site.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return checks;
}
