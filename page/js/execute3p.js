// Runs one of the page's developer tools (see discover3p.js) through
// window.__dtmcp.executeTool, in the page's main world. Called with the
// tool's name, its arguments (a JSON object) and the elements named by
// {uid} arguments, in order: each {uid: "..."} value at the top level of
// the arguments becomes the next element. The result is made JSON-safe:
// elements become "<tag#id.class>" strings, other objects that are not
// plain become "<Name instance>", cycles "<Circular reference>", functions
// "<Function object>", symbols and bigints their text.
async function (name, args, ...elements) {
  for (const [key, value] of Object.entries(args)) {
    if (value instanceof Object && typeof value.uid === 'string' && Object.keys(value).length === 1) {
      args[key] = elements.shift();
    }
  }
  if (!window.__dtmcp || !window.__dtmcp.executeTool) throw new Error('No tools found on the page');
  const result = await window.__dtmcp.executeTool(name, args);
  const ancestors = new Set();
  const plain = (data) => {
    if (typeof Element !== 'undefined' && data instanceof Element) {
      let s = '<' + data.tagName.toLowerCase();
      if (data.id) s += '#' + data.id;
      if (typeof data.className === 'string' && data.className.trim()) s += '.' + data.className.trim().split(/\s+/).join('.');
      return s + '>';
    }
    if (Array.isArray(data)) {
      if (ancestors.has(data)) return '<Circular reference>';
      ancestors.add(data);
      try { return data.map(plain); } finally { ancestors.delete(data); }
    }
    if (data !== null && typeof data === 'object') {
      const proto = Object.getPrototypeOf(data);
      if (proto !== null && proto !== Object.prototype) return `<${(data.constructor && data.constructor.name) || 'Object'} instance>`;
      if (ancestors.has(data)) return '<Circular reference>';
      ancestors.add(data);
      try {
        const out = {};
        for (const [k, v] of Object.entries(data)) out[k] = plain(v);
        return out;
      } finally { ancestors.delete(data); }
    }
    if (typeof data === 'function') return '<Function object>';
    if (typeof data === 'symbol') return data.toString();
    if (typeof data === 'bigint') return `${data.toString()}n`;
    return data;
  };
  return plain(result);
}
