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

/** The widths and colour schemes every page is checked at. */
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
export const SCHEMES = ['light', 'dark'];

/**
 * The page as it is, at phone and desktop width, light and dark: axe finds
 * nothing serious or critical, and (unless `sideways` is false: an open
 * dialog's page behind it) nothing scrolls sideways. The page is resized
 * and its colour scheme switched in place (the layout and palette are CSS
 * media queries), then left as it was.
 */
export async function axeEveryWay(page, name, { sideways = true } = {}) {
  const was = page.viewportSize();
  for (const [vp, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme });
      await axe(page, `${name} (${vp}, ${colorScheme})`);
      if (sideways) {
        const [overflow, widest] = await page.evaluate(() => {
          // The innermost element reaching furthest right outside any
          // scrolling box of its own, to say what sticks out.
          const clipped = (el) => {
            for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
              if (getComputedStyle(p).overflowX !== 'visible') return true;
            }
            return false;
          };
          let widest = null;
          for (const el of document.body.querySelectorAll('*')) {
            const right = el.getBoundingClientRect().right;
            if (right > window.innerWidth && (!widest || right >= widest.right) && !clipped(el)) widest = { right, el };
          }
          const what = widest && `${widest.el.tagName.toLowerCase()}.${[...widest.el.classList].join('.')} "${widest.el.textContent.trim().slice(0, 40)}"`;
          return [document.documentElement.scrollWidth - window.innerWidth, what];
        });
        assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${vp} width (${widest})`);
      }
    }
  }
  await page.setViewportSize(was);
  await page.emulateMedia({ colorScheme: null });
}

/** Asserts axe finds nothing serious or critical (WCAG 2.1 A and AA, best practice) on the page as it is. */
export async function axe(page, name) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], `axe on ${name}`);
}
