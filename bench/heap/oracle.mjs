// oracle.mjs records what DevTools' own heap-snapshot model says about the
// test snapshots, for the Go tests to hold tabhive's engine and replies to:
//
//  1. internal/devtools/heap/testdata/<name>.expected.json.gz: every node's
//     dominator, retained size, distance, shallow size, class, name, DOM
//     state and native context; the class aggregates under every filter;
//     statistics; retaining paths, dominator chains, edges and retainers of
//     sample objects (instances of the fixture's leaking classes, detached
//     nodes); duplicate strings; object queries; the context analysis; and
//     the diff of leaks-before → leaks-after. Computed by DevTools'
//     JSHeapSnapshot (the copy chrome-devtools-mcp 1.11 ships), driven in its
//     own worker thread.
//  2. page/memory/testdata/heap_replies.json: chrome-devtools-mcp 1.11's
//     reply to each call of a matrix of memory-tool calls on the same files.
//
//   node bench/heap/oracle.mjs [--node-modules DIR]
//
// Run make-fixtures.mjs first when the fixture page changes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Worker} from 'node:worker_threads';
import zlib from 'node:zlib';

import {callText, nodeModules, repo, startCDM} from './lib.mjs';

const modules = nodeModules();
const testdata = path.join(repo, 'internal', 'devtools', 'heap', 'testdata');
const names = ['leaks-before', 'leaks-after'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-oracle-'));
const files = {};
for (const name of names) {
  files[name] = path.join(tmp, name + '.heapsnapshot');
  fs.writeFileSync(files[name], zlib.gunzipSync(fs.readFileSync(path.join(testdata, name + '.heapsnapshot.gz'))));
}

// The sample classes whose instances get paths, edges and retainers.
const sampleClasses = ['Widget', 'LeakPayload', 'ListenerState', 'BigBuffer', 'Detached <section>', 'Detached <span>', 'Function'];

// model runs inside DevTools' worker (evaluateForTest), where
// globalThis.HeapSnapshotWorker holds the model's modules.
async function model(files, names, sampleClasses) {
  if (!Promise.withResolvers) {
    Promise.withResolvers = function () {
      let resolve, reject;
      const promise = new Promise((a, b) => { resolve = a; reject = b; });
      return {promise, resolve, reject};
    };
  }
  const fs = process.getBuiltinModule('node:fs');
  const {HeapSnapshotLoader} = HeapSnapshotWorker.HeapSnapshotLoader;
  const {SecondaryInitManager} = HeapSnapshotWorker.HeapSnapshot;
  const load = async file => {
    const loader = new HeapSnapshotLoader(undefined);
    const text = fs.readFileSync(file, 'utf8');
    for (let i = 0; i < text.length; i += 1 << 20) loader.write(text.slice(i, i + (1 << 20)));
    loader.close();
    const channel = new MessageChannel();
    new SecondaryInitManager(channel.port2);
    const s = await loader.buildSnapshot(channel.port1);
    channel.port1.close();
    return s;
  };
  const keyOf = (s, node) => {
    const k = node.classKeyInternal();
    return typeof k === 'number' ? ',' + s.strings[k] : k;
  };
  const out = {};
  const snapshots = {};
  for (const name of names) {
    const s = await load(files[name]);
    snapshots[name] = s;
    const N = s.nodeCount, nf = s.nodeFieldCount;
    const node = s.createNode(0);
    const e = {nodes: {id: [], name: [], type: [], self: [], retained: [], dominator: [], distance: [], state: [], classKey: [], nativeContext: [], flags: []}};
    for (let o = 0; o < N; o++) {
      node.nodeIndex = o * nf;
      const n = e.nodes;
      n.id.push(node.id());
      n.name.push(node.name());
      n.type.push(node.type());
      n.self.push(node.selfSize());
      n.retained.push(s.retainedSizes[o]);
      n.dominator.push(s.dominatorsTree[o]);
      n.distance.push(s.nodeDistances[o]);
      n.state.push(node.detachedness());
      n.classKey.push(keyOf(s, node));
      n.nativeContext.push(s.nodeNativeContextAttribution[o]);
      n.flags.push(s.flags[o]);
    }
    e.statistics = s.getStatistics();
    e.staticData = s.updateStaticData();
    e.nativeContextSizes = s.getNativeContextSizes();
    e.retainedByContextSummary = s.getRetainedByContextSummary();
    e.interfaceDefinitions = JSON.parse(s.interfaceDefinitions());
    const filters = ['', 'objectsRetainedByDetachedDomNodes', 'objectsRetainedByConsole', 'objectsRetainedByEventHandlers',
      'objectsRetainedByContexts', 'sharedNativeContext', 'noNativeContext'];
    for (const c of e.nativeContextSizes.nativeContexts) filters.push('nativeContext_' + c.nodeIndex);
    e.aggregates = {};
    for (const f of filters) {
      const aggs = s.aggregatesWithFilter(f ? {filterName: f} : {});
      e.aggregates[f] = Object.entries(aggs).map(([key, a]) => ({
        key, name: a.name, count: a.count, self: a.self, maxRet: a.maxRet, distance: a.distance,
        nodes: f === '' ? a.idxs.map(i => i / nf) : undefined,
      }));
    }
    // Samples: the first three instances of each sample class, and its
    // instance of largest retained size.
    const samples = [];
    for (const cls of sampleClasses) {
      const agg = Object.values(s.aggregatesWithFilter({})).find(a => a.name === cls);
      if (!agg) continue;
      const idxs = agg.idxs.slice(0, 3);
      let best = agg.idxs[0];
      for (const i of agg.idxs) if (s.retainedSizes[i / nf] > s.retainedSizes[best / nf]) best = i;
      if (!idxs.includes(best)) idxs.push(best);
      for (const idx of idxs) {
        node.nodeIndex = idx;
        const edges = sortBy => s.createEdgesProvider(idx, {sortBy, excludePrimitives: true}).serializeItemsRange(0, Infinity).items;
        samples.push({
          id: node.id(),
          className: cls,
          paths: s.getRetainingPaths(idx),
          pathsBounded: s.getRetainingPaths(idx, 5, 50, 2),
          dominators: s.getDominatorsOf(idx),
          objectInfo: s.getObjectInfo(idx),
          edgesByRetained: edges('retainedSize'),
          edgesByName: edges('name'),
          edgesBySelf: edges('selfSize'),
          edgesAll: s.createEdgesProvider(idx, {sortBy: 'retainedSize'}).serializeItemsRange(0, Infinity).items,
          retainers: s.createRetainingEdgesProvider(idx).serializeItemsRange(0, Infinity).items,
        });
      }
    }
    e.samples = samples;
    e.duplicateStrings = s.getDuplicateStrings();
    const query = q => s.queryObjects(q).serializeItemsRange(0, Infinity).items;
    e.queries = [
      {query: {className: 'Widget'}},
      {query: {isDetached: true, sortBy: 'selfSize'}},
      {query: {nodeType: 'closure', minRetainedSize: 500}},
      {query: {propertyName: '^label$', sortBy: 'id'}},
      {query: {className: 'payload|buffer', minSelfSize: 20, maxSelfSize: 200, maxRetainedSize: 5000}},
    ].map(q => ({...q, items: query(q.query)}));
    e.contexts = s.analyzeContexts();
    out[name] = e;
  }
  if (snapshots['leaks-before'] && snapshots['leaks-after']) {
    const base = snapshots['leaks-before'], cur = snapshots['leaks-after'];
    const raw = cur.calculateSnapshotDiff('base', base.aggregatesForDiff(cur.interfaceDefinitions()));
    out.diff = Object.values(raw).filter(d => d.addedCount > 0 || d.removedCount > 0).sort((a, b) => b.sizeDelta - a.sizeDelta)
      .map(d => ({name: d.name, addedCount: d.addedCount, removedCount: d.removedCount, addedSize: d.addedSize, removedSize: d.removedSize,
        addedIds: d.addedIds, deletedIds: d.deletedIds, addedSelfSizes: d.addedSelfSizes, deletedSelfSizes: d.deletedSelfSizes}));
  }
  return JSON.stringify(out);
}

// evaluate runs model in a fresh DevTools heap-snapshot worker.
async function evaluate(fn, ...args) {
  const workerFile = path.join(modules, 'chrome-devtools-mcp', 'build', 'src', 'third_party', 'devtools-heap-snapshot-worker.js');
  // The worker's evaluateForTest calls self.eval, and Node's workers have no
  // self: start it from a line that adds one.
  const boot = `globalThis.self = globalThis; import(${JSON.stringify(pathToFileURL(workerFile).href)});`;
  const worker = new Worker(boot, {eval: true, resourceLimits: {maxOldGenerationSizeMb: 8192}});
  try {
    await new Promise((resolve, reject) => {
      worker.once('message', m => m === 'workerReady' ? resolve() : reject(new Error('unexpected ' + m)));
      worker.once('error', reject);
    });
    const source = `(${fn.toString()})(...${JSON.stringify(args)})`;
    const reply = await new Promise((resolve, reject) => {
      worker.on('message', m => { if (m && m.callId === 1) resolve(m); });
      worker.once('error', reject);
      worker.postMessage({callId: 1, disposition: 'evaluateForTest', source});
    });
    if (reply.error) throw new Error(reply.error);
    if (typeof reply.result !== 'string' || !reply.result.startsWith('{')) throw new Error(String(reply.result));
    return JSON.parse(reply.result);
  } finally {
    await worker.terminate();
  }
}

const expected = await evaluate(model, files, names, sampleClasses);
for (const name of names) {
  const gz = zlib.gzipSync(JSON.stringify(expected[name]), {level: 9});
  fs.writeFileSync(path.join(testdata, name + '.expected.json.gz'), gz);
  console.error(`${name}: expected values, ${gz.length} bytes gzipped`);
}
fs.writeFileSync(path.join(testdata, 'diff.expected.json.gz'), zlib.gzipSync(JSON.stringify(expected.diff), {level: 9}));

// The reply matrix.
const before = files['leaks-before'], after = files['leaks-after'];
const e = expected['leaks-before'];
const sample = cls => e.samples.find(x => x.className === cls).id;
const classID = name => e.aggregates[''].findIndex(a => a.name === name) + 1;
const mainContext = e.nativeContextSizes.nativeContexts.slice().sort((a, b) => b.attributedSize - a.attributedSize)[0].nodeId;
const widget = sample('Widget'), detached = sample('Detached <section>'), payload = sample('LeakPayload');
const calls = [
  ['get_heapsnapshot_summary', {filePath: before}],
  ['get_heapsnapshot_summary', {filePath: after, maxNameLength: 20}],
  ['get_heapsnapshot_details', {filePath: before}],
  ['get_heapsnapshot_details', {filePath: before, pageSize: 10}],
  ['get_heapsnapshot_details', {filePath: before, pageIdx: 2, pageSize: 15, maxNameLength: 12}],
  ['get_heapsnapshot_details', {filePath: before, pageIdx: 9999}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'objectsRetainedByDetachedDomNodes'}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'objectsRetainedByConsole'}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'objectsRetainedByEventHandlers'}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'objectsRetainedByContexts'}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'sharedNativeContext', pageSize: 20}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'noNativeContext', pageSize: 20}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'attributedToSpecificNativeContext', objectId: mainContext, pageSize: 20}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'attributedToSpecificNativeContext'}],
  ['get_heapsnapshot_details', {filePath: before, filterName: 'attributedToSpecificNativeContext', objectId: 1}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: classID('Widget'), pageSize: 10}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: classID('Widget'), pageIdx: 3, pageSize: 7}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: classID('LeakPayload')}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: classID('Detached <span>'), filterName: 'objectsRetainedByDetachedDomNodes'}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: classID('ListenerState'), filterName: 'objectsRetainedByEventHandlers'}],
  ['get_heapsnapshot_class_nodes', {filePath: before, id: 999999}],
  ['get_heapsnapshot_retainers', {filePath: before, nodeId: widget}],
  ['get_heapsnapshot_retainers', {filePath: before, nodeId: detached}],
  ['get_heapsnapshot_retainers', {filePath: before, nodeId: 3}],
  ['get_heapsnapshot_retaining_paths', {filePath: before, nodeId: widget}],
  ['get_heapsnapshot_retaining_paths', {filePath: before, nodeId: payload}],
  ['get_heapsnapshot_retaining_paths', {filePath: before, nodeId: detached, maxDepth: 4}],
  ['get_heapsnapshot_retaining_paths', {filePath: before, nodeId: detached, maxSiblings: 1, maxNodes: 4}],
  ['get_heapsnapshot_retaining_paths', {filePath: before, nodeId: 1}],
  ['get_heapsnapshot_dominators', {filePath: before, nodeId: widget}],
  ['get_heapsnapshot_dominators', {filePath: before, nodeId: payload, maxNameLength: 10}],
  ['get_heapsnapshot_edges', {filePath: before, nodeId: widget}],
  ['get_heapsnapshot_edges', {filePath: before, nodeId: widget, excludePrimitives: false, sortBy: 'name'}],
  ['get_heapsnapshot_edges', {filePath: before, nodeId: payload, sortBy: 'selfSize', pageSize: 5}],
  ['get_heapsnapshot_edges', {filePath: before, nodeId: detached, retainedSize: '1kb'}],
  ['get_heapsnapshot_object_details', {filePath: before, nodeId: widget}],
  ['get_heapsnapshot_object_details', {filePath: before, nodeId: detached}],
  ['get_heapsnapshot_object_details', {filePath: before, nodeId: 123456789}],
  ['get_heapsnapshot_duplicate_strings', {filePath: before, pageSize: 5}],
  ['get_heapsnapshot_duplicate_strings', {filePath: before, maxNameLength: 8}],
  ['query_heapsnapshot_objects', {filePath: before, className: 'Widget', pageSize: 5}],
  ['query_heapsnapshot_objects', {filePath: before, isDetached: true, sortBy: 'id'}],
  ['query_heapsnapshot_objects', {filePath: before, nodeType: 'closure', retainedSize: '500-', pageSize: 10}],
  ['query_heapsnapshot_objects', {filePath: before, propertyName: '^label$', selfSize: '-100', pageSize: 3, pageIdx: 1}],
  ['compare_heapsnapshots', {baseFilePath: before, currentFilePath: after}],
  ['compare_heapsnapshots', {baseFilePath: before, currentFilePath: after, pageSize: 5, pageIdx: 1}],
  ['compare_heapsnapshots', {baseFilePath: before, currentFilePath: after, classIndex: 0}],
  ['compare_heapsnapshots', {baseFilePath: before, currentFilePath: after, classIndex: 500}],
  ['get_heapsnapshot_class_nodes', {filePath: after, id: classID('Widget'), pageSize: 10}],
  ['analyze_heapsnapshot_contexts', {filePath: before}],
  ['analyze_heapsnapshot_contexts', {filePath: after, pageSize: 1, retainedSize: '1kb-'}],
  ['close_heapsnapshot', {filePath: before}],
  ['close_heapsnapshot', {filePath: before}],
];
const client = await startCDM(modules);
const replies = [];
try {
  for (const [tool, args] of calls) {
    const r = await callText(client, tool, args);
    const rel = s => s.split(tmp).join('$DIR');
    replies.push({tool, args: JSON.parse(rel(JSON.stringify(args))), text: rel(r.text), isError: r.isError});
    console.error(`${tool} ${JSON.stringify(args).split(tmp).join('$DIR')}: ${r.text.length} chars${r.isError ? ' (error)' : ''}`);
  }
} finally {
  await client.close();
}
fs.writeFileSync(path.join(repo, 'page', 'memory', 'testdata', 'heap_replies.json'), JSON.stringify(replies, null, 1) + '\n');
fs.rmSync(tmp, {recursive: true, force: true});
