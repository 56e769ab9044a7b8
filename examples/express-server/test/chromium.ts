import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core: nothing is downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** Says, once per file, that its browser tests are skipped and how to have them run. */
export function warnWithoutChromium(file: string): void {
  if (!haveChromium) console.warn(`${file}: SKIPPED, ${CHROMIUM} is absent (apt-get install -y chromium).`);
}

/** A headless Chromium with the flags this machine needs, plus any the test adds. */
export const launchChromium = (extraArgs: readonly string[] = []): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      ...extraArgs,
    ],
  });

export interface PageResult {
  state: string;
  text: string;
  // The page's answer as it printed it: any JSON shape.
  json: any;
}

/**
 * Runs `act` on an example page and returns what its `#result` shows once it settles (the pages
 * set `data-state` when a call ends), with the JSON when the text is some.
 */
export async function settle(page: Page, act: () => Promise<unknown>): Promise<PageResult> {
  await page.evaluate(() => {
    document.getElementById('result')!.dataset.state = 'working';
  });
  await act();
  const result = page.locator('#result:not([data-state="working"])');
  await result.waitFor({ timeout: 20_000 });
  const text = (await result.textContent()) ?? '';
  let json: PageResult['json'];
  try {
    json = JSON.parse(text);
  } catch {}
  return { state: (await result.getAttribute('data-state')) ?? '', text, json };
}

/** Clicks a button and returns the page's result once it settles. */
export const press = (page: Page, button: string): Promise<PageResult> =>
  settle(page, () => page.click(button));
