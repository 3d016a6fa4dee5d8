// Labels: the ledger page, a label's page and its void (and both void
// refusals), and tracking with its timeline, through the real Worker and
// simulator, as an organization's members (the shared stack).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { LabelPage, RECIPIENT, SENDER, T, TrackingPage, buyViaApi, cents, openSignedIn } from './support/pages.mjs';
import { advanceWhileProcessing, buyAsQuoted, rows, untilJob } from './support/jobs.mjs';
import { until } from './support/wait.mjs';

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

const signedIn = (role = 'operator') => openSignedIn(browser, stack, stack.users[role]);

test('the labels page lists the ledger with each label\'s webhook state, searches it, and opens a label by id', async () => {
  const { context, page, app } = await signedIn();
  const label = await buyViaApi(page);
  const other = await buyViaApi(page);
  await app.nav('Labels');
  await page.getByRole('heading', { name: 'Labels', level: 1 }).waitFor();
  await page.getByRole('row').filter({ hasText: other.tracking_number }).waitFor({ timeout: T });
  const row = page.getByRole('row').filter({ hasText: label.tracking_number });
  await row.waitFor({ timeout: T });
  // Bought here, by this operator: by name, never an account id.
  assert.match(await row.innerText(), new RegExp(stack.users.operator.name));
  assert.doesNotMatch(await page.locator('main').innerText(), /acct_/);
  const events = row.getByRole('link', { name: `Webhook events for ${label.tracking_number}` });
  assert.equal(await events.getAttribute('href'), `/webhooks?q=${label.id}`);
  await page.getByLabel('Search labels').fill(label.tracking_number);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/\/labels\?q=/);
  // The search narrows the list to this one label.
  await page.waitForFunction((number) => {
    const rows = [...document.querySelectorAll('tbody tr')];
    return rows.length === 1 && rows[0].textContent.includes(number);
  }, label.tracking_number, { timeout: T });
  await screenshot(page, 'labels-desktop');
  await page.getByLabel('Label id').fill(label.id);
  await page.getByRole('button', { name: 'Open label' }).click();
  await page.getByRole('heading', { name: `${label.carrier} ${label.service} to Acme Inc`, level: 1 }).waitFor({ timeout: T });
  assert.equal(await page.getByTestId('tracking-number').innerText(), label.tracking_number);
  await page.getByRole('link', { name: 'Webhook events' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Webhook events' }).getAttribute('href'), `/webhooks?q=${label.id}`);
  await context.close();
});

test('the label history: one line of date per row at desktop width, the full date in its title; nothing scrolls sideways on a phone', async () => {
  const { context, page, app } = await signedIn();
  await buyViaApi(page);
  await buyViaApi(page);
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await app.go('/labels');
    const dates = page.locator('tbody td[data-label="Date"] time');
    await dates.first().waitFor({ timeout: T });
    const seen = await dates.evaluateAll((times) => times.map((t) => {
      const lineHeight = parseFloat(getComputedStyle(t).lineHeight) || 20;
      return { text: t.textContent, title: t.title, datetime: t.getAttribute('datetime'), lines: Math.round(t.getBoundingClientRect().height / lineHeight) };
    }));
    for (const d of seen) {
      assert.equal(d.lines, 1, `one line at ${width} px: ${JSON.stringify(d)}`);
      // Compact on the row, whole in the title and for machines.
      assert.ok(d.title.length > d.text.length && d.title.includes(d.text.split(',')[0]), JSON.stringify(d));
      assert.ok(!Number.isNaN(Date.parse(d.datetime)), JSON.stringify(d));
    }
    const sideways = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      table: [...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth),
    }));
    if (width === 1280) assert.deepEqual(sideways.table, [0], `the history fits at ${width} px: ${JSON.stringify(sideways)}`);
    assert.equal(sideways.page, 0, `nothing scrolls sideways at ${width} px: ${JSON.stringify(sideways)}`);
    await screenshot(page, `labels-${width}`);
  }
  await context.close();
});

test('a label\'s page says what it ships, from where, to whom, under which reference, who bought it, its cost and carbon, and where it is', async () => {
  const { context, page, app, ship } = await signedIn();
  const operator = stack.users.operator.name;
  const get = (path) => page.evaluate(async (path) => (await fetch(path)).json(), path);
  // Bought on the Ship page with the merchant's order number.
  await ship.fillAll(SENDER, RECIPIENT);
  await ship.group('To').getByLabel('Address line 2 (optional)').fill('Floor 3');
  await page.getByLabel('Reference (optional)').fill('  SO-1042 Ä ');
  await ship.getRates();
  await ship.buyFirst();
  await ship.confirmButton().click();
  await ship.trackingNumber();
  assert.equal(await ship.result().getByTestId('bought-reference').innerText(), 'SO-1042 Ä');
  // The next parcel is another order: the field is empty again.
  assert.equal(await page.getByLabel('Reference (optional)').inputValue(), '');
  const id = (await ship.result().getByRole('link', { name: 'Label details' }).getAttribute('href')).split('/').pop();
  const label = await get(`/api/v1/labels/${id}`);
  // The ledger follows every label it records: its tracker appears on the label.
  await until('the label is followed', async () => (await get(`/api/v1/labels/${label.id}`)).tracker_id);
  await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`);
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 25 * 3600 });
  await app.go(`/labels/${label.id}`);
  // A heading a person reads: carrier, service and the recipient, never the label's id.
  const heading = page.getByRole('heading', { level: 1 });
  await page.getByRole('heading', { name: `${label.carrier} ${label.service} to Acme Inc`, level: 1 }).waitFor({ timeout: T });
  assert.doesNotMatch(await heading.innerText(), /lbl_/);
  const details = page.getByRole('region', { name: 'Label details' });
  const fact = (name) => details.locator(`dt:text-is("${name}") + dd`);
  assert.equal(await fact('Reference').innerText(), 'SO-1042 Ä');
  // Both addresses as written, a line each, and the parcel as quoted (2 lb).
  assert.deepEqual((await fact('Ship from').innerText()).split('\n'), ['Ada Lovelace', '12 Elm Street', 'Springfield, IL 62701', 'US']);
  assert.deepEqual((await fact('Ship to').innerText()).split('\n'), ['Acme Inc', '500 Market Street', 'Floor 3', 'San Francisco, CA 94105', 'US']);
  assert.equal(await fact('Parcel').innerText(), '10 × 8 × 4 in, 32 oz');
  assert.equal(await page.getByTestId('bought-by').innerText(), operator);
  assert.match(await page.getByTestId('carbon').innerText(), /^\d+ g CO₂e$/);
  assert.equal(cents(await fact('Price').innerText()), label.rate_cents);
  assert.ok(await details.locator('dt:has-text("Bought") + dd time[datetime]').count(), 'when it was bought');
  // Where it is: the carrier's status and events, newest first.
  assert.match(await page.getByTestId('tracking-status').innerText(), /In transit/);
  assert.deepEqual(await new TrackingPage(page).events(), [
    'Arrived at destination facility', 'Departed facility', 'Accepted at origin facility', 'Label created; awaiting the package',
  ]);
  assert.doesNotMatch(await page.locator('main').innerText(), /acct_/);
  await screenshot(page, 'label-page');
  await axe(page, 'the label page');
  // On a phone: the facts stack, and nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await fact('Ship to').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, 'nothing scrolls sideways at 390 px');
  await screenshot(page, 'label-page-390');
  await axe(page, 'the label page on a phone');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The history finds it by its reference, like a batch row's.
  await app.go(`/labels?q=${encodeURIComponent('so-1042')}`);
  await page.waitForFunction((number) => {
    const rows = [...document.querySelectorAll('tbody tr')];
    return rows.length === 1 && rows[0].textContent.includes(number);
  }, label.tracking_number, { timeout: T });

  // A label a batch bought: its reference, addresses and parcel, and the batch beside the buyer.
  const { created, row } = await oneRowJob(page);
  await app.go(`/labels/${row.label_id}`);
  await page.getByRole('heading', { name: 'to Customer 1', level: 1 }).waitFor({ timeout: T });
  assert.equal(await page.getByTestId('reference').innerText(), '#00001');
  assert.deepEqual((await page.getByTestId('ship-from').innerText()).split('\n'), ['Ada Shop Inc', '500 Market St Suite 3', 'Brooklyn, CA 94105', 'US']);
  assert.deepEqual((await page.getByTestId('ship-to').innerText()).split('\n'), ['Customer 1', '1 Elm St', 'Brooklyn, NY 11201', 'US']);
  assert.equal(await page.getByTestId('parcel').innerText(), '10 × 8 × 4 in, 10 oz');
  assert.equal(await page.getByTestId('bought-by').innerText(), `${operator} in a batch`);
  assert.equal(await page.getByTestId('bought-by').getByRole('link').getAttribute('href'), `/batches/${created.id}`);

  // The record is this organization's only: another one's ledger has none of it.
  const mode = label.sandbox ? 'sandbox' : 'live';
  const record = (p) => p.evaluate(async (path) => {
    const r = await fetch(path);
    return { status: r.status, body: await r.json() };
  }, `/api/ledger/label?id=${label.id}&mode=${mode}`);
  const own = await record(page);
  assert.equal(own.status, 200);
  assert.equal(own.body.row.reference, 'SO-1042 Ä');
  assert.equal(own.body.to_address.street2, 'Floor 3');
  const other = await orgStack(shared);
  const outsider = await openSignedIn(browser, other, other.users.operator);
  const theirs = await record(outsider.page);
  assert.equal(theirs.status, 404);
  assert.equal(theirs.body.error.code, 'LABEL.NOT_FOUND');
  assert.ok(theirs.body.error.request_id);
  assert.doesNotMatch(JSON.stringify(theirs.body), /SO-1042|Acme|Floor 3/);
  await outsider.context.close();
  await context.close();
});

test('a reference past 100 characters is refused, naming it, before anything is bought; the Ship page says so under the field', async () => {
  const { context, page, ship } = await signedIn();
  const before = await account();
  const refused = await page.evaluate(async () => {
    const post = (url, body, headers = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const parcel = { weight_oz: 20, length: 10, width: 8, height: 4 };
    const address = { name: 'Acme Inc', street1: '500 Market Street', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
    const { rates } = await (await post('/api/v1/rates', { from_address: address, to_address: address, parcel })).json();
    const r = await post('/api/v1/labels', { rate_id: rates[0].id }, { 'idempotency-key': crypto.randomUUID(), 'parcel-reference': encodeURIComponent('é'.repeat(101)) });
    return { status: r.status, body: await r.json() };
  });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.code, 'VALIDATION.FIELD.INVALID');
  assert.equal(refused.body.error.field, 'Parcel-Reference');
  const after = await account();
  assert.equal(after.balance_cents, before.balance_cents, 'nothing charged');
  assert.equal(after.live_labels, before.live_labels, 'no label made');
  // The form refuses it too, under the field, before any rate is asked for.
  await ship.fillAll();
  const field = page.getByLabel('Reference (optional)');
  await field.fill('x'.repeat(101));
  await page.locator('#reference-problem').getByText('at most 100 characters', { exact: false }).waitFor({ timeout: T });
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  await ship.getRatesButton().click();
  await page.waitForFunction(() => document.activeElement?.id === 'reference', null, { timeout: T });
  assert.equal(await ship.table().count(), 0, 'no rates asked for');
  await context.close();
});

/** A job of one row (reference #00001, to Customer 1) bought through the signed-in page; its job and row. */
async function oneRowJob(page) {
  const json = (path, body) => page.evaluate(async ([path, body]) => {
    const res = await fetch(path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json();
  }, [path, body]);
  const created = await json('/api/jobs', { name: 'orders.csv', rule: { rule: 'cheapest' }, approval: buyAsQuoted, rows: rows(1) });
  await json(`/api/jobs/${created.id}/start`, {});
  const s = { json, sim: stack.sim };
  await untilJob(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
  const [row] = (await json(`/api/jobs/${created.id}/rows?offset=0&limit=10`)).rows;
  return { created, row };
}

test('dates read one way on every page: a batch row\'s delivery as a calendar day, never YYYY-MM-DD; times as <time> with their instant', async () => {
  const { context, page, app } = await signedIn();
  const { created } = await oneRowJob(page);
  await app.go(`/batches/${created.id}`);
  await page.getByRole('button', { name: 'Details of #00001' }).click();
  const rate = page.getByTestId('row-detail').locator('dt:has-text("Rate") + dd');
  await rate.waitFor({ timeout: T });
  // The day as the Ship page and Shipments show a carrier's estimate ("Tue, Nov 24").
  assert.match(await rate.innerText(), /, delivery (Mon|Tue|Wed|Thu|Fri|Sat|Sun), [A-Z][a-z]{2} \d{1,2},/);
  assert.doesNotMatch(await page.locator('main').innerText(), /\b\d{4}-\d{2}-\d{2}\b/);
  // Each waited for: the job's people and the list arrive after the page.
  const startedAt = page.getByTestId('started-by').locator('time[datetime]');
  await startedAt.waitFor({ timeout: T });
  assert.equal(await startedAt.count(), 1);
  await app.go('/batches');
  const listed = page.locator(`tr[data-job="${created.id}"] time[datetime]`);
  await listed.first().waitFor({ timeout: T });
  assert.equal(await listed.count(), 1);
  // A tracker's events: each a <time> machines can read.
  const label = await buyViaApi(page);
  const tracker = await until('the label is followed', async () => (await page.evaluate(async (id) => (await fetch(`/api/v1/labels/${id}`)).json(), label.id)).tracker_id);
  await app.go(`/tracking?id=${tracker}`);
  const times = new TrackingPage(page).timeline().locator('time');
  await times.first().waitFor({ timeout: T });
  assert.ok((await times.evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')))).every((d) => !Number.isNaN(Date.parse(d))));
  await context.close();
});

test('void: confirmed, then requested, then voided and refunded once the carrier confirms', async () => {
  const { context, page, app } = await signedIn();
  const label = await buyViaApi(page);
  const before = await account();
  await app.go(`/labels/${label.id}`);
  const lp = new LabelPage(page);
  await lp.voidButton().click();
  // Keeping the label does nothing.
  await page.getByRole('button', { name: 'Keep the label' }).click();
  await lp.voidButton().waitFor();
  const voids = [];
  page.on('request', (r) => { if (r.method() === 'DELETE' && r.url().includes('/api/v1/labels/')) voids.push(r.url()); });
  // An impatient double click voids once: no second request, no "already requested" refusal.
  await lp.voidButton().click();
  await page.getByRole('button', { name: 'Yes, void the label' }).dblclick();
  await page.getByText('Void requested: the carrier confirms it', { exact: false }).waitFor({ timeout: T });
  assert.equal(voids.length, 1, 'one void request');
  assert.equal(await lp.refusal().count(), 0);
  assert.equal(await lp.badge().innerText(), 'Void requested');
  assert.equal(await lp.voidButton().count(), 0);
  await screenshot(page, 'label-void-requested');
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 6 * 60 });
  await page.reload();
  await page.getByText('The price was refunded to the wallet', { exact: false }).waitFor({ timeout: T });
  assert.equal(await lp.badge().innerText(), 'Voided');
  assert.equal((await account()).balance_cents, before.balance_cents + label.rate_cents);
  await context.close();
});

test('void refused as already requested: the page explains it and shows the void in progress', async () => {
  const { context, page, app } = await signedIn();
  const label = await buyViaApi(page);
  await app.go(`/labels/${label.id}`);
  const lp = new LabelPage(page);
  await lp.voidButton().waitFor({ timeout: T });
  // Someone else (another tab) requests the void first.
  const status = await page.evaluate(async (id) => (await fetch(`/api/v1/labels/${id}`, { method: 'DELETE' })).status, label.id);
  assert.equal(status, 200);
  await lp.voidIt();
  await lp.refusal().waitFor({ timeout: T });
  assert.match(await lp.refusal().innerText(), /already in progress/);
  await page.locator('.error-code', { hasText: 'LABEL.VOID.ALREADY_REQUESTED' }).waitFor({ state: 'attached', timeout: T });
  await page.getByText('Void requested: the carrier confirms it', { exact: false }).waitFor({ timeout: T });
  await context.close();
});

test('void refused as ineligible once the carrier scanned the package', async () => {
  const { context, page, app } = await signedIn();
  const label = await buyViaApi(page);
  await app.go(`/labels/${label.id}`);
  const lp = new LabelPage(page);
  await lp.voidButton().waitFor({ timeout: T });
  await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`);
  const before = await account();
  await lp.voidIt();
  await lp.refusal().waitFor({ timeout: T });
  assert.match(await lp.refusal().innerText(), /already scanned the package/);
  await page.locator('.error-code', { hasText: 'LABEL.VOID.INELIGIBLE' }).waitFor({ state: 'attached', timeout: T });
  // The refreshed label no longer offers a void.
  await page.getByText('This label cannot be voided: the carrier has scanned the package.').waitFor({ timeout: T });
  assert.equal(await lp.voidButton().count(), 0);
  assert.equal((await account()).balance_cents, before.balance_cents);
  await screenshot(page, 'label-void-ineligible');
  await context.close();
});

test('tracking: a registered tracker shows its status and the timeline, newest first, and refreshes', async () => {
  const { context, page, app } = await signedIn();
  const label = await buyViaApi(page);
  await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`);
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 25 * 3600 });
  await app.nav('Tracking');
  const tp = new TrackingPage(page);
  await tp.track(label.tracking_number);
  await page.waitForURL(/\/tracking\?id=/, { timeout: T });
  await tp.timeline().waitFor({ timeout: T });
  assert.deepEqual(await tp.events(), [
    'Arrived at destination facility', 'Departed facility', 'Accepted at origin facility', 'Label created; awaiting the package',
  ]);
  assert.match(await page.getByTestId('tracker-status').innerText(), /In transit/);
  await screenshot(page, 'tracking-desktop');
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 16 * 3600 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByTestId('tracker-status').getByText('Delivered').waitFor({ timeout: T });
  assert.equal((await tp.events())[0], 'Delivered');
  await context.close();
});

test('tracking an unknown number is explained, not a blank page', async () => {
  const { context, page, app } = await signedIn();
  await app.go('/tracking?id=trk_doesnotexist');
  await app.alert().getByText('Details', { exact: true }).click();
  await page.getByText('TRACKER.NOT_FOUND', { exact: false }).waitFor({ timeout: T });
  await page.getByTestId('request-id').waitFor();
  await context.close();
});
