// Debian's Chromium driven by playwright-core: no browser download, ever.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './stack.mjs';
import { newAddress } from './orgs.mjs';

export const ARTIFACTS = path.join(ROOT, 'tests/artifacts');

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Each context (and page of its own) a client address of its own, unless
  // it names one: the Workers count failed sign-ins per address, and on the
  // shared stack that count is every test file's.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = (options = {}) => newContext({ ...options, extraHTTPHeaders: { 'cf-connecting-ip': newAddress(), ...options.extraHTTPHeaders } });
  return browser;
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Collects console errors and failed requests, so a test can assert there were none. */
export function watchProblems(page) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}
