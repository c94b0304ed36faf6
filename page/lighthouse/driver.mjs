// tabhive's Lighthouse driver: runs one audit through Lighthouse's Node
// API on the one page of tabhive's one-time DevTools endpoint.
//
// The job comes on stdin as one JSON object, never in argv or the
// environment (a process's command line is readable by every local user):
//   {lighthouseDir, endpoint, mode, url, flags, dir}
// endpoint is the endpoint's WebSocket URL, secret included. The JSON and
// HTML reports are written to dir/lighthouse.report.json and .html. A
// failure ends the process with status 1 and one line on stderr.

import {createRequire} from 'node:module';
import {readFileSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {pathToFileURL} from 'node:url';

async function readJob() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

// load imports a package's ESM entry, resolved from the Lighthouse
// package's own directory, so that the driver uses the puppeteer-core
// Lighthouse was installed with.
async function load(require, name) {
  const pkgPath = require.resolve(name + '/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const dot = pkg.exports && pkg.exports['.'];
  const entry = (dot && (typeof dot === 'string' ? dot : dot.import || dot.default)) || pkg.module || pkg.main || 'index.js';
  return import(pathToFileURL(join(dirname(pkgPath), entry)).href);
}

async function main() {
  const job = await readJob();
  const pkg = JSON.parse(readFileSync(join(job.lighthouseDir, 'package.json'), 'utf8'));
  const lighthouse = await import(pathToFileURL(join(job.lighthouseDir, pkg.main || 'core/index.js')).href);
  const puppeteer = (await load(createRequire(join(job.lighthouseDir, 'package.json')), 'puppeteer-core')).default;
  const browser = await puppeteer.connect({browserWSEndpoint: job.endpoint, defaultViewport: null});
  try {
    const [page] = await browser.pages();
    if (!page) throw new Error('the endpoint shows no page');
    const result = job.mode === 'snapshot' ?
      await lighthouse.snapshot(page, {flags: job.flags}) :
      await lighthouse.navigation(page, job.url, {flags: job.flags});
    if (!result) throw new Error('Lighthouse returned no result');
    const [json, html] = result.report;
    writeFileSync(join(job.dir, 'lighthouse.report.json'), json, {mode: 0o600});
    writeFileSync(join(job.dir, 'lighthouse.report.html'), html, {mode: 0o600});
  } finally {
    await browser.disconnect();
  }
}

main().then(() => process.exit(0), (err) => {
  const msg = (err && (err.friendlyMessage || err.message)) || String(err);
  process.stderr.write(String(msg).replace(/\s+/g, ' ').trim() + '\n');
  process.exit(1);
});
