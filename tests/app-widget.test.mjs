// The storefront widget in Debian's Chromium (Playwright): the scenarios
// both engines run (tests/support/widget.mjs; Firefox:
// app-widget-firefox.test.mjs), then what needs Playwright: the browser's
// clock for expiry, axe-core in both themes, the iframe's height, themes,
// the per-shopper cap, and the page's headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import { screenshot } from './support/browser.mjs';
import {
  T, engines, widgetSuite, openShop, widgetFrame, shopEvent, getOptions, options,
} from './support/widget.mjs';

const PER_MINUTE = 5;
const ctx = widgetSuite(engines.chromium, { vars: { WIDGET_IP_PER_MINUTE: String(PER_MINUTE) } });
const open = (query) => openShop(ctx.engine, ctx.browser, ctx.stack.shop, query);

const BROOKLYN = { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' };

test('axe finds no serious or critical issue in the widget, light and dark, with a shop accent', async () => {
  for (const query of ['accent=%230f766e', 'theme=dark&accent=%23ffd60a&radius=16']) {
    const s = await open(query);
    try {
      const frame = await widgetFrame(s);
      // A missing field, then the options and a choice: everything a shopper can see.
      await frame.locator('form.widget-form button[type="submit"]').click();
      await getOptions(frame, BROOKLYN);
      await frame.locator('label.widget-option:nth-of-type(1) input').click();
      await shopEvent(s, 'chosen');
      const axe = await new AxeBuilder({ page: s.page })
        .include('iframe')
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
        .analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], query);
      assert.ok(axe.passes.some((p) => p.id === 'color-contrast'), 'contrast was checked');
      await screenshot(s.page, `widget-${query.includes('dark') ? 'dark' : 'light'}`);
    } finally {
      await s.close();
    }
  }
});

test('themes: accent, radius, font and dark mode from the element; a pale accent is darkened to meet contrast', async () => {
  const s = await open('accent=%23ffd60a&radius=20&font=Georgia%2C%20serif');
  try {
    const frame = await widgetFrame(s);
    const ready = (await shopEvent(s, 'ready')).detail;
    assert.equal(ready.theme.scheme, 'light');
    assert.equal(ready.theme.light.adjusted, true, 'yellow on white is under 4.5:1');
    assert.equal(ready.theme.dark.adjusted, false);
    const look = await frame.$eval('form.widget-form button[type="submit"]', (b) => {
      const c = getComputedStyle(b);
      return { bg: c.backgroundColor, color: c.color, radius: c.borderTopLeftRadius, font: c.fontFamily };
    });
    const hex = (rgb) => `#${rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
    assert.equal(hex(look.bg), ready.theme.light.accent);
    assert.equal(hex(look.color), ready.theme.light.on_accent);
    assert.equal(look.radius, '20px');
    assert.match(look.font, /^Georgia, serif/);
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
  // "auto" follows the shopper's system setting, also when it changes.
  const auto = await openShop(ctx.engine, ctx.browser, ctx.stack.shop, 'theme=auto', (page) => page.emulateMedia({ colorScheme: 'dark' }));
  try {
    const frame = await widgetFrame(auto);
    assert.equal(await frame.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await auto.page.emulateMedia({ colorScheme: 'light' });
    await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light', null, { timeout: T });
  } finally {
    await auto.close();
  }
  // A setting the widget cannot use is reported to the shop, and the default used.
  const bad = await open('accent=teal&theme=dark');
  try {
    const frame = await widgetFrame(bad);
    const error = (await shopEvent(bad, 'error')).detail;
    assert.equal(error.code, 'WIDGET.THEME.INVALID');
    assert.match(error.message, /"teal" is not a colour/);
    assert.equal(await frame.evaluate(() => document.documentElement.dataset.theme), 'dark');
  } finally {
    await bad.close();
  }
});

test('the one-line embed keeps the iframe as tall as its content', async () => {
  const s = await open();
  try {
    const frame = await widgetFrame(s);
    const heights = async () => ({
      outer: await s.page.evaluate(() => document.querySelector('[data-parcel-widget] iframe').clientHeight),
      inner: await frame.evaluate(() => document.body.scrollHeight),
    });
    await s.page.waitForFunction(() => document.querySelector('[data-parcel-widget] iframe').clientHeight !== 420);
    const before = await heights();
    assert.equal(before.outer, before.inner);
    await getOptions(frame, BROOKLYN);
    await s.page.waitForFunction((h) => document.querySelector('[data-parcel-widget] iframe').clientHeight > h, before.outer);
    const after = await heights();
    assert.equal(after.outer, after.inner, 'no scrollbar inside the iframe');
    await screenshot(s.page, 'widget-embed');
  } finally {
    await s.close();
  }
});

test('past the per-shopper cap the shopper reads a sentence and the widget asks again by itself', async () => {
  const s = await openShop(ctx.engine, ctx.browser, ctx.stack.shop, '', (page) => page.clock.install());
  try {
    const frame = await widgetFrame(s);
    await getOptions(frame, BROOKLYN);
    const submit = frame.locator('form.widget-form button[type="submit"]');
    for (let i = 1; i < PER_MINUTE; i++) {
      await submit.click();
      await frame.waitForSelector('label.widget-option', { timeout: T });
    }
    await submit.click();
    const trouble = frame.locator('.widget-trouble');
    await trouble.waitFor({ timeout: T });
    const text = await trouble.innerText();
    assert.match(text, /^Lots of shoppers are checking shipping prices right now\.\s+Trying again in \d+ s\.$/);
    assert.doesNotMatch(text, /[A-Z]+\.[A-Z_]+|429/, 'no code, no status');
    const error = (await shopEvent(s, 'error')).detail;
    assert.equal(error.code, 'AUTH.RATE_LIMIT.EXCEEDED', 'the shop gets the code');
    // When the countdown ends, the widget asks again without a click.
    const seconds = Number(/in (\d+) s/.exec(text)[1]);
    const retried = s.page.waitForRequest((r) => r.url().endsWith('/api/v1/rates'), { timeout: T });
    await s.page.clock.fastForward(seconds * 1000);
    await retried;
  } finally {
    await s.close();
  }
});

test('a broken parcel tells the shop owner what to fix; setParcel mends it; opened on its own the page says where it belongs', async () => {
  const s = await open('preset=crate&weight-oz=12');
  try {
    const frame = await widgetFrame(s);
    const problem = await frame.$eval('.widget-problem', (p) => p.textContent);
    assert.match(problem, /^The parcel preset "crate" is not one of envelope, small-box, medium-box, large-box, tube\. Shop owner:/);
    const error = (await shopEvent(s, 'error')).detail;
    assert.deepEqual([error.code, error.field], ['WIDGET.PARCEL.INVALID', 'preset']);
    assert.equal(await frame.locator('form.widget-form').count(), 0);
    // A bad parcel through the API is refused to the shop; the widget keeps what it had.
    await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').setParcel({ weight_oz: 12, length: 10, width: 8 }));
    const second = (await shopEvent(s, 'error', 2)).detail;
    assert.deepEqual([second.code, second.field], ['WIDGET.PARCEL.INVALID', 'height']);
    await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').setParcel({ preset: 'tube', weight_oz: 12 }));
    await frame.waitForSelector('form.widget-form', { timeout: T });
    assert.ok((await getOptions(frame, BROOKLYN)).length >= 4);
  } finally {
    await s.close();
  }
  const alone = await ctx.browser.newPage();
  await alone.goto(`${ctx.stack.edge.url}/widget/?shop=${encodeURIComponent(ctx.stack.shop.url)}&weight_oz=20&length=10&width=8&height=4`);
  await alone.locator('.widget-problem').waitFor({ timeout: T });
  assert.match(await alone.locator('.widget-problem').innerText(), /works inside an iframe on your shop's pages/);
  await alone.goto(`${ctx.stack.edge.url}/widget/?shop=${encodeURIComponent(ctx.stack.other.url)}`);
  await alone.locator('.widget-problem').waitFor({ timeout: T });
  assert.match(await alone.locator('.widget-problem').innerText(), new RegExp(`^${ctx.stack.other.url} may not show this widget.*WIDGET_ORIGINS`));
  await alone.close();
});

test('the widget page is framed only by the shop its link names, if configured; the dashboard by nobody', async () => {
  const page = (shop) => fetch(`${ctx.stack.edge.url}/widget/?${shop === undefined ? '' : `shop=${encodeURIComponent(shop)}&`}weight_oz=20&length=10&width=8&height=4`);
  const ok = await page(ctx.stack.shop.url);
  assert.equal(ok.status, 200);
  const csp = ok.headers.get('content-security-policy');
  assert.match(csp, new RegExp(`frame-ancestors ${ctx.stack.shop.url}$`));
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[^']+'/, 'nothing inline but its own start script');
  assert.equal(ok.headers.get('x-frame-options'), null);
  const html = await ok.text();
  assert.match(html, /<meta name="parcel-ship-from" content="\{&quot;name&quot;:&quot;Ada Shop Inc&quot;/);
  assert.match(html, new RegExp(`<meta name="parcel-shop" content="${ctx.stack.shop.url}"`));
  for (const refused of [ctx.stack.other.url, undefined, `${ctx.stack.shop.url} https://evil.example`]) {
    const res = await page(refused);
    assert.equal(res.status, 403, String(refused));
    assert.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'$/);
    assert.match(await res.text(), /<meta name="parcel-shop" content=""/);
  }
  const dashboard = await fetch(`${ctx.stack.edge.url}/`);
  assert.match(dashboard.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.equal(dashboard.headers.get('x-frame-options'), 'DENY');
  // The API refuses the unconfigured origin in the v1 envelope, however it asks.
  for (const headers of [{ origin: ctx.stack.other.url }, { origin: ctx.stack.edge.url, 'parcel-widget-origin': ctx.stack.other.url }]) {
    const res = await fetch(`${ctx.stack.edge.url}/api/v1/rates`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, 'EDGE.ORIGIN.REFUSED');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  }
});

test('the shop\'s options and choice read in its own page: a screenshot of the demo shop with a choice', async () => {
  const s = await open();
  try {
    const frame = await widgetFrame(s);
    await getOptions(frame, BROOKLYN);
    await frame.locator('label.widget-option:nth-of-type(1) input').click();
    await shopEvent(s, 'chosen');
    await s.page.click('#place-order');
    const chosen = (await options(frame)).find((o) => o.checked);
    assert.match(await s.page.locator('#order').innerText(), new RegExp(`^Order placed: ships with ${chosen.name} \\(rate rate_`));
    await screenshot(s.page, 'widget-demo-shop');
  } finally {
    await s.close();
  }
});
