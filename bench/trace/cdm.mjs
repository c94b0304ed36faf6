// Dev-only: what cdm-analyze.mjs and cdm-replies.mjs share to run
// chrome-devtools-mcp 1.11's own trace code: finding its package, loading
// its trace engine with DevTools' globals set up, and reading a trace file.
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

// cdmDir takes a leading `--cdm DIR` off args and returns DIR; without it,
// the chrome-devtools-mcp package the bench/ package installs, else
// /work/cdm's; null when there is none.
export function cdmDir(args) {
  if (args[0] === '--cdm') {
    const dir = args[1];
    args.splice(0, 2);
    return dir;
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const c of [path.join(here, '..', 'node_modules', 'chrome-devtools-mcp'), '/work/cdm/node_modules/chrome-devtools-mcp']) {
    if (fs.existsSync(c)) {
      return c;
    }
  }
  return null;
}

// loadEngine imports chrome-devtools-mcp's PerformanceTrace module from
// its package directory cdm, after setting DevTools' globals up as
// chrome-devtools-mcp does when it creates its context (its locale, above
// all: without it every insight fails).
export async function loadEngine(cdm) {
  const engine = await import(pathToFileURL(path.join(cdm, 'build/src/processors/PerformanceTrace.js')).href);
  const {overrideDevToolsGlobals} = await import(pathToFileURL(path.join(cdm, 'build/src/devtools/DevtoolsUtils.js')).href);
  overrideDevToolsGlobals({loadResource: async url => {
    throw new Error(`no resource loading here (${url})`);
  }});
  return engine;
}

// readTrace reads a trace file, gzipped or not.
export function readTrace(file) {
  const buf = fs.readFileSync(file);
  return buf[0] === 0x1f && buf[1] === 0x8b ? zlib.gunzipSync(buf) : buf;
}
