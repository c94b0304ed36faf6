// Snapshots an agent can afford: what three fixed tasks on the Rust
// toolchain's offline documentation cost in reply text, each server with
// its own tools (bench/snapshottokens says each script step by step).
// Needs rustc on PATH with its documentation (rustup's rust-docs), or
// --docs DIR.
export const title = 'Reply bytes of three tasks on real documents (snapshot tokens)';
export const usage = '--docs DIR (rustc --print sysroot)/share/doc/rust/html';

export async function run(b, o) {
  const docs = o.docs ? ['-docs', o.docs] : [];
  const cols = [
    ['tabhive', 'tabhive', b.servers.tabhive(b.tabhive())],
    ['chrome-devtools-mcp 1.11', 'cdm', b.servers.cdm()],
    ['@playwright/mcp 0.0.83', 'pwm', b.servers.pwm({ transport: 'stdio' })],
    ['@playwright/mcp, --snapshot-mode none', 'pwm', b.servers.pwm({ transport: 'stdio', extra: ['--snapshot-mode', 'none'] })],
  ];
  const res = [];
  for (const [name, kind, server] of cols) {
    const out = await b.go(name, 'snapshottokens', ['-kind', kind, '-label', name, ...docs, '--', ...server.argv]).catch((e) => (console.error(e.message), ''));
    res.push(Object.fromEntries(out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).map((r) => [r.task, r])));
  }
  const tasks = [...new Set(res.flatMap((r) => Object.keys(r)))];
  b.print(['task', ...cols.map(([n]) => n)], tasks.map((t) => [t, ...res.map((r) => (r[t] ? `${r[t].total_bytes.toLocaleString('en')} B, ${r[t].ok ? 'ok' : 'not ok'}` : 'failed'))]));
}
