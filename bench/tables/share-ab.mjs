// Safe to share, round two: interact at 8 agents, before (f7db7d5, main
// without this work) and after (this tree: connection slots counted apart
// before authentication, batches checked, the server-wide diff ledger,
// screenshots streamed, host rules and file: interception for the URL
// policy, speculative loading off), alternating.
import { ab } from '../lib/ab.mjs';

export const title = 'Safe to share, round two: interact at 8 agents, two builds side by side';
export const usage = '--before REV (f7db7d5), --after REV (tree), --reps N (4), --policy (add a run with --allowed-url-pattern), --policy-runs N (3)';

export const run = (b, o) => ab(b, o, { before: 'f7db7d5', reps: 4 });
