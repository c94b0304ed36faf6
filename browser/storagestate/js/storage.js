// Reads and writes one origin's localStorage and IndexedDB in the layout of
// Playwright's storageState. It runs in a page of the origin that tabhive
// loads with an empty document of its own, so no page script runs beside
// it. IndexedDB values that JSON carries as they are (plain objects,
// arrays, strings, finite numbers, booleans, null) are written as "value"
// (and "key"); others as "valueEncoded" ("keyEncoded") in Playwright's
// tagged form: {v: "undefined" | "null" | "NaN" | "Infinity" | "-Infinity"
// | "-0"}, {d: date}, {bi: bigint}, {r: {p, f}}, {e: {n, m, s}},
// {ta: {b, k}}, {ab: {b}}, {a: [...], id}, {o: [{k, v}], id},
// {m: [{k, v}], id}, {s: [...], id}, {ref: id}.
({
  async collect(withIndexedDB, limit) {
    const out = { localStorage: [] };
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      out.localStorage.push({ name, value: localStorage.getItem(name) });
    }
    if (withIndexedDB && indexedDB.databases) {
      out.indexedDB = [];
      for (const info of await indexedDB.databases()) {
        if (info.name && info.version)
          out.indexedDB.push(await this.collectDB(info));
      }
    }
    const text = JSON.stringify(out);
    if (text.length > limit)
      throw new Error(`the storage of ${location.origin} is ${text.length} characters, more than the ${limit} a state file may hold`);
    return text;
  },

  request(req) {
    return new Promise((resolve, reject) => {
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  },

  async collectDB(info) {
    const db = await this.request(indexedDB.open(info.name));
    try {
      const names = [...db.objectStoreNames];
      if (!names.length)
        return { name: info.name, version: info.version, stores: [] };
      const tx = db.transaction(names, 'readonly');
      const stores = [];
      for (const name of names) {
        const store = tx.objectStore(name);
        const keys = await this.request(store.getAllKeys());
        const values = await this.request(store.getAll());
        const records = keys.map((key, i) => {
          const record = {};
          if (store.keyPath === null)
            this.put(record, 'key', key);
          this.put(record, 'value', values[i]);
          return record;
        });
        const indexes = [...store.indexNames].map(n => {
          const index = store.index(n);
          return {
            name: index.name,
            keyPath: typeof index.keyPath === 'string' ? index.keyPath : undefined,
            keyPathArray: Array.isArray(index.keyPath) ? index.keyPath : undefined,
            multiEntry: index.multiEntry,
            unique: index.unique,
          };
        });
        stores.push({
          name,
          records,
          indexes,
          autoIncrement: store.autoIncrement,
          keyPath: typeof store.keyPath === 'string' ? store.keyPath : undefined,
          keyPathArray: Array.isArray(store.keyPath) ? store.keyPath : undefined,
        });
      }
      return { name: info.name, version: info.version, stores };
    } finally {
      db.close();
    }
  },

  // put sets record[field] to v if JSON carries it unchanged, else
  // record[field + 'Encoded'] to its tagged form.
  put(record, field, v) {
    if (this.plain(v, new Set()))
      record[field] = v;
    else
      record[field + 'Encoded'] = this.encode(v, { ids: new Map(), next: 0 });
  },

  plain(v, seen) {
    if (v === null || typeof v === 'string' || typeof v === 'boolean')
      return true;
    if (typeof v === 'number')
      return Number.isFinite(v) && !Object.is(v, -0);
    if (typeof v !== 'object' || seen.has(v))
      return false;
    const array = Array.isArray(v);
    if (!array && Object.getPrototypeOf(v) !== Object.prototype)
      return false;
    seen.add(v);
    const ok = (array ? v : Object.values(v)).every(x => this.plain(x, seen));
    seen.delete(v);
    return ok;
  },

  typed: { i8: Int8Array, ui8: Uint8Array, ui8c: Uint8ClampedArray, i16: Int16Array, ui16: Uint16Array, i32: Int32Array, ui32: Uint32Array, f32: Float32Array, f64: Float64Array, bi64: BigInt64Array, bui64: BigUint64Array },

  base64(bytes) {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(s);
  },

  bytes(b64) {
    const s = atob(b64);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++)
      out[i] = s.charCodeAt(i);
    return out;
  },

  encode(v, st) {
    if (v === undefined) return { v: 'undefined' };
    if (v === null) return { v: 'null' };
    switch (typeof v) {
      case 'number':
        if (Number.isNaN(v)) return { v: 'NaN' };
        if (v === Infinity) return { v: 'Infinity' };
        if (v === -Infinity) return { v: '-Infinity' };
        if (Object.is(v, -0)) return { v: '-0' };
        return v;
      case 'string': case 'boolean': return v;
      case 'bigint': return { bi: v.toString() };
      case 'object': break;
      default: return { v: 'undefined' };
    }
    if (v instanceof Date) return { d: v.toJSON() };
    if (v instanceof RegExp) return { r: { p: v.source, f: v.flags } };
    if (v instanceof Error) return { e: { n: v.name, m: v.message, s: String(v.stack) } };
    for (const [k, ctor] of Object.entries(this.typed)) {
      if (v instanceof ctor)
        return { ta: { b: this.base64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)), k } };
    }
    if (v instanceof ArrayBuffer) return { ab: { b: this.base64(new Uint8Array(v)) } };
    if (st.ids.has(v)) return { ref: st.ids.get(v) };
    const id = ++st.next;
    st.ids.set(v, id);
    if (v instanceof Map) return { m: [...v].map(([k, x]) => ({ k: this.encode(k, st), v: this.encode(x, st) })), id };
    if (v instanceof Set) return { s: [...v].map(x => this.encode(x, st)), id };
    if (Array.isArray(v)) return { a: v.map(x => this.encode(x, st)), id };
    return { o: Object.keys(v).map(k => ({ k, v: this.encode(v[k], st) })), id };
  },

  decode(v, refs) {
    if (v === null || typeof v !== 'object') return v;
    if ('ref' in v) return refs.get(v.ref);
    if ('v' in v) return { null: null, NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 }[v.v];
    if ('d' in v) return new Date(v.d);
    if ('bi' in v) return BigInt(v.bi);
    if ('u' in v) return new URL(v.u);
    if ('r' in v) return new RegExp(v.r.p, v.r.f);
    if ('e' in v) { const e = new Error(v.e.m); e.name = v.e.n; e.stack = v.e.s; return e; }
    if ('ta' in v) return new this.typed[v.ta.k](this.bytes(v.ta.b).buffer);
    if ('ab' in v) return this.bytes(v.ab.b).buffer;
    if ('a' in v) { const out = []; refs.set(v.id, out); for (const x of v.a) out.push(this.decode(x, refs)); return out; }
    if ('m' in v) { const out = new Map(); refs.set(v.id, out); for (const { k, v: x } of v.m) out.set(this.decode(k, refs), this.decode(x, refs)); return out; }
    if ('s' in v) { const out = new Set(); refs.set(v.id, out); for (const x of v.s) out.add(this.decode(x, refs)); return out; }
    if ('o' in v) {
      const out = {};
      refs.set(v.id, out);
      for (const { k, v: x } of v.o) {
        if (k !== '__proto__')
          out[k] = this.decode(x, refs);
      }
      return out;
    }
    return undefined;
  },

  async restore(state) {
    if (indexedDB.databases) {
      for (const info of await indexedDB.databases()) {
        if (info.name)
          await this.request(indexedDB.deleteDatabase(info.name)).catch(() => {});
      }
    }
    for (const info of state.indexedDB || [])
      await this.restoreDB(info);
    localStorage.clear();
    for (const { name, value } of state.localStorage || [])
      localStorage.setItem(name, value);
  },

  async restoreDB(info) {
    const open = indexedDB.open(info.name, info.version);
    open.onupgradeneeded = () => {
      for (const s of info.stores) {
        const store = open.result.createObjectStore(s.name, { autoIncrement: s.autoIncrement, keyPath: s.keyPathArray ?? s.keyPath });
        for (const i of s.indexes)
          store.createIndex(i.name, i.keyPathArray ?? i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
      }
    };
    const db = await this.request(open);
    try {
      const names = [...db.objectStoreNames];
      if (!names.length)
        return;
      const tx = db.transaction(names, 'readwrite');
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      });
      for (const s of info.stores) {
        const store = tx.objectStore(s.name);
        for (const r of s.records) {
          const value = 'value' in r ? r.value : this.decode(r.valueEncoded, new Map());
          const hasKey = 'key' in r || 'keyEncoded' in r;
          const key = 'key' in r ? r.key : this.decode(r.keyEncoded, new Map());
          if (hasKey) store.add(value, key); else store.add(value);
        }
      }
      await done;
    } finally {
      db.close();
    }
  },
})
