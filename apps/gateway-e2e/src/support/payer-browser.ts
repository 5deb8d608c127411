import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { ROOT } from './processes';

/** Debian's Chromium, installed by tools/scripts/ensure-infra.sh; Playwright downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');

export interface PayerBrowser {
  /** A fresh page (tab) in the payer's browser. */
  newPage(): Promise<Page>;
  /** Saves the page as test-artifacts/screenshots/<name>.png. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A payer's browser: headless Chromium with an empty profile of its own, nothing running in
 * the background, and self-signed certificates accepted (the test merchant's return page is
 * https with one, because returnUrl must be https).
 */
export async function launchPayerBrowser(): Promise<PayerBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run tools/scripts/ensure-infra.sh (it installs Debian's chromium), or set CHROMIUM_PATH.`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'payer-browser-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreHTTPSErrors: true,
    viewport: { width: 900, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    newPage: () => context.newPage(),
    async screenshot(page, name) {
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
