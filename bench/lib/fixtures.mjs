// The pages the scenarios drive, served on a free loopback port. The
// pages are fixed text, so that every server is measured on the same bytes
// (bench/cdpceiling serves the same ones from Go).

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const page = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="icon" href="data:,"></head>
<body>
${body}
</body></html>`;

// A click appends "Done N" 50 ms later, without navigating.
const buttonAsync = page('Button async', `<h1>Button async</h1>
<button id="go" type="button">Run task</button>
<div id="out"></div>
<script>
let n = 0;
document.getElementById('go').addEventListener('click', () => {
  const k = ++n;
  setTimeout(() => {
    const p = document.createElement('p');
    p.textContent = 'Done ' + k;
    document.getElementById('out').appendChild(p);
  }, 50);
});
</script>`);

const pages = {
  '/': page('Fixtures', `<h1>Fixtures</h1><ul>
<li><a href="/button-async">button-async</a></li>
<li><a href="/nav-a">nav-a</a></li>
<li><a href="/large?n=200">large</a></li>
<li><a href="/slow-server?ms=500">slow-server</a></li></ul>`),
  '/button-async': buttonAsync,
  // A document navigation from A to B.
  '/nav-a': page('Page A', `<h1>Page A</h1>
<p><a id="to-b" href="/nav-b">Go to page B</a></p>`),
  '/nav-b': page('Page B', `<h1>Page B</h1><p>Page B loaded</p>`),
};

// largePage is a list of n items, each with a link and a button: 8 nodes
// of snapshot per item.
export function largePage(n) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push(`<li>Item ${i} <a href="#item-${i}">link ${i}</a> <button type="button">button ${i}</button></li>`);
  }
  return page(`Large ${n}`, `<h1>Large list (${n})</h1>\n<ul>\n${items.join('\n')}\n</ul>`);
}

const types = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json',
};

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

// serveFixtures starts the fixture server and returns its base URL and a
// stop function. With doc (a path to an HTML file), /large is that file and
// the other paths are files of its directory, for snapshots of real
// documents.
export async function serveFixtures({ doc } = {}) {
  const root = doc ? path.dirname(path.resolve(doc)) : undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://fixtures');
    const html = 'text/html; charset=utf-8';
    if (pages[url.pathname]) return send(res, 200, html, pages[url.pathname]);
    if (url.pathname === '/large') {
      if (doc) return send(res, 200, html, fs.readFileSync(doc));
      const n = Math.max(0, Math.min(100000, Number(url.searchParams.get('n') ?? 2000) || 0));
      return send(res, 200, html, largePage(n));
    }
    if (url.pathname === '/slow-server') {
      const ms = Math.max(0, Math.min(60000, Number(url.searchParams.get('ms') ?? 1000) || 0));
      const t = setTimeout(() => send(res, 200, html, page('Slow', `<p>Slow response after ${ms} ms</p>`)), ms);
      req.on('close', () => clearTimeout(t));
      return;
    }
    if (root) {
      const file = path.join(root, path.normalize(decodeURIComponent(url.pathname)));
      if (file.startsWith(root + path.sep)) {
        fs.readFile(file, (err, b) => {
          if (err) return send(res, 404, 'text/plain', 'not found');
          send(res, 200, types[path.extname(file)] ?? 'application/octet-stream', b);
        });
        return;
      }
    }
    send(res, 404, 'text/plain', 'not found');
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
