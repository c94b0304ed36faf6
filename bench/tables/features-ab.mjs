// What tabhive's browser-side features cost Chromium, variant by variant:
// bench/cdpceiling with each -features variant in turn (none: the plain
// loop with focus emulation), the order reversed every other round so that
// a load that rises or falls weighs on all alike. Each run reports
// iterations/s and the CPU its Chromium spent per iteration (/proc), the
// figure a loaded machine disturbs least; both are given as ratios to the
// first variant. The CPU is also split by Chromium's kind of process (its
// browser process, which relays every DevTools message, and the renderers,
// which run the pages and the features' scripts), medians per iteration.
import path from 'node:path';
import { median } from '../lib/bench.mjs';
import { ROOT } from '../lib/servers.mjs';

export const title = "The features' cost to Chromium, variant by variant (CDP loop)";
export const usage = '--variants "none;tabhive" (none;tabhive: -features lists, each maybe followed by other cdpceiling flags, ";" between variants), --rounds N (4), --agents N (8), --iterations N (5)';

export async function run(b, o) {
  const variants = String(o.variants ?? 'none;tabhive').split(';').map((v) => v.trim());
  const rounds = o.rounds ?? 4, agents = String(o.agents ?? 8), n = String(o.iterations ?? 5);
  const res = variants.map(() => []);
  for (let r = 1; r <= rounds; r++) {
    const order = variants.map((_, i) => i);
    if (r % 2 === 0) order.reverse();
    for (const i of order) {
      const v = variants[i];
      // A variant is a -features list, then any other cdpceiling flags
      // ("tabhive -idle 100ms").
      const [feat, ...extra] = v.split(/\s+/);
      const args = ['-agents', agents, '-iterations', n, '-focus=true', '-label', `r${r} ${v}`,
        ...(feat === 'none' ? [] : ['-features', feat, '-js', path.join(ROOT, 'page', 'js')]), ...extra];
      const out = await b.go(`r${r} ${v}`, 'cdpceiling', args).catch((e) => (console.error(e.message), ''));
      const line = out.trim().split('\n').pop();
      res[i].push(line ? JSON.parse(line) : {});
    }
  }
  const its = (xs) => xs.map((x) => x.iterations_per_s);
  const cpu = (xs) => xs.map((x) => x.chromium_cpu_ms_per_iteration);
  const byProc = (xs, kind) => median(xs.map((x) => x.chromium_cpu_ms_per_iteration_by_process?.[kind]).filter(Boolean));
  const base = { its: median(its(res[0]).filter(Boolean)), cpu: median(cpu(res[0]).filter(Boolean)) };
  const rows = variants.map((v, i) => {
    const mi = median(its(res[i]).filter(Boolean)), mc = median(cpu(res[i]).filter(Boolean));
    return [v, its(res[i]).map((x) => x ?? '—').join(' / '), mi?.toFixed(2), (mi / base.its).toFixed(2),
      cpu(res[i]).map((x) => (x === undefined ? '—' : Math.round(x))).join(' / '), Math.round(mc), (mc / base.cpu).toFixed(2),
      ...['browser', 'renderer'].map((k) => Math.round(byProc(res[i], k)) || '—')];
  });
  b.print(['-features', `iterations/s, r1 … r${rounds}`, 'median', `÷ ${variants[0]}`, 'Chromium CPU ms / iteration, each round', 'median', `÷ ${variants[0]}`, 'of which browser process', 'renderers'], rows);
  b.note(`${agents} agents × ${n} iterations a run, the order reversed every other round.`);
}
