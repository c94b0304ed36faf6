// Dev-only: runs DevTools' own trace engine (@paulirish/trace_engine, the
// package DevTools publishes its Performance panel's engine as) over trace
// files and writes what it found, for internal/devtools/trace's differential test to
// hold tabhive's analysis against.
//
//   cd bench/trace && npm ci
//   node oracle.mjs ../../internal/devtools/trace/testdata/traces/*.json.gz
//
// For each TRACE it writes TRACE's name with .expected.json in place of
// .json.gz: per insight set, the metrics, the LCP element, the state of
// each insight, the render-blocking requests and the elements that moved.
// Those files are committed, so that the Go tests run without Node.
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';

import './polyfill.mjs';
import * as Trace from '@paulirish/trace_engine';
import {polyfillDOMRect} from '@paulirish/trace_engine/analyze-trace.mjs';

polyfillDOMRect();

// The insights tabhive computes, by DevTools' names.
const NAMES = [
  'LCPBreakdown', 'LCPDiscovery', 'RenderBlocking', 'DocumentLatency', 'CLSCulprits',
  'NetworkDependencyTree', 'Cache', 'DOMSize', 'ThirdParties', 'ForcedReflow',
  'DuplicatedJavaScript', 'INPBreakdown', 'ImageDelivery', 'FontDisplay', 'Viewport', 'ModernHTTP',
];

function load(file) {
  let buf = fs.readFileSync(file);
  if (buf[0] === 0x1f && buf[1] === 0x8b) {
    buf = zlib.gunzipSync(buf);
  }
  const json = JSON.parse(buf.toString('utf8'));
  return Array.isArray(json) ? {events: json, metadata: {}} : {events: json.traceEvents, metadata: json.metadata ?? {}};
}

// A source map object with what the engine's duplication check reads
// (sourceURLs, mappings, url), for maps the trace carries as data: URLs.
// DevTools resolves maps through its own loader; in Node there is none.
const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function decodeVLQ(seg) {
  const out = [];
  let shift = 0, value = 0;
  for (const ch of seg) {
    const d = VLQ.indexOf(ch);
    if (d < 0) {
      return out;
    }
    value += (d & 31) << shift;
    if (d & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >> 1) : value >> 1);
    shift = 0;
    value = 0;
  }
  return out;
}
function sourceMapFromData(raw, base) {
  const map = JSON.parse(raw);
  const resolve = s => {
    try {
      return new URL((map.sourceRoot ?? '') + s, base).href;
    } catch {
      return (map.sourceRoot ?? '') + s;
    }
  };
  const sources = (map.sources ?? []).map(resolve);
  const mappings = [];
  let src = 0;
  map.mappings.split(';').forEach((line, lineNumber) => {
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) {
        continue;
      }
      const v = decodeVLQ(seg);
      if (!v.length) {
        continue;
      }
      col += v[0];
      const m = {lineNumber, columnNumber: col};
      if (v.length >= 4) {
        src += v[1];
        m.sourceURL = sources[src];
      }
      mappings.push(m);
    }
  });
  mappings.sort((a, b) => a.lineNumber - b.lineNumber || a.columnNumber - b.columnNumber);
  return {sourceURLs: () => [...new Set(sources)], mappings: () => mappings, url: () => base};
}
async function resolveSourceMap(params) {
  const u = params.sourceMapUrl;
  if (!u || !u.startsWith('data:')) {
    return null;
  }
  const comma = u.indexOf(',');
  const head = u.slice(5, comma);
  const body = u.slice(comma + 1);
  const raw = head.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
  return sourceMapFromData(raw, params.scriptUrl);
}

async function analyze(file) {
  const {events, metadata} = load(file);
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events, {metadata, resolveSourceMap});
  const parsed = model.parsedTrace();
  const data = parsed.data;
  const serializer = new Trace.EventsSerializer.EventsSerializer();
  const key = e => (e ? serializer.keyForEvent(e) : null);
  const sets = [];
  for (const set of parsed.insights.values()) {
    const m = set.model;
    const lcpModel = m.LCPBreakdown;
    const lcp = Trace.Insights.Common.getLCP(set);
    const cls = Trace.Insights.Common.getCLS(set);
    const inp = Trace.Insights.Common.getINP(set);
    const metrics = set.navigation ?
        data.PageLoadMetrics.metricScoresByFrameId.get(set.frameId)?.get(set.navigation) :
        undefined;
    const fcp = metrics?.get('FCP');
    const subparts = {};
    for (const [name, part] of Object.entries(lcpModel?.subparts ?? {})) {
      subparts[name] = part.range;
    }
    const states = {};
    for (const name of NAMES) {
      states[name] = m[name]?.state ?? 'missing';
    }
    const shifting = new Set();
    for (const cluster of m.CLSCulprits?.clusters ?? []) {
      for (const shift of cluster.events) {
        for (const node of shift.args.data?.impacted_nodes ?? []) {
          shifting.add(node.node_id);
        }
      }
    }
    const rootCauses = [];
    for (const [shift, causes] of m.CLSCulprits?.shifts ?? []) {
      rootCauses.push({
        shift: key(shift),
        iframes: causes.iframes.length,
        fonts: causes.webFonts.map(r => r.args.data.url),
        unsizedImages: causes.unsizedImages.map(i => i.backendNodeId),
        animations: causes.nonCompositedAnimations.length,
      });
    }
    sets.push({
      id: set.id,
      url: set.url.href,
      bounds: [set.bounds.min, set.bounds.max],
      lcp: lcp ? {
        value: lcp.value,
        eventKey: key(lcp.event),
        nodeId: lcpModel.lcpEvent?.args.data?.nodeId ?? null,
        nodeName: lcpModel.lcpEvent?.args.data?.nodeName ?? null,
        image: Boolean(lcpModel.lcpRequest),
        url: lcpModel.lcpRequest?.args.data.url ?? null,
        subparts,
      } : null,
      fcp: fcp ? fcp.timing : null,
      ttfb: subparts.ttfb ?? null,
      cls: cls.value,
      clsEventKey: key(cls.worstClusterEvent),
      inp: inp ? {value: inp.value, eventKey: key(inp.event), type: inp.event.type} : null,
      states,
      renderBlocking: (m.RenderBlocking?.renderBlockingRequests ?? []).map(r => r.args.data.url),
      shifting: [...shifting].sort((a, b) => a - b),
      rootCauses,
      cache: (m.Cache?.requests ?? []).map(r => r.request.args.data.url),
      images: (m.ImageDelivery?.optimizableImages ?? []).map(i => i.request.args.data.url),
      fonts: (m.FontDisplay?.fonts ?? []).map(f => f.request.args.data.url),
      http1: (m.ModernHTTP?.http1Requests ?? []).map(r => r.args.data.url),
      forcedReflows: (m.ForcedReflow?.aggregatedBottomUpData ?? []).length,
      thirdParties: (m.ThirdParties?.entitySummaries ?? [])
          .filter(s => s.entity !== m.ThirdParties.firstPartyEntity).map(s => s.entity.name),
      duplicated: [...(m.DuplicatedJavaScript?.duplication?.keys() ?? [])],
    });
  }
  return {
    engine: '@paulirish/trace_engine ' + JSON.parse(fs.readFileSync(
        new URL('./node_modules/@paulirish/trace_engine/package.json', import.meta.url))).version,
    url: data.Meta.mainFrameURL,
    bounds: [data.Meta.traceBounds.min, data.Meta.traceBounds.max],
    sets,
  };
}

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: node oracle.mjs TRACE...');
  process.exit(2);
}
for (const file of files) {
  const out = file.replace(/\.json(\.gz)?$/, '') + '.expected.json';
  const result = await analyze(file);
  fs.writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  console.error(`${path.basename(file)}: ${result.sets.map(s => s.id).join(', ')}`);
}
