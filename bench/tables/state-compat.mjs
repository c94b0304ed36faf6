// Storage state files between Playwright, @playwright/mcp 0.0.83 and
// tabhive, in every direction (bench/state/playwright_compat.mjs).
import { compat } from '../state/playwright_compat.mjs';
import { chromium, offlineSwitches } from '../lib/servers.mjs';

export const title = 'Storage state files between Playwright, @playwright/mcp and tabhive (state-compat)';
export const usage = '--fixture-out FILE (copy Playwright\'s file there: browser/storagestate/testdata/playwright.json)';

export async function run(b, o) {
  const checks = await compat({ tabhive: b.tabhive(), chromiumPath: chromium(), chromiumArgs: offlineSwitches(), fixtureOut: o.fixtureOut });
  b.save({ label: 'state-compat', date: new Date().toISOString(), checks });
  b.print(['check', 'result'], checks.map((c) => [c.name, c.ok ? 'ok' : `FAILED: ${c.detail.split('\n')[0]}`]));
  if (checks.some((c) => !c.ok)) process.exitCode = 1;
}
