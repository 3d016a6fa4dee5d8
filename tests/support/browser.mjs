// Debian's Chromium driven by playwright-core: no browser download, ever.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
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

/** Asserts axe finds nothing serious or critical (WCAG 2.1 A and AA, best practice) on the page as it is. */
export async function axe(page, name) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], `axe on ${name}`);
}
