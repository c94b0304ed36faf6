// gen-tools.mjs writes testdata/cdm-1.11-tools.json: chrome-devtools-mcp's
// tools/list under each flag set that changes it, so that a Go test can hold
// tabhive's tool surface equal to it without Node.
//
//   cd bench && npm ci && cd ..        # once: bench/ pins chrome-devtools-mcp and the SDK
//   node bench/surface/gen-tools.mjs   # rewrites testdata/cdm-1.11-tools.json
//
// CDM_DEPS names another directory whose node_modules hold them.
//
// Listing tools does not start a browser: chrome-devtools-mcp launches
// Chrome on the first tool call, so the script needs neither Chrome nor a
// network (usage statistics and CrUX are turned off).
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const deps = process.env.CDM_DEPS ?? path.join(here, '..');
const require = createRequire(path.join(deps, 'package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
const cdmPackage = require('chrome-devtools-mcp/package.json');
const cdmDir = path.dirname(require.resolve('chrome-devtools-mcp/package.json'));
const cdmBin = path.join(cdmDir, cdmPackage.bin['chrome-devtools-mcp'] ?? Object.values(cdmPackage.bin)[0]);

// tools/list does not carry a tool's category (the flag that turns it on or
// off) nor its conditions (other flags it needs): read them from the tool
// definitions themselves.
const { createTools } = await import(path.join(cdmDir, 'build', 'src', 'tools', 'tools.js'));
const defs = new Map(createTools({ pageIdRouting: true }).map(t => [t.name, t.annotations]));

// Each flag set is a name and chrome-devtools-mcp's arguments; tabhive's
// test starts its binary with the same arguments.
const flagSets = [
  ['default', []],
  ['slim', ['--slim']],
  ['memoryDebugging', ['--memoryDebugging']],
  ['categoryExtensions', ['--categoryExtensions']],
  ['experimentalCategories', ['--categoryPwa', '--categoryExperimentalWebmcp', '--categoryExperimentalThirdParty']],
  ['categoryInput=false', ['--categoryInput=false']],
  ['categoryNavigation=false', ['--categoryNavigation=false']],
  ['categoryEmulation=false', ['--categoryEmulation=false']],
  ['categoryPerformance=false', ['--categoryPerformance=false']],
  ['categoryNetwork=false', ['--categoryNetwork=false']],
  ['categoryDebugging=false', ['--categoryDebugging=false']],
  ['categoryMemory=false', ['--categoryMemory=false']],
  ['no-category-emulation', ['--no-category-emulation']],
  ['slim categoryDebugging=false', ['--slim', '--categoryDebugging=false']],
  ['experimentalVision', ['--experimentalVision']],
  ['javascriptEvaluation=false', ['--javascriptEvaluation=false']],
  ['no-page-id-routing', ['--no-page-id-routing']],
];

// params flattens a tool's input schema to what the test compares: each
// parameter's name, whether it is required, its JSON type and its values.
function params(schema) {
  const required = new Set(schema?.required ?? []);
  const result = {};
  for (const [name, p] of Object.entries(schema?.properties ?? {})) {
    const entry = { type: p.type ?? 'any', required: required.has(name) };
    if (p.enum) entry.enum = p.enum;
    if (p.items?.enum) entry.itemEnum = p.items.enum;
    result[name] = entry;
  }
  return result;
}

async function list(args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cdmBin, '--headless', '--isolated', '--no-usage-statistics', '--no-performance-crux', ...args],
    env: { ...process.env, CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'tabhive-surface', version: '0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

// The file says once what each tool is (its description, category and
// conditions), and for each flag set which tools are listed with which
// parameters.
const doc = {
  generator: 'bench/surface/gen-tools.mjs',
  server: `chrome-devtools-mcp ${cdmPackage.version}`,
  tools: {},
  flagSets: [],
};
for (const [name, args] of flagSets) {
  const tools = await list(args);
  const listed = {};
  for (const t of tools) {
    listed[t.name] = params(t.inputSchema);
    doc.tools[t.name] ??= {
      category: defs.get(t.name)?.category,
      conditions: defs.get(t.name)?.conditions,
      readOnly: t.annotations?.readOnlyHint ?? false,
      description: t.description,
    };
  }
  doc.flagSets.push({ name, args, tools: listed });
  console.error(`${name}: ${tools.length} tools`);
}
doc.tools = Object.fromEntries(Object.entries(doc.tools).sort(([a], [b]) => a.localeCompare(b)));
const file = path.join(here, '..', '..', 'testdata', 'cdm-1.11-tools.json');
writeFileSync(file, JSON.stringify(doc, null, 1) + '\n');
console.error(`wrote ${file}`);
