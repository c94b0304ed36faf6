// Two builds of tabhive side by side: interact at 8 agents, alternating
// A B, B A, ..., with iterations/s and the CPU tabhive and its Chromium
// spend per iteration, which a loaded machine disturbs less.
import { ab } from '../lib/ab.mjs';

export const title = 'Interact at 8 agents, two builds of tabhive side by side (iterations/s and CPU)';
export const usage = '--before REV (main), --after REV (tree), --reps N (4), --agents N (8), --iterations N (5)';

export const run = (b, o) => ab(b, o, { before: 'main', reps: 4 });
