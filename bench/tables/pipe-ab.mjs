// Safe to share: interact at 8 agents, before (2b01322: every page on a
// WebSocket of its own to a DevTools port) and after (this tree: every
// page a flat session on the DevTools pipe), alternating.
import { ab } from '../lib/ab.mjs';

export const title = 'Pipe or port: interact at 8 agents, two builds side by side';
export const usage = '--before REV (2b01322), --after REV (tree), --reps N (8), --policy (add a run with --allowed-url-pattern), --policy-runs N (3)';

export const run = (b, o) => ab(b, o, { before: '2b01322', reps: 8 });
