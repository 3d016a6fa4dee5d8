// The dashboard's sign-in and ship flow in Debian's Firefox ESR
// (puppeteer-core over WebDriver BiDi), through the real Worker and
// simulator: the Chromium suite's core path (app-ship.test.mjs), in the
// other engine. Buttons and the dialog are found by their accessible names.
// As an organization's operator on the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { ARTIFACTS, watchProblems } from './support/browser.mjs';
import { RECIPIENT, SENDER, T, cents } from './support/pages.mjs';
import { engines } from './support/widget.mjs';

const shared = await sharedStack();
let stack, browser;
before(async () => {
  stack = await orgStack(shared);
  browser = await engines.firefox.launch();
});
after(async () => {
  await browser?.close();
});

const aria = (role, name) => `::-p-aria([name="${name}"][role="${role}"])`;

async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function fillAddress(page, prefix, a) {
  for (const field of ['name', 'street1', 'city', 'state', 'zip', 'country']) {
    await page.locator(`#${prefix}-${field}`).fill(a[field]);
  }
}

test('firefox: an operator signs in, quotes every carrier and buys the cheapest live label; the wallet drops by its price; sign-out ends it', async () => {
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 50000, card: 'ok', auto_reload: null });
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const problems = watchProblems(page);
  try {
    await page.goto(`${stack.edge.url}/ship`);
    await page.locator(aria('button', 'Use an access token')).click();
    await page.locator('#token').fill(stack.users.operator.token);
    await page.locator(aria('button', 'Sign in')).click();
    await page.locator(aria('button', 'Sign out')).setTimeout(T).wait();

    await fillAddress(page, 'from', SENDER);
    await fillAddress(page, 'to', RECIPIENT);
    await page.locator('#parcel-weight').fill('2');
    await page.select('#parcel-unit', 'lb');
    for (const [id, value] of [['length', '10'], ['width', '8'], ['height', '4']]) {
      await page.locator(`#parcel-${id}`).fill(value);
    }
    await page.locator(aria('button', 'Get rates')).click();
    await page.waitForSelector('tbody tr[data-rate-id]', { timeout: T });
    const rows = await page.$$eval('tbody tr[data-rate-id]', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())));
    assert.ok(new Set(rows.map((r) => r[0])).size >= 4, 'all four carriers');
    const prices = rows.map((r) => cents(r[3]));
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
    await screenshot(page, 'firefox-ship-rates');

    const before = await stack.account();
    await page.locator('tbody tr[data-rate-id] button').click();
    await page.locator(aria('dialog', 'Confirm purchase')).setTimeout(T).wait();
    assert.equal(cents(await page.$eval('[data-testid="confirm-price"]', (e) => e.textContent)), prices[0]);
    await page.locator(aria('button', 'Confirm purchase')).click();
    await page.waitForSelector('[data-testid="tracking-number"]', { timeout: T });
    const tracking = await page.$eval('[data-testid="tracking-number"]', (e) => e.textContent.trim());
    assert.doesNotMatch(tracking, /^9999/, 'a live tracking number');
    const after = await stack.account();
    assert.equal(after.balance_cents, before.balance_cents - prices[0]);
    assert.equal(after.live_labels, before.live_labels + 1);
    await screenshot(page, 'firefox-ship-bought');

    await page.locator(aria('button', 'Sign out')).click();
    await page.locator(aria('button', 'Sign in')).setTimeout(T).wait();
    // The session is gone: a reload shows the sign-in page again.
    await page.reload();
    await page.locator(aria('button', 'Sign in')).setTimeout(T).wait();
    assert.deepEqual(problems.filter((p) => !/401/.test(p)), []);
  } catch (e) {
    await screenshot(page, 'firefox-ship-failed');
    throw e;
  } finally {
    await context.close();
  }
});
