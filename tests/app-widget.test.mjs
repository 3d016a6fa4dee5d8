// The storefront widget of an organization (its id in the shop's page), in
// Debian's Chromium (Playwright) and Firefox ESR (puppeteer-core over
// WebDriver BiDi): the scenarios both engines run
// (tests/support/widget.mjs), so the widget works without
// `location.ancestorOrigins`, whatever the shop's Referrer-Policy; then
// what needs Playwright: the browser's clock for expiry, axe-core in both
// themes, the iframe's height, themes, the per-shopper cap and the page's
// headers; axe-core inside the widget in Firefox; the organization's
// fallback when the carriers are slow. A stack of this file's own: the
// Worker's quote cache is off and shoppers are capped at 5 a minute (the
// deployment's settings), and the fallback test slows the simulator's
// rates. (The deployment's own widget, WIDGET_*: tests/edge-deployment.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import { screenshot } from './support/browser.mjs';
import {
  T, engines, scenarios, startWidgetStack, openShop, widgetFrame, shopEvent, shopLog, getOptions, options, assertPageAlone, assertFramedOnlyByItsShop,
} from './support/widget.mjs';

const PER_MINUTE = 5;
let stack;
const browsers = {};
before(async () => {
  stack = await startWidgetStack({ vars: { WIDGET_IP_PER_MINUTE: String(PER_MINUTE) } });
  browsers.chromium = await engines.chromium.launch();
  browsers.firefox = await engines.firefox.launch();
});
after(async () => {
  await browsers.chromium?.close();
  await browsers.firefox?.close();
  await stack?.stop();
});

for (const engine of ['chromium', 'firefox']) {
  for (const [name, run] of Object.entries(scenarios)) {
    test(`${engine}: ${name}`, () => run({ engine: engines[engine], browser: browsers[engine], stack }));
  }
}

/** The Chromium tests' context, as the scenarios take it. */
const ctx = {
  engine: engines.chromium,
  get browser() { return browsers.chromium; },
  get stack() { return stack; },
};
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
  await assertPageAlone(ctx.browser, ctx.stack, "the shop origins in the app's Storefront widget settings");
});

test('the widget page is framed only by the shop its link names, if its organization allows it; the dashboard by nobody', () => assertFramedOnlyByItsShop(ctx.stack));

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

test('firefox: axe finds no serious or critical issue inside the widget, light and dark', async () => {
  const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  for (const query of ['', 'theme=dark&accent=%23ffd60a']) {
    const s = await openShop(engines.firefox, browsers.firefox, stack.shop, query);
    try {
      const frame = await widgetFrame(s);
      await frame.locator('form.widget-form button[type="submit"]').click();
      await getOptions(frame, { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' });
      await frame.locator('label.widget-option:nth-of-type(1) input').click();
      await shopEvent(s, 'chosen');
      // axe-core runs inside the widget's own document.
      await frame.evaluate(axe);
      const result = await frame.evaluate(async () => {
        const r = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] });
        return {
          serious: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          contrastChecked: r.passes.some((p) => p.id === 'color-contrast'),
        };
      });
      assert.deepEqual(result.serious, [], query);
      assert.ok(result.contrastChecked, 'contrast was checked');
    } finally {
      await s.close();
    }
  }
});

test('the widget\'s fallback: when the carriers are slow, the shopper gets the organization\'s fallback option and the shop gets it marked as a fallback', async () => {
  // An organization whose widget offers a fallback after 10 s, shown by the same shop.
  const { id } = await stack.orgWidget({ name: 'Standard shipping', price_cents: 795, wait_seconds: 10 });
  // Rates take 30 s: past the widget's 10 s wait.
  await stack.sim.control('PUT', '/__sim/faults', { latency_ms: 30000, latency_endpoints: ['POST /v1/rates'] });
  const s = await openShop(engines.chromium, browsers.chromium, { ...stack.shop, query: `widget=${id}` }, 'weight-oz=33');
  try {
    const frame = await widgetFrame(s);
    await s.page.click('#sign-in');
    // Offered once the 10 s wait is over (budget: the wait and T).
    await frame.getByText('The carriers are taking too long to answer').waitFor({ timeout: 10000 + T });
    const quoted = await shopEvent(s, 'quoted');
    assert.deepEqual(quoted.detail, { fallback: true, options: [{ fallback: true, name: 'Standard shipping', rate_cents: 795 }], unavailable_carriers: [] });
    await frame.getByRole('radio', { name: /Standard shipping/ }).check({ timeout: T });
    const chosen = await shopEvent(s, 'chosen');
    assert.equal(chosen.detail.fallback, true);
    assert.equal(chosen.detail.rate_cents, 795);
    assert.equal(chosen.detail.name, 'Standard shipping');
    assert.equal(chosen.detail.rate_id, undefined, 'no rate to buy');
    assert.equal(chosen.detail.destination.zip, '11201');
    assert.equal(chosen.detail.parcel.weight_oz, 33);
    await s.page.getByText('Shipping: Standard shipping, $7.95.').waitFor();
    assert.ok(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice?.fallback), 'the element\'s choice is the fallback');
    assert.deepEqual(s.problems, []);
  } finally {
    await stack.sim.control('PUT', '/__sim/faults', {});
    await s.close();
  }
});

test('the widget never blocks checkout: a shop origin the widget does not list gets parcel-widget:error and the fallback within the wait; a frame that loads late takes over from it', async () => {
  const STANDARD = { fallback: true, name: 'Standard shipping', rate_cents: 795 };
  // Allows stack.shop only; stack.other is "the www. that was forgotten".
  const { id } = await stack.orgWidget({ name: 'Standard shipping', price_cents: 795, wait_seconds: 10 });
  const s = await openShop(engines.chromium, browsers.chromium, { ...stack.other, query: `widget=${id}` });
  try {
    const refused = await shopEvent(s, 'error');
    assert.equal(refused.detail.code, 'EDGE.ORIGIN.REFUSED');
    assert.ok(refused.detail.message.includes(stack.other.url) && refused.detail.message.includes('Storefront widget page'), refused.detail.message);
    assert.deepEqual(refused.detail.fallback, STANDARD);
    // The page's clock since its navigation: the refusal does not wait out the 10 s.
    assert.ok(refused.at < 10000, `refused after ${refused.at} ms`);
    assert.deepEqual((await shopEvent(s, 'quoted')).detail, { fallback: true, options: [STANDARD], unavailable_carriers: [] });
    assert.deepEqual((await shopEvent(s, 'chosen')).detail, STANDARD);
    // The shopper reads the fallback where the widget would be, and the shop's checkout has it.
    await s.page.locator('[data-parcel-widget]').getByText('Standard shipping: $7.95').waitFor({ timeout: T });
    assert.equal(await s.page.evaluate(() => getComputedStyle(document.querySelector('[data-parcel-widget] iframe')).display), 'none');
    await s.page.getByText('Shipping: Standard shipping, $7.95.').waitFor({ timeout: T });
    assert.deepEqual(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice), STANDARD);
    await s.page.click('#place-order');
    await s.page.getByText('Order placed: ships as Standard shipping.').waitFor({ timeout: T });
    // The browser blocking the refused frame (its 403, its CSP) is all that went wrong.
    assert.deepEqual(s.problems.filter((p) => !/ERR_BLOCKED_BY_RESPONSE|status of 403|"frame-ancestors 'none'"/.test(p)), []);
  } finally {
    await s.close();
  }

  // A listed shop whose frame is held back (a slow network): past the 2 s
  // wait the fallback is handed over; once the frame is let through, it is
  // ready and takes over, and the shopper gets the carriers' options.
  const slow = await stack.orgWidget({ name: 'Standard shipping', price_cents: 795, wait_seconds: 2 });
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const t = await openShop(engines.chromium, browsers.chromium, { ...stack.shop, query: `widget=${slow.id}` }, '', (page) => page.route(
    (url) => url.pathname === '/widget/',
    async (route) => { await released; await route.continue(); },
  ), 'domcontentloaded');
  try {
    const late = await shopEvent(t, 'error');
    assert.equal(late.detail.code, 'WIDGET.FRAME.TIMEOUT');
    assert.deepEqual(late.detail.fallback, STANDARD);
    assert.ok(late.at >= 2000, `gave up after ${late.at} ms, before the 2 s wait`);
    assert.deepEqual((await shopEvent(t, 'chosen')).detail, STANDARD);
    release();
    const frame = await widgetFrame(t);
    await shopEvent(t, 'ready');
    assert.deepEqual((await shopLog(t)).map((e) => (e.detail?.reason ? `${e.type}:${e.detail.reason}` : e.type)), ['error', 'quoted', 'chosen', 'cleared:changed', 'ready']);
    assert.equal(await t.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice), null);
    assert.equal(await t.page.locator('[data-parcel-widget]').getByText('Standard shipping: $7.95').count(), 0);
    assert.equal(await t.page.evaluate(() => getComputedStyle(document.querySelector('[data-parcel-widget] iframe')).display), 'block');
    await t.page.click('#sign-in');
    const quoted = await shopEvent(t, 'quoted', 2);
    assert.ok(quoted.detail.options.length > 1 && quoted.detail.options.every((o) => o.rate_id), 'the carriers\' options');
    assert.ok(await frame.locator('label.widget-option').count() > 1);
    assert.deepEqual(t.problems, []);
  } finally {
    release();
    await t.close();
  }
});
