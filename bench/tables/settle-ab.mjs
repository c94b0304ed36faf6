// Causal settle: interact at 8 agents, before (11cbe2b: a fixed 100 ms
// DOM-quiet window) and after (this tree), alternating.
import { ab } from '../lib/ab.mjs';

export const title = 'Interact at 8 agents, two builds side by side (causal settle)';
export const usage = '--before REV (11cbe2b), --after REV (tree), --reps N (4)';

export const run = (b, o) => ab(b, o, { before: '11cbe2b', reps: 4 });
