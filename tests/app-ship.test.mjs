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
import { axe, launch, screenshot, watchProblems } from './support/browser.mjs';
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
  // Both addresses were checked: the recipient's classification is shown
  // as the carriers'; the sender's, which no surcharge follows, is not.
  await page.getByText('Deliverable', { exact: true }).nth(1).waitFor({ timeout: T });
  await page.getByText('Commercial', { exact: true }).waitFor({ timeout: T });
  assert.equal(await page.getByText('Residential', { exact: true }).count(), 0, 'the sender is not called residential');
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

test('a checked address stays as typed: the service\'s form is offered beside it, "Keep mine" keeps it, "Use suggested" applies it, and the label is bought for the chosen forms', async () => {
  const { context, page, ship } = await signedIn('admin');
  const problems = watchProblems(page);
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: T });
  const quotes = [];
  const bought = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST') return;
    if (r.url().endsWith('/api/v1/rates')) quotes.push(r);
    if (r.url().endsWith('/api/v1/labels')) bought.push(r);
  });
  await ship.fillAll();
  const field = (group, label) => ship.group(group).getByLabel(label, { exact: true });
  const focusedText = () => page.evaluate(() => document.activeElement?.textContent);

  // The sender, in mixed case, checked: deliverable, and kept as typed.
  await page.getByRole('button', { name: 'Check address' }).first().click();
  const fromOffer = page.getByRole('group', { name: 'We suggest: Ada Lovelace, 12 ELM STREET, SPRINGFIELD, IL 62701, US' });
  await fromOffer.waitFor({ timeout: T });
  assert.equal(await field('From', 'Street address').inputValue(), SENDER.street1, 'the street as typed');
  assert.equal(await field('From', 'City').inputValue(), SENDER.city, 'the city as typed');
  await axe(page, 'ship with a suggested address');
  await fromOffer.getByRole('button', { name: 'Keep mine' }).click();
  await fromOffer.waitFor({ state: 'detached', timeout: T });
  await page.waitForFunction(() => document.activeElement?.textContent === 'Keeping the address as you typed it.', null, { timeout: T });
  assert.equal(await field('From', 'Street address').inputValue(), SENDER.street1);

  // The recipient: its suggested form used.
  await page.getByRole('button', { name: 'Check address' }).click();
  const toOffer = page.getByRole('group', { name: 'We suggest: Acme Inc, 500 MARKET STREET, SAN FRANCISCO, CA 94105, US' });
  await toOffer.waitFor({ timeout: T });
  assert.equal(await field('To', 'Street address').inputValue(), RECIPIENT.street1);
  await toOffer.getByRole('button', { name: 'Use suggested' }).click();
  await page.waitForFunction(() => document.activeElement?.textContent === 'Using the suggested address.', null, { timeout: T });
  assert.equal(await focusedText(), 'Using the suggested address.');
  assert.equal(await field('To', 'Street address').inputValue(), '500 MARKET STREET');
  assert.equal(await field('To', 'City').inputValue(), 'SAN FRANCISCO');

  await ship.getRates();
  await ship.buyFirst();
  await ship.confirmButton().click();
  assert.match(await ship.trackingNumber(), /^9999/);
  // The label was bought from a rate quoted for the forms chosen (a label
  // is bought by its rate; the quote carried the addresses).
  const quote = quotes.at(-1);
  const body = quote.postDataJSON();
  assert.deepEqual([body.from_address.street1, body.from_address.city], [SENDER.street1, SENDER.city]);
  assert.deepEqual([body.to_address.street1, body.to_address.city], ['500 MARKET STREET', 'SAN FRANCISCO']);
  const rates = (await (await quote.response()).json()).rates.map((r) => r.id);
  assert.ok(rates.includes(bought.at(-1).postDataJSON().rate_id), 'the label is one of that quote\'s rates');
  assert.deepEqual(problems, []);
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await context.close();
});

test('rates are for the form as quoted: an address or the parcel changed after them takes them away, so a label is never bought for addresses the page no longer shows', async () => {
  const { context, page, ship } = await signedIn('admin');
  const problems = watchProblems(page);
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: T });
  await ship.fillAll();
  await ship.getRates();
  assert.ok(await ship.buyButtons().count() > 0);
  await ship.group('To').getByLabel('Name', { exact: true }).fill('Acme Receiving');
  await ship.table().waitFor({ state: 'detached', timeout: T });
  assert.equal(await ship.buyButtons().count(), 0, 'nothing to buy for the old address');
  await ship.getRates();
  await ship.group('Parcel').getByLabel('Weight', { exact: true }).fill('3');
  await ship.table().waitFor({ state: 'detached', timeout: T });
  await ship.getRates();
  assert.ok(await ship.buyButtons().count() > 0);
  assert.deepEqual(problems, []);
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await context.close();
});

test('the country is chosen by name from a list (the United States first) and sent as its code; in Canada the province is a list too, elsewhere the region is typed', async () => {
  const { context, page, ship } = await signedIn('operator');
  const checks = [];
  page.on('request', (r) => { if (r.url().endsWith('/api/v1/addresses/validate')) checks.push(r.postDataJSON()); });
  const to = ship.group('To');
  const country = to.getByLabel('Country', { exact: true });
  assert.equal(await country.evaluate((el) => el.tagName), 'SELECT');
  assert.equal(await country.locator('option').first().innerText(), 'United States');
  assert.equal(await country.inputValue(), 'US', 'preselected');
  assert.equal(await to.getByLabel('State', { exact: true }).locator('option:checked').innerText(), 'Choose a state…');
  await country.selectOption({ label: 'Canada' });
  const province = to.getByLabel('State', { exact: true });
  await province.locator('option', { hasText: 'Choose a province…' }).waitFor({ state: 'attached', timeout: T });
  await province.selectOption({ label: 'Ontario' });
  await ship.fillAddress('To', { name: 'Maple Co', street1: '1 Front St W', city: 'Toronto', state: 'ON', zip: 'M5J 2X2', country: 'CA' });
  await page.getByRole('button', { name: 'Check address' }).nth(1).click();
  await page.getByText('Deliverable', { exact: true }).waitFor({ timeout: T });
  assert.deepEqual([checks.at(-1).country, checks.at(-1).state], ['CA', 'ON']);
  // A country without listed regions: the region is typed, as it is.
  await country.selectOption({ label: 'United Kingdom' });
  const region = to.getByLabel('State', { exact: true });
  await page.waitForFunction(() => document.getElementById('to-state')?.tagName === 'INPUT', null, { timeout: T });
  await region.fill('Kent');
  assert.equal(await region.inputValue(), 'Kent');
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

test('rates sort by delivery date and carbon, filter by carrier, and mark rates of the merchant\'s own carrier accounts', async () => {
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Atlas Freight', description: 'Our Atlas contract' });
  const { context, page, ship } = await signedIn('operator');
  await ship.fillAll();
  await ship.getRates();
  let rows = await ship.rowTexts();
  assert.ok(rows.some((r) => r.cells[2] === 'Your account'), 'a rate of the merchant\'s own carrier account is marked');
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
  await ship.fillAddress('From', { ...SENDER, state: '' });
  // "To" is left empty; its country starts as US.
  await ship.fillParcel({ weight: '', length: '0', width: '200', height: '4' });
  await ship.getRatesButton().click();
  const expected = [
    ['From', 'State', 'Choose the state'],
    ['To', 'Name', 'Enter the name'],
    ['To', 'Street address', 'Enter the street address'],
    ['To', 'City', 'Enter the city'],
    ['To', 'State', 'Choose the state'],
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
  assert.equal(await focused('From', 'State'), true, 'focus is on the first wrong field');
  assert.deepEqual(calls, [], 'nothing was sent while the form is wrong');
  await screenshot(page, 'ship-form-problems');

  // A corrected field loses its message as it is typed; the next submit focuses the next problem.
  await ship.group('From').getByLabel('State', { exact: true }).selectOption('IL');
  await ship.group('From').getByText(expected[0][2], { exact: true }).waitFor({ state: 'detached', timeout: T });
  assert.equal(await ship.group('From').getByLabel('State', { exact: true }).getAttribute('aria-invalid'), null);
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
