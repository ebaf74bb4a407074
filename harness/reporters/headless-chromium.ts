import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`): what the report's browser test and benchmark drive. */
export const CHROMIUM = '/usr/bin/chromium';

/** Chromium headless and offline: no sandbox (root in CI), no GPU, no background traffic. */
export function launchHeadlessChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
