// Asks the page for the developer tools it offers: dispatches
// devtoolstooldiscovery on window, whose listeners answer with
// event.respondWith({name, description, tools: [{name, description,
// inputSchema, execute}]}). Runs in the page's main world, where the page's
// listeners are: the answer is the page's word about itself. The groups are
// kept on window.__dtmcp, with executeTool(name, args) to run one, as
// chrome-devtools-mcp keeps them (evaluate_script may call it). Resolves
// with the groups, their functions left out; an inputSchema property marked
// "x-mcp-type": "HTMLElement" becomes {uid} (the element's uid in a
// snapshot).
() => new Promise((resolve) => {
  if (window.__dtmcp) window.__dtmcp.toolGroups = [];
  const groups = [];
  const event = new CustomEvent('devtoolstooldiscovery');
  event.respondWith = (group) => {
    if (!group || typeof group.name !== 'string' || (group.description && typeof group.description !== 'string') || !Array.isArray(group.tools)) {
      console.error('Invalid toolGroup:', group);
      return;
    }
    for (const tool of group.tools) {
      if (!tool || typeof tool.name !== 'string' || typeof tool.description !== 'string' || typeof tool.inputSchema !== 'object' || typeof tool.execute !== 'function') {
        console.error('Invalid tool:', tool);
        return;
      }
    }
    window.__dtmcp = window.__dtmcp || {};
    window.__dtmcp.toolGroups = window.__dtmcp.toolGroups || [];
    window.__dtmcp.toolGroups.push(group);
    if (!window.__dtmcp.executeTool) {
      window.__dtmcp.executeTool = async (name, args) => {
        const all = (window.__dtmcp && window.__dtmcp.toolGroups) || [];
        if (all.length === 0) throw new Error('No tools found on the page');
        for (const g of all) {
          const t = (g.tools || []).find((t) => t.name === name);
          if (t) return await t.execute(args);
        }
        throw new Error(`Tool ${name} not found`);
      };
    }
    groups.push(group);
  };
  const uids = (schema) => {
    if (!schema || typeof schema !== 'object') return schema;
    if (schema['x-mcp-type'] === 'HTMLElement') {
      return {...schema, properties: {uid: {type: 'string'}}, required: ['uid']};
    }
    const out = {...schema};
    if (schema.properties && typeof schema.properties === 'object') {
      out.properties = {};
      for (const [k, v] of Object.entries(schema.properties)) out.properties[k] = uids(v);
    }
    if (Array.isArray(schema.items)) out.items = schema.items.map(uids);
    else if (schema.items) out.items = uids(schema.items);
    for (const k of ['anyOf', 'allOf', 'oneOf']) {
      if (Array.isArray(schema[k])) out[k] = schema[k].map(uids);
    }
    return out;
  };
  const done = () => resolve(groups.map((g) => ({
    name: g.name,
    description: g.description || '',
    tools: g.tools.map((t) => ({name: t.name, description: t.description, inputSchema: uids(t.inputSchema)})),
  })));
  window.dispatchEvent(event);
  // Listeners may answer after a microtask: give them one turn.
  if (groups.length > 0) done(); else setTimeout(done, 0);
})
