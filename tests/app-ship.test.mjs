// The ship page through the real Worker and simulator, as an
// organization's members (the shared stack): live and sandbox purchases,
// expiry and re-quote, address checks, the organization's saved addresses,
// sorting. (The service's address check down: tests/app-faults.test.mjs;
// a sender saved in the browser, the deployment's own organization:
// tests/edge-deployment.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { RECIPIENT, SENDER, T, cents, openSignedIn } from './support/pages.mjs';

const shared = await sharedStack();
let stack, browser;
const account = () => stack.account();
before(async () => {
  stack = await orgStack(shared);
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const signedIn = (role = 'operator', viewport) => openSignedIn(browser, stack, stack.users[role], { viewport });

test('live: the cheapest rate is bought after a confirmation; the wallet drops by exactly its price', async () => {
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 50000, card: 'ok', auto_reload: null });
  const { context, page, ship } = await signedIn('operator');
  const problems = watchProblems(page);
  await ship.fillAll();
  await ship.getRates();
  // Both addresses were checked: the residential classification is shown.
  await ship.group('From').waitFor();
  await page.getByText('Residential', { exact: true }).first().waitFor({ timeout: T });
  await page.getByText('Commercial', { exact: true }).first().waitFor({ timeout: T });
  const rows = await ship.rowTexts();
  assert.ok(rows.length >= 4, `rates from every carrier, got ${rows.length}`);
  const prices = rows.map((r) => cents(r.cells[3]));
  assert.deepEqual(prices, [...prices].sort((a, b) => a - b), 'cheapest first');
  assert.ok(new Set(rows.map((r) => r.cells[0])).size >= 4, 'all four carriers in one table');
  assert.match(rows[0].cells[6], /^1[45]:\d\d$/, 'a fresh rate counts down from 15 minutes');
  await screenshot(page, 'ship-rates-desktop');

  const before = await account();
  await ship.buyFirst();
  const dialog = ship.dialog();
  assert.equal(cents(await dialog.getByTestId('confirm-price').innerText()), prices[0]);
  await dialog.getByText('Live', { exact: true }).waitFor();
  await dialog.getByText(`Balance after the purchase: $${((before.balance_cents - prices[0]) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`, { exact: false }).waitFor({ timeout: T });
  await screenshot(page, 'ship-confirm-desktop');
  // Cancel first: nothing is bought.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal((await account()).balance_cents, before.balance_cents);

  await ship.buyFirst();
  const purchases = [];
  page.on('request', (r) => { if (r.url().endsWith('/api/v1/labels') && r.method() === 'POST') purchases.push(r); });
  // A double click on the confirm button sends one purchase.
  await ship.confirmButton().dblclick();
  const tracking = await ship.trackingNumber();
  assert.equal(purchases.length, 1, 'one purchase request');
  assert.match(purchases[0].headers()['idempotency-key'], /^[0-9a-f-]{36}$/);
  assert.doesNotMatch(tracking, /^9999/, 'a live tracking number');
  const after = await account();
  assert.equal(after.balance_cents, before.balance_cents - prices[0]);
  assert.equal(after.live_labels, before.live_labels + 1);
  assert.equal(cents(await ship.result().getByTestId('balance-after').innerText()), after.balance_cents);
  // The live label's PDF downloads from the dashboard's origin (the Worker adds the key the service wants).
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    ship.result().getByRole('link', { name: 'Download label PDF' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^lbl_\w+\.pdf$/);
  assert.equal((await readFile(await download.path())).subarray(0, 5).toString(), '%PDF-');
  await screenshot(page, 'ship-bought-desktop');
  assert.deepEqual(problems, []);
  await context.close();
});

test('sandbox: the purchase is free and its tracking number starts with 9999', async () => {
  const { context, page, ship } = await signedIn('admin');
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: T });
  const before = await account();
  await ship.fillAll();
  await ship.getRates();
  await ship.buyFirst();
  await ship.dialog().getByText('Sandbox', { exact: true }).waitFor();
  await ship.dialog().getByText('nothing is charged', { exact: false }).first().waitFor();
  await ship.confirmButton().click();
  const tracking = await ship.trackingNumber();
  assert.match(tracking, /^9999/);
  await ship.result().getByText('Sandbox: a test label', { exact: false }).waitFor();
  const after = await account();
  assert.equal(after.balance_cents, before.balance_cents, 'no charge');
  assert.equal(after.live_labels, before.live_labels, 'no live label');
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await context.close();
});

test('an expired rate cannot be bought: the service refuses it, the countdown disables it, one click re-quotes', async () => {
  const { context, page, ship } = await signedIn('operator');
  await page.clock.install();
  await ship.fillAll();
  await ship.getRates();
  const firstIds = (await ship.rowTexts()).map((r) => r.id);
  // The service's clock moves past the 15 minutes; the page's has not yet.
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 16 * 60 });
  const before = await account();
  await ship.buyFirst();
  await ship.confirmButton().click();
  const alert = ship.dialog().getByRole('alert');
  await alert.getByText('Details', { exact: true }).click();
  await alert.getByText('RATE.EXPIRED', { exact: false }).waitFor({ timeout: T });
  assert.equal((await account()).balance_cents, before.balance_cents, 'nothing charged');
  await ship.dialog().getByRole('button', { name: 'Get new rates' }).click();
  await ship.dialog().waitFor({ state: 'detached', timeout: T });
  await page.waitForFunction((ids) => {
    const now = [...document.querySelectorAll('tbody tr')].map((tr) => tr.dataset.rateId);
    return now.length > 0 && now.every((id) => !ids.includes(id));
  }, firstIds, { timeout: T });

  // Now the page's own clock passes 15 minutes: the rates show as expired and cannot be bought.
  await page.clock.fastForward('15:05');
  await page.getByText('These rates have expired', { exact: false }).waitFor({ timeout: T });
  assert.equal((await ship.rowTexts())[0].cells[6], 'Expired');
  for (const b of await ship.buyButtons().all()) assert.equal(await b.isDisabled(), true);
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 16 * 60 });
  await page.getByRole('button', { name: 'Get new rates' }).click();
  await page.getByText('These rates have expired', { exact: false }).waitFor({ state: 'detached', timeout: T });
  assert.match((await ship.rowTexts())[0].cells[6], /^1[45]:\d\d$/);
  assert.equal(await ship.buyButtons().first().isDisabled(), false);
  await context.close();
});

test('addresses: ambiguous ones offer suggestions to pick; undeliverable ones are explained without an override', async () => {
  const { context, page, ship } = await signedIn('operator');
  await ship.fillAll(SENDER, { ...RECIPIENT, street1: '1 AMBIGUOUS Road' });
  await ship.getRatesButton().click();
  const to = page.getByRole('alert').filter({ hasText: 'Several addresses match' });
  await to.waitFor({ timeout: T });
  const picks = to.getByRole('button', { name: /^Use / });
  assert.equal(await picks.count(), 2);
  await picks.first().click();
  await page.getByText('Deliverable', { exact: true }).nth(1).waitFor({ timeout: T });
  await ship.getRates();
  await screenshot(page, 'ship-suggestion-picked');

  await ship.group('To').getByLabel('Street address', { exact: true }).fill('9 UNDELIVERABLE Lane');
  await ship.getRatesButton().click();
  await page.locator('.error-code', { hasText: 'ADDRESS.VALIDATION.FAILED' }).waitFor({ state: 'attached', timeout: T });
  await page.getByText('cannot be overridden', { exact: false }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Continue without checking' }).count(), 0);
  await context.close();
});

test('rates sort by delivery date and carbon, filter by carrier, and mark BYOA accounts', async () => {
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Atlas Freight', description: 'Our Atlas contract' });
  const { context, page, ship } = await signedIn('operator');
  await ship.fillAll();
  await ship.getRates();
  let rows = await ship.rowTexts();
  assert.ok(rows.some((r) => r.cells[2] === 'Your account (BYOA)'), 'a BYOA rate is marked');
  assert.ok(rows.some((r) => r.cells[2] === 'Platform'));
  const etas = async () => page.locator('tbody tr time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  await page.getByLabel('Sort by').selectOption('delivery');
  const e = await etas();
  assert.deepEqual(e, [...e].sort());
  await page.getByLabel('Sort by').selectOption('carbon');
  rows = await ship.rowTexts();
  const grams = rows.map((r) => { const [n, u] = r.cells[5].split(' '); return Number(n) * (u === 'kg' ? 1000 : 1); });
  for (let i = 1; i < grams.length; i++) assert.ok(grams[i] >= grams[i - 1] - 100, `carbon ascending: ${grams}`);
  const carrier = rows[0].cells[0];
  await page.getByRole('group', { name: 'Carriers' }).getByLabel(carrier).uncheck();
  rows = await ship.rowTexts();
  assert.ok(rows.length > 0 && rows.every((r) => r.cells[0] !== carrier), `${carrier} filtered out`);
  await context.close();
});

test('the form says every problem at once, each next to its field, and moves focus to the first', async () => {
  const { context, page, ship } = await signedIn('operator');
  const calls = [];
  // The balance Ship shows in live mode is read once the form is entered; nothing else may go.
  page.on('request', (r) => { if (r.url().includes('/api/v1/') && !r.url().endsWith('/api/v1/wallet')) calls.push(r.url()); });
  await ship.fillAddress('From', { ...SENDER, country: 'USA' });
  // "To" is left empty; its country starts as US.
  await ship.fillParcel({ weight: '', length: '0', width: '200', height: '4' });
  await ship.getRatesButton().click();
  const expected = [
    ['From', 'Country', "Enter the country's two-letter code, such as US"],
    ['To', 'Name', 'Enter the name'],
    ['To', 'Street address', 'Enter the street address'],
    ['To', 'City', 'Enter the city'],
    ['To', 'State', 'Enter the state'],
    ['To', 'ZIP code', 'Enter the ZIP code'],
    ['Parcel', 'Weight', 'Enter the weight as a number'],
    ['Parcel', 'Length (in)', 'Enter a length greater than 0'],
    ['Parcel', 'Width (in)', 'Enter a width of at most 108 in'],
  ];
  await page.getByText(expected.at(-1)[2], { exact: true }).waitFor({ timeout: T });
  for (const [group, label, text] of expected) {
    const input = ship.group(group).getByLabel(label, { exact: true });
    assert.equal(await input.getAttribute('aria-invalid'), 'true', `${group} ${label} is marked invalid`);
    const id = await input.getAttribute('aria-describedby');
    assert.ok(id, `${group} ${label} names its message`);
    // The message is right beside the input, in the same field.
    const message = input.locator('xpath=..').locator(`[id="${id}"]`);
    assert.equal((await message.innerText()).trim(), text, `${group} ${label}`);
  }
  assert.equal(await page.locator('[aria-invalid="true"]').count(), expected.length, 'only the wrong fields are marked');
  const focused = (group, label) => ship.group(group).getByLabel(label, { exact: true }).evaluate((el) => el === document.activeElement);
  assert.equal(await focused('From', 'Country'), true, 'focus is on the first wrong field');
  assert.deepEqual(calls, [], 'nothing was sent while the form is wrong');
  await screenshot(page, 'ship-form-problems');

  // A corrected field loses its message as it is typed; the next submit focuses the next problem.
  await ship.group('From').getByLabel('Country', { exact: true }).fill('US');
  await page.getByText(expected[0][2], { exact: true }).waitFor({ state: 'detached', timeout: T });
  assert.equal(await ship.group('From').getByLabel('Country', { exact: true }).getAttribute('aria-invalid'), null);
  assert.equal(await page.locator('[aria-invalid="true"]').count(), expected.length - 1);
  await ship.getRatesButton().click();
  assert.equal(await focused('To', 'Name'), true);
  await context.close();
});

test('a saved sender survives a reload (the organization keeps it for its members) and fills the From address', async () => {
  const { context, page, ship } = await signedIn('operator');
  await ship.fillAddress('From', SENDER);
  // The address is the organization's (api::presets).
  await ship.group('From').getByRole('button', { name: 'Save this address' }).click();
  await page.getByText(`Saved as “${SENDER.name}” for the organization.`).waitFor();
  await page.reload();
  await page.getByLabel('Saved addresses').selectOption({ index: 1 });
  assert.equal(await ship.group('From').getByLabel('Name', { exact: true }).inputValue(), SENDER.name);
  assert.equal(await ship.group('From').getByLabel('ZIP code', { exact: true }).inputValue(), SENDER.zip);
  await context.close();
});

test('phone width: the ship flow works and every rate is readable', async () => {
  const { context, page, ship } = await signedIn('operator', { width: 390, height: 844 });
  await ship.fillAll();
  await ship.getRates();
  const box = await ship.buyButtons().first().boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, 'the buy button fits the screen');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
  await screenshot(page, 'ship-rates-phone');
  await context.close();
});
