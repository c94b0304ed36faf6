// Four 50 MB evaluate results at once: four pages of one stdio session
// each return 'x'.repeat(50 << 20), in parallel, twice; the server's peak
// RSS (VmHWM), before (2b01322: results whole) and after (this tree: cut in
// the page).
export const title = 'Four 50 MB evaluate results at once (server peak RSS)';
export const usage = '--before REV (2b01322), --after REV (tree), --rounds N (2), --mb N (50)';

export async function run(b, o) {
  const rows = [];
  for (const [name, rev] of [['before', o.before ?? '2b01322'], ['after', o.after ?? 'tree']]) {
    const server = b.servers.tabhive(b.tabhive(rev));
    const out = await b.go(name, 'evalmemory', ['-rounds', String(o.rounds ?? 2), '-mb', String(o.mb ?? 50), '--', ...server.argv]).catch((e) => (console.error(e.message), ''));
    const rounds = [...out.matchAll(/round (\d+): .* in (\S+), reply sizes \[([^\]]*)\] bytes, peak RSS so far (\d+) kB/g)];
    const last = rounds.at(-1);
    rows.push([`${name} (${rev})`, last ? `${(Number(last[4]) / 1024).toFixed(1)} MB after round ${last[1]}` : 'failed',
      rounds.map((m) => `round ${m[1]}: ${m[3].split(' ').map((n) => Number(n).toLocaleString('en')).join(', ')} bytes in ${m[2]}`).join('; ') || out.trim().split('\n').pop() || '']);
  }
  b.print(['binary', 'peak RSS', 'replies'], rows);
}
