// The storefront widget page in real Chromium: two storefronts on their own
// origins frame it from the real Worker in workerd (in front of the real
// simulator). The configured shop's shoppers get rates from the shop's
// ship-from, under the widget's per-shopper cap; a shop not configured
// cannot frame it at all; a broken embed tells the shop owner what to fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import AxeBuilder from '@axe-core/playwright';
import { newKeys, newUsers, startEdge, startSim } from './support/stack.mjs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { T } from './support/pages.mjs';

const SHIP_FROM = { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
const PARCEL = 'weight_oz=20&length=10&width=8&height=4';
const PER_MINUTE = 2;

let sim, edge, browser, shop, other;

/**
 * A storefront on its own 127.0.0.1 port. Its product page frames `src()`;
 * at /embed it uses the one-line embed instead.
 */
async function storefront(src) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    const widget = req.url === '/embed'
      ? `<div data-parcel-widget data-weight-oz="20" data-length="10" data-width="8" data-height="4"></div>
         <script src="${edge.url}/widget/embed.js" async></script>`
      : `<iframe title="Shipping estimate" src="${src(req.url)}" width="480" height="640"></iframe>`;
    res.end(`<!doctype html><html lang="en"><title>Shop</title><h1>Blue mug</h1>${widget}`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

before(async () => {
  // The query of the shop page's URL goes to the iframe: each test picks its embed.
  const frame = (url) => `${edge.url}/widget/${url.slice(1)}`;
  shop = await storefront(frame);
  other = await storefront(frame);
  const keys = newKeys();
  sim = await startSim({ keys });
  edge = await startEdge({
    upstream: sim.url,
    keys,
    users: newUsers(),
    vars: {
      WIDGET_ORIGINS: shop.url,
      WIDGET_SHIP_FROM: JSON.stringify(SHIP_FROM),
      WIDGET_IP_PER_MINUTE: String(PER_MINUTE),
    },
  });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await edge?.stop();
  await sim?.stop();
  shop?.server.close();
  other?.server.close();
});

// Each test's shopper has an address of its own, so one test's use of the
// per-shopper cap does not spill into the next.
let shoppers = 0;
const newShopper = () => browser.newContext({ extraHTTPHeaders: { 'cf-connecting-ip': `203.0.113.${++shoppers}` } });

async function openShop(store, query) {
  const context = await newShopper();
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${store.url}/?${query}`);
  return { context, page, problems, widget: page.frameLocator('iframe[title="Shipping estimate"]') };
}

test('a shopper on the configured shop gets every carrier\'s rate from the shop\'s ship-from, up to the per-shopper cap', async () => {
  const { context, page, problems, widget } = await openShop(shop, PARCEL);
  await widget.getByRole('heading', { name: 'Shipping estimate' }).waitFor({ timeout: T });
  assert.equal(await widget.locator('.widget-from').innerText(), 'Ships from San Francisco, CA');
  await widget.getByRole('button', { name: 'Get rates' }).click();
  assert.equal(await widget.getByRole('alert').innerText(), 'Street address is required to see rates.');
  await widget.getByLabel('Street address').fill('12 Elm St');
  await widget.getByLabel('City').fill('Brooklyn');
  await widget.getByLabel('State').fill('NY');
  await widget.getByLabel('ZIP code').fill('11201');
  await widget.getByRole('button', { name: 'Get rates' }).click();
  const rates = widget.getByRole('list', { name: 'Shipping rates' }).getByRole('listitem');
  await rates.first().waitFor({ timeout: T });
  const rows = await rates.allInnerTexts();
  assert.ok(rows.length >= 4, `one row per carrier service at least: ${rows.join(' | ')}`);
  for (const row of rows) assert.match(row, /\$\d+\.\d\d[\s\S]*Arrives /, row);
  const prices = rows.map((r) => Number(/\$([\d,]+\.\d\d)/.exec(r)[1].replace(',', '')));
  assert.deepEqual(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
  await screenshot(page, 'widget-rates');
  // axe-core reaches into the frame: no serious or critical violation.
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  assert.deepEqual(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), []);

  // The widget principal's per-shopper cap (WIDGET_IP_PER_MINUTE=2) applies to the framed page.
  await widget.getByLabel('ZIP code').fill('11215');
  await widget.getByRole('button', { name: 'Get rates' }).click();
  await widget.getByRole('list', { name: 'Shipping rates' }).waitFor({ timeout: T });
  await widget.getByRole('button', { name: 'Get rates' }).click();
  const refusal = widget.locator('.error-view');
  await refusal.waitFor({ timeout: T });
  assert.match(await refusal.innerText(), /AUTH\.RATE_LIMIT\.EXCEEDED \(HTTP 429\)/);
  assert.match(await widget.getByTestId('retry-countdown').innerText(), /Retrying automatically in \d+ s/);
  assert.deepEqual(problems.filter((p) => !/429/.test(p)), [], 'no console errors or failed requests');
  await context.close();
});

test('the one-line embed frames the widget and keeps the iframe as tall as its content', async () => {
  const context = await newShopper();
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${shop.url}/embed`);
  const widget = page.frameLocator('iframe[title="Shipping estimate"]');
  await widget.getByRole('heading', { name: 'Shipping estimate' }).waitFor({ timeout: T });
  const fits = () => page.evaluate(() => {
    const frame = document.querySelector('[data-parcel-widget] iframe');
    return { outer: frame.clientHeight, src: frame.src };
  });
  const inner = () => widget.locator('body').evaluate((b) => b.scrollHeight);
  // The iframe follows the page's height (a ResizeObserver message), not the 420 px it starts at.
  await page.waitForFunction(() => document.querySelector('[data-parcel-widget] iframe').clientHeight !== 420);
  const before = await fits();
  assert.match(before.src, /\/widget\/\?weight_oz=20&length=10&width=8&height=4$/);
  assert.equal(before.outer, await inner());
  await widget.getByLabel('Street address').fill('12 Elm St');
  await widget.getByLabel('City').fill('Brooklyn');
  await widget.getByLabel('State').fill('NY');
  await widget.getByLabel('ZIP code').fill('10001');
  await widget.getByRole('button', { name: 'Get rates' }).click();
  await widget.getByRole('list', { name: 'Shipping rates' }).getByRole('listitem').first().waitFor({ timeout: T });
  await page.waitForFunction((h) => document.querySelector('[data-parcel-widget] iframe').clientHeight > h, before.outer);
  const after = await fits();
  assert.equal(after.outer, await inner(), 'no scrollbar inside the iframe: it is exactly as tall as the page');
  await screenshot(page, 'widget-embed');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the widget page names the shop as its only frame ancestor; the dashboard stays unframeable', async () => {
  const page = await fetch(`${edge.url}/widget/?${PARCEL}`);
  assert.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy');
  assert.match(csp, new RegExp(`frame-ancestors ${shop.url}$`));
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[^']+'/, 'nothing inline but its own start script');
  assert.equal(page.headers.get('x-frame-options'), null);
  assert.match(await page.text(), /<meta name="parcel-ship-from" content="\{&quot;name&quot;:&quot;Ada Shop Inc&quot;/);
  const dashboard = await fetch(`${edge.url}/`);
  assert.match(dashboard.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.equal(dashboard.headers.get('x-frame-options'), 'DENY');
});

test('a shop that is not configured cannot frame the widget', async () => {
  const { context, page, problems, widget } = await openShop(other, PARCEL);
  await page.getByRole('heading', { name: 'Blue mug' }).waitFor({ timeout: T });
  // Chromium shows its own error page in the frame: nothing of ours renders.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await frame.waitForLoadState();
  assert.equal(frame.url(), 'chrome-error://chromewebdata/');
  assert.ok(problems.some((p) => p.includes(`frame-ancestors ${shop.url}`)), problems.join('\n'));
  assert.equal(await widget.getByRole('heading', { name: 'Shipping estimate' }).count(), 0);
  await context.close();
});

test('a broken embed tells the shop owner what to fix; opened on its own it says where it belongs', async () => {
  const { context, widget } = await openShop(shop, 'weight_oz=20&length=10&width=8');
  const problem = widget.locator('.widget-problem');
  await problem.waitFor({ timeout: T });
  assert.match(await problem.innerText(), /no valid height\. Shop owner: add it, for example \/widget\/\?weight_oz=20/);
  assert.equal(await widget.getByRole('button', { name: 'Get rates' }).count(), 0);
  await context.close();

  const alone = await browser.newPage();
  await alone.goto(`${edge.url}/widget/?${PARCEL}`);
  await alone.locator('.widget-problem').waitFor({ timeout: T });
  assert.match(await alone.locator('.widget-problem').innerText(), /works inside an iframe on your shop's pages/);
  await alone.close();
});
