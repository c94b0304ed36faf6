// The settle zoo: bench/settlezoo clicks one button per case, each causing
// its effect its own way, and looks for the effect in a snapshot taken at
// once; then times clicks that cause nothing. Then the harness's
// click-latency. tabhive before (11cbe2b: a fixed 100 ms DOM-quiet window)
// and after (this tree: causal settle), and chrome-devtools-mcp 1.11.
import { ms, pp } from '../lib/bench.mjs';

export const title = 'The settle zoo, side by side';
export const usage = '--before REV (11cbe2b), --after REV (tree), --rounds N (2), --noops N (30)';

const cases = {
  timer50: 'a DOM change after a 50 ms timer', timer120: '… after a 120 ms timer', timer180: '… after a 180 ms timer',
  timer300: '… after a 300 ms timer', timer600: '… after a 600 ms timer',
  fetch0: 'a 300 ms fetch started at once, then a DOM change', fetch80: 'the same fetch started after 80 ms',
  fetch150: 'the same fetch started after 150 ms', frames10: 'a DOM change after 10 animation frames',
  frames30: '… after 30 animation frames', chain: 'a 50 ms timer → 300 ms fetch → 100 ms timer',
  timer5s: 'a DOM change after a 5 s timer',
};

export async function run(b, o) {
  const rounds = o.rounds ?? 2;
  const who = [
    ['tabhive before', () => b.servers.tabhive(b.tabhive(o.before ?? '11cbe2b'))],
    ['tabhive after', () => b.servers.tabhive(b.tabhive(o.after ?? 'tree'))],
    ['chrome-devtools-mcp 1.11', () => b.servers.cdm()],
  ];
  const zoo = who.map(() => []), clicks = who.map(() => []);
  for (let r = 1; r <= rounds; r++) {
    for (const [i, [name, server]] of who.entries()) {
      const out = await b.go(`r${r} ${name} zoo`, 'settlezoo', ['-label', `r${r} ${name}`, '-noops', String(o.noops ?? 30), '--', ...server().argv]).catch((e) => (console.error(e.message), ''));
      zoo[i].push(out.trim() ? JSON.parse(out.trim().split('\n').pop()) : undefined);
    }
    for (const [i, [name, server]] of who.entries()) {
      clicks[i].push(await b.measure(`r${r} ${name} click-latency`, server(), { scenario: 'click-latency', iterations: 30 }));
    }
  }
  const times = (xs) => xs.join(' / ');
  const rows = Object.entries(cases).map(([c, text]) => [text, ...zoo.map((runs) => {
    const got = runs.map((z) => z?.zoo.find((x) => x.case === c));
    if (got.some((g) => !g)) return 'failed';
    const seen = got.every((g) => g.seen) ? 'seen' : got.some((g) => g.seen) ? 'seen in some rounds' : 'missed';
    const pending = got.every((g) => g.pending_reported) ? 'reported pending, ' : '';
    return `${pending}${c === 'timer5s' && !got.some((g) => g.seen) ? 'not waited for' : seen} (${times(got.map((g) => `${ms(g.ms)}`))} ms)`;
  })]);
  rows.push(['nothing: median of the no-op clicks (p95)', ...zoo.map((runs) => (runs.some((z) => !z) ? 'failed' : `${times(runs.map((z) => `${ms(z.noop_p50_ms)} (${ms(z.noop_p95_ms)})`))} ms`))]);
  rows.push(['click-latency page, p50 of 30 (p95)', ...clicks.map((runs) => `${times(runs.map((x) => (x.tools?.click ? `${ms(x.tools.click.p50)} (${ms(x.tools.click.p95)})` : 'failed')))} ms`)]);
  b.print(['the click causes', ...who.map(([n]) => n)], rows);
  b.note(`Each cell: seen or missed, and the click's time in each round (${Array.from({ length: rounds }, (_, i) => `r${i + 1}`).join(' / ')}).`);
}
