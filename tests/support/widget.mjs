// The storefront widget's browser tests, written once for both engines:
// Debian's Chromium through Playwright and Debian's Firefox ESR through
// puppeteer-core over WebDriver BiDi. Each engine adapter offers the few
// calls the scenarios need; the scenarios drive the real demo shop
// (scripts/demo-shop.mjs) on its own loopback origin, framing the real
// widget from the real Worker in workerd, in front of the real simulator.
import assert from 'node:assert/strict';
import puppeteer from 'puppeteer-core';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, startStack } from './stack.mjs';
import { Person, newAddress, newOrgLink, turnLiveOn } from './orgs.mjs';
import { launch as launchChromium, watchProblems } from './browser.mjs';
import { startDemoShop } from '../../scripts/demo-shop.mjs';

export const T = 15000;
export const SHIP_FROM = { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
export const CARRIERS = ['Atlas Freight', 'Comet Express', 'Harbor Parcel', 'Pacific Post'];

export const engines = {
  chromium: {
    name: 'chromium',
    launch: launchChromium,
    async shopper(browser, ip) {
      const context = await browser.newContext({ extraHTTPHeaders: { 'cf-connecting-ip': ip } });
      return { page: await context.newPage(), close: () => context.close() };
    },
    waitForFunction: (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: T }),
    select: (page, selector, value) => page.selectOption(selector, value),
    // Playwright's clock, in every frame of the page.
    installClock: (page) => page.clock.install(),
    advanceClock: (page, ms) => page.clock.fastForward(ms),
  },
  firefox: {
    name: 'firefox',
    launch: () => puppeteer.launch({
      browser: 'firefox',
      executablePath: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr',
      headless: true,
    }),
    async shopper(browser, ip) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setExtraHTTPHeaders({ 'cf-connecting-ip': ip });
      return { page, close: () => context.close() };
    },
    waitForFunction: (page, fn, arg) => page.waitForFunction(fn, { timeout: T }, arg),
    select: (page, selector, value) => page.select(selector, value),
    // No clock control in puppeteer: every frame's Date.now gets an offset
    // the test moves (timers stay real, so the widget's ticking clock sees it).
    installClock: (page) => page.evaluateOnNewDocument(() => {
      const now = Date.now;
      window.parcelClockOffset = 0;
      Date.now = () => now() + window.parcelClockOffset;
    }),
    async advanceClock(page, ms) {
      for (const frame of page.frames()) await frame.evaluate((by) => { window.parcelClockOffset += by; }, ms).catch(() => {});
    },
  },
};

/**
 * An organization made from a setup link, with a live key of its own
 * simulator account, whose widget (set up as its admin would in the app)
 * allows `origin`, ships from SHIP_FROM and offers `fallback` (or none):
 * its widget id and key.
 */
async function orgWidget(url, sessionSecret, sim, origin, fallback = null) {
  const link = await newOrgLink(sessionSecret, url);
  const admin = new Person(url);
  const made = await admin.createOrg(link.token, {
    orgName: 'Widget Shop', name: 'Wendy Admin', email: `wendy.${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery staple',
  });
  assert.equal(made.status, 200, made.text);
  const account = `acct_widget_${randomBytes(4).toString('hex')}`;
  const { key } = await sim.control('POST', '/__sim/keys', { env: 'live', scopes: ALL_SCOPES, account });
  // Funded, so the shop can buy what the widget quoted.
  await sim.control('PUT', `/__sim/accounts/${account}/wallet`, { balance_cents: 100_000_000, card: 'ok', auto_reload: null });
  const keyed = await admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
  assert.equal(keyed.status, 200, keyed.text);
  await turnLiveOn(admin);
  const set = await admin.call('PUT', '/api/org/widget', { origins: [origin], ship_from: SHIP_FROM, share: 0.25, fallback });
  assert.equal(set.status, 200, set.text);
  return { id: made.json.org.id, key };
}

/**
 * The simulator, the Workers and two demo shops: `shop`, allowed by an
 * organization's widget, and `other`, not. Both shops' pages name the
 * widget's id (`query`); `keys.live` is its organization's key;
 * `orgWidget(fallback)` makes another organization whose widget the same
 * shop may show. The Worker's quote cache is off: the tests move the
 * service's and the browser's clocks, never the Worker's, so its cache
 * would hand back quotes the service has expired.
 */
export async function startWidgetStack({ vars = {} } = {}) {
  const shop = await startDemoShop();
  const other = await startDemoShop();
  const stack = await startStack({ edgeVars: { WIDGET_QUOTE_CACHE_SECONDS: '0', ...vars } });
  shop.edge = stack.edge.url;
  other.edge = stack.edge.url;
  const widget = await orgWidget(stack.edge.url, stack.sessionSecret, stack.sim, shop.url);
  shop.query = `widget=${widget.id}`;
  other.query = shop.query;
  return {
    keys: { live: widget.key },
    sim: stack.sim,
    edge: stack.edge,
    shop,
    other,
    orgWidget: (fallback) => orgWidget(stack.edge.url, stack.sessionSecret, stack.sim, shop.url, fallback),
    async stop() {
      await stack.stop();
      await shop.close();
      await other.close();
    },
  };
}


/**
 * A shopper (their own client IP, so the per-shopper cap is theirs) on a
 * demo shop page; `query` sets the page's widget attributes; `prepare` runs
 * on the page before it loads; `waitUntil` `domcontentloaded` does not wait
 * for the widget's frame.
 */
export async function openShop(engine, browser, store, query = '', prepare = async () => {}, waitUntil = 'load') {
  const { page, close } = await engine.shopper(browser, newAddress());
  await prepare(page);
  const problems = watchProblems(page);
  // The shop's own (its widget id), then the scenario's.
  const all = [store.query, query].filter(Boolean).join('&');
  await page.goto(`${store.url}/${all ? `?${all}` : ''}`, { waitUntil });
  return { page, close, problems, engine };
}

/** The widget's frame once its form is there. */
export async function widgetFrame(session) {
  const { page, engine } = session;
  await engine.waitForFunction(page, () => document.querySelector('[data-parcel-widget] iframe'));
  const deadline = Date.now() + T;
  for (;;) {
    const frame = page.frames().find((f) => f.url().includes('/widget/'));
    if (frame) {
      await frame.waitForSelector('main.widget h1', { timeout: T });
      return frame;
    }
    if (Date.now() > deadline) throw new Error('no widget frame');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `n`th shop event of `type` the demo shop's listener got (1-based). */
export async function shopEvent(session, type, n = 1) {
  await session.engine.waitForFunction(session.page, ([t, k]) => window.shopLog.filter((e) => e.type === t).length >= k, [type, n]);
  return session.page.evaluate(([t, k]) => window.shopLog.filter((e) => e.type === t)[k - 1], [type, n]);
}

export const shopLog = (session) => session.page.evaluate(() => window.shopLog.map((e) => ({ type: e.type, detail: e.detail })));

export async function fillDestination(frame, { street1, city, state, zip }) {
  await frame.locator('#to-street1').fill(street1);
  await frame.locator('#to-city').fill(city);
  await frame.locator('#to-state').fill(state);
  await frame.locator('#to-zip').fill(zip);
}

/** The options as the shopper reads them. */
export function options(frame) {
  return frame.$$eval('label.widget-option', (labels) => labels.map((l) => ({
    name: l.querySelector('.widget-option-name').textContent.trim(),
    price: l.querySelector('.money').textContent.trim(),
    facts: l.querySelector('.widget-option-facts').textContent.trim(),
    marks: [...l.querySelectorAll('.widget-mark')].map((m) => m.textContent.trim()),
    checked: l.querySelector('input').checked,
  })));
}

export async function getOptions(frame, destination) {
  await fillDestination(frame, destination);
  await frame.locator('form.widget-form button[type="submit"]').click();
  await frame.waitForSelector('label.widget-option', { timeout: T });
  return options(frame);
}

export const cents = (price) => Math.round(Number(price.replace(/[$,]/g, '')) * 100);

/**
 * The scenarios both engines must pass; `ctx` is `{ engine, browser, stack }`.
 * Each returns nothing and throws on failure.
 */
export const scenarios = {
  async 'a shopper on the demo shop chooses one of every carrier\'s options; the shop gets it, changes the parcel and gets it re-quoted'(ctx) {
    await chooseAndRequote(ctx, '');
  },

  async 'the same with the shop page sending Referrer-Policy: no-referrer'(ctx) {
    await chooseAndRequote(ctx, 'referrer-policy=no-referrer');
  },

  async 'a logged-in customer\'s address (setDestination) is quoted at once; a preset parcel works'(ctx) {
    const s = await openShop(ctx.engine, ctx.browser, ctx.stack.shop, 'preset=small-box&weight-oz=12');
    try {
      const frame = await widgetFrame(s);
      const ready = await shopEvent(s, 'ready');
      assert.deepEqual(ready.detail.parcel, { weight_oz: 12, length: 8, width: 6, height: 4 });
      await s.page.click('#sign-in');
      const quoted = await shopEvent(s, 'quoted');
      assert.ok(quoted.detail.options.length >= 4);
      assert.equal(await frame.$eval('#to-zip', (i) => i.value), '11201');
      assert.equal((await options(frame)).length, quoted.detail.options.length);
      assert.deepEqual(s.problems, []);
    } finally {
      await s.close();
    }
  },

  async 'a carrier marked down leaves the other options shown with a quiet note'(ctx) {
    await ctx.stack.sim.control('PUT', '/__sim/faults', { carriers_down: ['Harbor Parcel'] });
    const s = await openShop(ctx.engine, ctx.browser, ctx.stack.shop);
    try {
      const frame = await widgetFrame(s);
      const shown = await getOptions(frame, { street1: '9 Pine St', city: 'Seattle', state: 'WA', zip: '98101' });
      const carriers = new Set(shown.map((o) => CARRIERS.find((c) => o.name.startsWith(c))));
      assert.deepEqual([...carriers].sort(), ['Atlas Freight', 'Comet Express', 'Pacific Post']);
      assert.equal(
        await frame.$eval('.widget-note', (n) => n.textContent),
        'Harbor Parcel is not answering right now, so its options are missing.',
      );
      assert.equal(await frame.$$eval('.widget-trouble', (t) => t.length), 0, 'no error box: the others can be chosen');
      const quoted = await shopEvent(s, 'quoted');
      assert.deepEqual(quoted.detail.unavailable_carriers, ['Harbor Parcel']);
      // The browser logs the 503 itself (a partial answer); nothing else may fail.
      assert.deepEqual(s.problems.filter((p) => !/503/.test(p)), []);
    } finally {
      await s.close();
      await ctx.stack.sim.control('PUT', '/__sim/faults', {});
    }
  },

  async 'a choice left until its rate has expired is re-quoted before it is handed over; a chosen rate is renewed before it expires'(ctx) {
    const { engine, browser, stack } = ctx;
    // The browser's clock is the engine's (every frame); the service's is the simulator's. Both jump together.
    const later = async (minutes, s) => {
      await stack.sim.control('POST', '/__sim/clock/advance', { seconds: minutes * 60 });
      await engine.advanceClock(s.page, minutes * 60_000);
    };
    const withClock = () => openShop(engine, browser, stack.shop, '', engine.installClock);
    const s = await withClock();
    try {
      const frame = await widgetFrame(s);
      await getOptions(frame, { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' });
      await frame.locator('label.widget-option:nth-of-type(2) input').click();
      const first = (await shopEvent(s, 'chosen')).detail;

      // Left for 16 minutes (the page slept through the refresh): its rate has expired.
      await later(16, s);
      const renewed = (await shopEvent(s, 'chosen', 2)).detail;
      assert.deepEqual([renewed.carrier, renewed.service], [first.carrier, first.service]);
      assert.notEqual(renewed.rate_id, first.rate_id);
      assert.equal(await buy(stack, first.rate_id), 'RATE.EXPIRED', 'the first rate did expire');
      assert.equal(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice.rate_id), renewed.rate_id);

      // Open and awake: the chosen rate is renewed 90 s before it expires, so the shop never holds an expired one.
      await later(14, s);
      const kept = (await shopEvent(s, 'chosen', 3)).detail;
      assert.notEqual(kept.rate_id, renewed.rate_id);
      const log = (await shopLog(s)).map((e) => (e.detail?.reason ? `${e.type}:${e.detail.reason}` : e.type));
      assert.deepEqual(log, ['ready', 'quoted', 'chosen', 'cleared:expired', 'quoted', 'chosen', 'quoted', 'chosen']);
      assert.equal(await buy(stack, kept.rate_id), 'bought', 'the rate handed over is valid');
      assert.deepEqual(s.problems, []);
    } finally {
      await s.close();
    }

    // Options left on screen past their expiry, then chosen: re-quoted before the shop gets one.
    const t = await withClock();
    try {
      const frame = await widgetFrame(t);
      await getOptions(frame, { street1: '3 Oak Ave', city: 'Austin', state: 'TX', zip: '78701' });
      const quoted = (await shopEvent(t, 'quoted')).detail;
      await later(16, t);
      await frame.locator('label.widget-option:nth-of-type(1) input').click();
      const chosen = (await shopEvent(t, 'chosen')).detail;
      assert.ok(!quoted.options.some((o) => o.rate_id === chosen.rate_id), 'a rate of the new quote');
      assert.equal(await buy(stack, quoted.options[0].rate_id), 'RATE.EXPIRED');
      assert.equal(await buy(stack, chosen.rate_id), 'bought');
    } finally {
      await t.close();
    }
  },

  async 'an origin the widget does not allow cannot frame it, nor use it, even claiming to be the shop'(ctx) {
    const { edge, shop, other } = ctx.stack;
    // The one-line embed on an unconfigured shop, and a hand-made iframe
    // there claiming to be the configured shop: the browser shows neither,
    // and the embed script tells the shop why.
    const s = await openShop(ctx.engine, ctx.browser, other);
    try {
      await s.page.evaluate(([edgeUrl, claimed, widget]) => {
        const forged = document.createElement('iframe');
        forged.id = 'forged';
        forged.src = `${edgeUrl}/widget/?${widget}shop=${encodeURIComponent(claimed)}&weight_oz=20&length=10&width=8&height=4`;
        // Loaded or not, give up waiting after 5 s.
        return new Promise((resolve) => { forged.onload = resolve; setTimeout(resolve, 5000); document.body.append(forged); });
      }, [edge.url, shop.url, shop.query ? `${shop.query}&` : '']);
      // An absence window: nothing announces a widget that does not show.
      // A configured shop's widget is ready well within 2 s (the scenarios
      // above wait on its ready event).
      await new Promise((r) => setTimeout(r, 2000));
      for (const frame of s.page.frames().filter((f) => f.url().includes('/widget/'))) {
        const ours = await frame.evaluate(() => document.querySelector('main.widget') !== null).catch(() => false);
        assert.equal(ours, false, `${frame.url()} rendered the widget`);
      }
      // The embed script says so, and hides the frame: the one event is the refusal (this widget has no fallback).
      const refused = await shopEvent(s, 'error');
      assert.equal(refused.detail.code, 'EDGE.ORIGIN.REFUSED');
      assert.ok(refused.detail.message.includes(other.url), refused.detail.message);
      assert.equal(refused.detail.fallback, null);
      assert.deepEqual((await shopLog(s)).map((e) => e.type), ['error'], 'no other widget event reached the page');
      assert.equal(await s.page.evaluate(() => getComputedStyle(document.querySelector('[data-parcel-widget] iframe')).display), 'none');
      assert.equal(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice), null);
      // Its own script cannot get a quote either: the Worker refuses the origin, so the browser gets no CORS answer.
      const direct = await s.page.evaluate(async (edgeUrl) => {
        try {
          const r = await fetch(`${edgeUrl}/api/v1/rates`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
          return `answered ${r.status}`;
        } catch (e) {
          return e.name;
        }
      }, edge.url);
      assert.equal(direct, 'TypeError');
    } finally {
      await s.close();
    }
  },
};

/** Buys `rateId` on the simulator with the Worker's key, as the shop's server would. */
async function buy(stack, rateId) {
  const res = await fetch(`${stack.sim.url}/v1/labels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rate_id: rateId }),
  });
  return res.ok ? 'bought' : (await res.json()).error.code;
}

/** The main flow: choose, the shop gets every field, the cart changes, re-quoted. */
async function chooseAndRequote(ctx, query) {
  const s = await openShop(ctx.engine, ctx.browser, ctx.stack.shop, query);
  try {
    const frame = await widgetFrame(s);
    await shopEvent(s, 'ready');
    if (query.includes('no-referrer')) assert.equal(await frame.evaluate(() => document.referrer), '', 'the widget got no referrer');
    assert.equal(await frame.$eval('.widget-from', (p) => p.textContent), 'Ships from San Francisco, CA');
    // A missing field is named before anything is asked.
    await frame.locator('form.widget-form button[type="submit"]').click();
    assert.equal(await frame.$eval('.field-problem', (p) => p.textContent), 'Street address is required to see shipping options.');

    const shown = await getOptions(frame, { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' });
    const carriers = new Set(shown.map((o) => CARRIERS.find((c) => o.name.startsWith(c))));
    assert.deepEqual([...carriers].sort(), CARRIERS, `every carrier: ${shown.map((o) => o.name)}`);
    for (const o of shown) assert.match(o.facts, /^Arrives \w{3}, \w{3} \d{1,2} · [\d.]+ k?g CO₂$/, o.facts);
    const prices = shown.map((o) => cents(o.price));
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
    for (const mark of ['Cheapest', 'Fastest', 'Lowest carbon']) {
      assert.equal(shown.filter((o) => o.marks.includes(mark)).length, 1, `one "${mark}"`);
    }
    assert.ok(shown[0].marks.includes('Cheapest'));
    const quoted = await shopEvent(s, 'quoted');
    assert.equal(quoted.detail.options.length, shown.length);

    // The shopper chooses the third option; the shop's listener gets all of it.
    await frame.locator('label.widget-option:nth-of-type(3) input').click();
    const chosen = (await shopEvent(s, 'chosen')).detail;
    const picked = shown[2];
    assert.equal(`${chosen.carrier} ${chosen.service}`, picked.name);
    assert.equal(chosen.rate_cents, cents(picked.price));
    assert.match(chosen.carrier_eta, /^\d{4}-\d\d-\d\d$/);
    assert.equal(typeof chosen.carbon_grams, 'number');
    assert.match(chosen.rate_id, /^rate_/);
    assert.equal(typeof chosen.expires_at, 'number');
    const same = quoted.detail.options.find((o) => o.rate_id === chosen.rate_id);
    assert.deepEqual(
      [same.carrier, same.service, same.rate_cents, same.carrier_eta, same.carbon_grams, same.expires_at],
      [chosen.carrier, chosen.service, chosen.rate_cents, chosen.carrier_eta, chosen.carbon_grams, chosen.expires_at],
    );
    assert.equal(chosen.destination.zip, '11201');
    assert.deepEqual(chosen.parcel, { weight_oz: 20, length: 10, width: 8, height: 4 });
    // It stays visible in the widget, and the element's API has it.
    assert.match(await frame.$eval('.widget-choice', (p) => p.textContent), new RegExp(`^You chose ${picked.name}: \\${picked.price}, arriving `));
    assert.equal((await options(frame))[2].checked, true);
    assert.equal(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice.rate_id), chosen.rate_id);
    assert.match(await s.page.$eval('#shipping', (p) => p.textContent), new RegExp(`^Shipping: ${picked.name}, `));

    // The cart changes: the shop sets the parcel through the element; the options are re-quoted.
    await ctx.engine.select(s.page, '#quantity', '2');
    const requoted = (await shopEvent(s, 'quoted', 2)).detail;
    const again = (await shopEvent(s, 'chosen', 2)).detail;
    assert.equal(`${again.carrier} ${again.service}`, picked.name, 'the same option stays chosen');
    assert.deepEqual(again.parcel, { weight_oz: 40, length: 10, width: 8, height: 8 });
    assert.notEqual(again.rate_id, chosen.rate_id);
    assert.ok(requoted.options.some((o) => o.rate_id === again.rate_id));
    assert.ok(again.rate_cents > chosen.rate_cents, `${again.rate_cents} > ${chosen.rate_cents}: heavier costs more`);
    const log = (await shopLog(s)).map((e) => e.detail?.reason ? `${e.type}:${e.detail.reason}` : e.type);
    assert.deepEqual(log, ['ready', 'quoted', 'chosen', 'cleared:changed', 'quoted', 'chosen']);
    assert.deepEqual((await options(frame)).filter((o) => o.checked).map((o) => o.name), [picked.name], 'still the one checked');
    assert.equal(await s.page.evaluate(() => document.querySelector('[data-parcel-widget]').choice.rate_id), again.rate_id);
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
}

/** The widget's link naming `stack.shop`'s widget (its `query`: the organization's id, or none for the deployment's) and `params`. */
const widgetLink = (stack, params) => `${stack.edge.url}/widget/?${[stack.shop.query, params].filter(Boolean).join('&')}`;

/**
 * Opened on its own, the widget page says it belongs in an iframe on the
 * shop's pages; for a shop the widget does not allow, who allows it:
 * `where` (a regular expression's source) names the setting.
 */
export async function assertPageAlone(browser, stack, where) {
  const alone = await browser.newPage();
  try {
    await alone.goto(widgetLink(stack, `shop=${encodeURIComponent(stack.shop.url)}&weight_oz=20&length=10&width=8&height=4`));
    await alone.locator('.widget-problem').waitFor({ timeout: T });
    assert.match(await alone.locator('.widget-problem').innerText(), /works inside an iframe on your shop's pages/);
    await alone.goto(widgetLink(stack, `shop=${encodeURIComponent(stack.other.url)}`));
    await alone.locator('.widget-problem').waitFor({ timeout: T });
    assert.match(await alone.locator('.widget-problem').innerText(), new RegExp(`^${stack.other.url} may not show this widget.*${where}`));
  } finally {
    await alone.close();
  }
}

/**
 * The widget page is framed only by the shop its link names, if the widget
 * allows it, and ships from SHIP_FROM; the dashboard is framed by nobody;
 * the API refuses an origin the widget does not allow, however it asks.
 */
export async function assertFramedOnlyByItsShop(stack) {
  const page = (shop) => fetch(widgetLink(stack, `${shop === undefined ? '' : `shop=${encodeURIComponent(shop)}&`}weight_oz=20&length=10&width=8&height=4`));
  const ok = await page(stack.shop.url);
  assert.equal(ok.status, 200);
  const csp = ok.headers.get('content-security-policy');
  assert.match(csp, new RegExp(`frame-ancestors ${stack.shop.url}$`));
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[^']+'/, 'nothing inline but its own start script');
  assert.equal(ok.headers.get('x-frame-options'), null);
  const html = await ok.text();
  assert.match(html, /<meta name="parcel-ship-from" content="\{&quot;name&quot;:&quot;Ada Shop Inc&quot;/);
  assert.match(html, new RegExp(`<meta name="parcel-shop" content="${stack.shop.url}"`));
  for (const refused of [stack.other.url, undefined, `${stack.shop.url} https://evil.example`]) {
    const res = await page(refused);
    assert.equal(res.status, 403, String(refused));
    assert.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'$/);
    assert.match(await res.text(), /<meta name="parcel-shop" content=""/);
  }
  const dashboard = await fetch(`${stack.edge.url}/`);
  assert.match(dashboard.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.equal(dashboard.headers.get('x-frame-options'), 'DENY');
  // The API refuses the origin in the v1 envelope, however it asks.
  const id = new URLSearchParams(stack.shop.query).get('widget');
  const named = id ? { 'parcel-widget-id': id } : {};
  for (const headers of [{ origin: stack.other.url, ...named }, { origin: stack.edge.url, 'parcel-widget-origin': stack.other.url, ...named }]) {
    const res = await fetch(`${stack.edge.url}/api/v1/rates`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, 'EDGE.ORIGIN.REFUSED');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  }
}
