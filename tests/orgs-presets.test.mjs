// Saved ship-from addresses and package presets per organization (issue
// 21 part 6, api/src/presets.rs) through the three Workers in workerd in
// front of the real simulator, one stack for the file: an organization made
// from a scripts/new-org link, its operator and viewer invited by link;
// the admin saves the warehouse (the default) and a preset; who may change
// them, every refusal in the envelope naming the field, the audit log; a
// second organization sees none of them and gets 404 on the first's ids.
// Then in Chromium: the admin keeps them on the "Addresses & packages"
// page; the operator's Ship page preselects the warehouse and a preset
// fills the parcel for the label bought; a new batch's sender is the
// warehouse and the preset fills the rows that lack a size; the viewer
// sees them and cannot change them. On the shared stack. (The deployment's
// own organization has none: tests/edge-deployment.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, sharedStack } from './support/stack.mjs';
import { Person, assertError, newOrgLink } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { PasswordSignIn, RECIPIENT, ShipPage, T } from './support/pages.mjs';
import { Batches, TEMPLATE, csv } from './support/batches.mjs';

const PASSWORD = 'correct horse battery staple';
const { sim, edge, sessionSecret } = await sharedStack();
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const person = () => new Person(edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** A new organization from a setup link, its admin signed in, and people of `roles` invited by link. */
async function newOrg(orgName, roles = []) {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = person();
  admin.email = email('admin');
  const made = await admin.createOrg(link.token, { orgName, name: `${orgName} Admin`, email: admin.email, password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  const org = { name: orgName, id: made.json.org.id, admin };
  for (const role of roles) {
    const invite = await admin.invite(role);
    assert.equal(invite.status, 201, invite.text);
    const p = person();
    p.email = email(role);
    const joined = await p.accept(invite.json.token, { email: p.email, password: PASSWORD, name: `${orgName} ${role}` });
    assert.equal(joined.status, 200, joined.text);
    org[role] = p;
  }
  return org;
}

const WAREHOUSE = {
  name: 'Acme Warehouse', street1: '1 Dock Rd', city: 'Springfield', state: 'IL', zip: '62701', country: 'US', phone: '+1 217 555 0100',
};
const RETURNS = { ...WAREHOUSE, name: 'Acme Returns', street1: '9 Side St', zip: '62702' };
const SMALL_BOX = { weight_oz: 14, length: 9, width: 6, height: 3 };

let acme;
test('saved addresses and presets: the first saved is the default, members read, admins and operators change, viewers are refused, bad input names its field, every change is audited', async () => {
  acme = await newOrg('Acme Parcels', ['operator', 'viewer']);
  const { admin, operator, viewer } = acme;
  assert.deepEqual((await viewer.call('GET', '/api/org/addresses')).json, { addresses: [] });
  assert.deepEqual((await viewer.call('GET', '/api/org/packages')).json, { packages: [] });

  const saved = await admin.call('POST', '/api/org/addresses', { label: ' Main warehouse ', address: WAREHOUSE });
  assert.equal(saved.status, 201, saved.text);
  const [warehouse] = saved.json.addresses;
  assert.match(warehouse.id, /^adr_[0-9a-f]+$/);
  assert.deepEqual([warehouse.label, warehouse.default, warehouse.address], ['Main warehouse', true, WAREHOUSE], 'the first saved is the default');
  assert.match(warehouse.saved_by, /^Acme Parcels Admin </);
  const second = await operator.call('POST', '/api/org/addresses', { label: 'Returns desk', address: RETURNS });
  assert.equal(second.status, 201, second.text);
  const returns = second.json.addresses[1];
  assert.deepEqual(second.json.addresses.map((a) => [a.label, a.default]), [['Main warehouse', true], ['Returns desk', false]]);

  // Making another the default moves it; deleting the default hands it on.
  const moved = await operator.call('PUT', `/api/org/addresses/${returns.id}/default`);
  assert.deepEqual(moved.json.addresses.map((a) => a.default), [false, true]);
  const gone = await operator.call('DELETE', `/api/org/addresses/${returns.id}`);
  assert.deepEqual(gone.json.addresses.map((a) => [a.id, a.default]), [[warehouse.id, true]]);
  const renamed = await admin.call('PUT', `/api/org/addresses/${warehouse.id}`, { label: 'Warehouse', address: WAREHOUSE });
  assert.deepEqual(renamed.json.addresses.map((a) => [a.label, a.default]), [['Warehouse', true]], 'an update keeps the default');

  const box = await admin.call('POST', '/api/org/packages', { name: 'Small box', parcel: SMALL_BOX });
  assert.equal(box.status, 201, box.text);
  const [preset] = box.json.packages;
  assert.match(preset.id, /^pkg_[0-9a-f]+$/);
  assert.deepEqual([preset.name, preset.parcel], ['Small box', SMALL_BOX]);

  // Bad input: the v1 envelope naming the field; nothing saved.
  const field = (res, code, name) => assert.equal(assertError(res, 422, code).field, name, res.text);
  const { zip: _zip, ...noZip } = WAREHOUSE;
  field(await admin.call('POST', '/api/org/addresses', { label: 'X', address: noZip }), 'VALIDATION.FIELD.REQUIRED', 'address.zip');
  field(await admin.call('POST', '/api/org/addresses', { label: 'X', address: { ...WAREHOUSE, country: 'XX' } }), 'VALIDATION.FIELD.INVALID', 'address.country');
  field(await admin.call('POST', '/api/org/addresses', { label: ' ', address: WAREHOUSE }), 'VALIDATION.FIELD.REQUIRED', 'label');
  field(await admin.call('POST', '/api/org/packages', { name: 'Flat', parcel: { ...SMALL_BOX, height: 0 } }), 'VALIDATION.FIELD.INVALID', 'parcel.height');
  field(await admin.call('PUT', `/api/org/packages/${preset.id}`, { name: 'x'.repeat(61), parcel: SMALL_BOX }), 'VALIDATION.FIELD.INVALID', 'name');
  assertError(await admin.call('DELETE', '/api/org/packages/pkg_0000'), 404, 'EDGE.SAVED.NOT_FOUND');
  assertError(await admin.call('PUT', `/api/org/packages/${warehouse.id}`, { name: 'Box', parcel: SMALL_BOX }), 404, 'EDGE.SAVED.NOT_FOUND');

  // Viewers see them and change nothing.
  const seen = await viewer.call('GET', '/api/org/addresses');
  assert.deepEqual(seen.json.addresses.map((a) => a.label), ['Warehouse']);
  assert.deepEqual((await viewer.call('GET', '/api/org/packages')).json.packages.map((p) => p.name), ['Small box']);
  for (const [method, route, body] of [
    ['POST', '/api/org/addresses', { label: 'Mine', address: RETURNS }],
    ['PUT', `/api/org/addresses/${warehouse.id}/default`],
    ['DELETE', `/api/org/addresses/${warehouse.id}`],
    ['POST', '/api/org/packages', { name: 'Mine', parcel: SMALL_BOX }],
    ['DELETE', `/api/org/packages/${preset.id}`],
  ]) {
    assertError(await viewer.call(method, route, body), 403, 'EDGE.ROLE.FORBIDDEN');
  }
  assert.deepEqual((await admin.call('GET', '/api/org/addresses')).json, renamed.json);
  assert.equal((await admin.call('GET', '/api/org/packages')).json.packages.length, 1);

  // Who saved, changed and deleted which, in the audit log.
  const audit = (await admin.call('GET', '/api/org/audit')).json.entries.filter((e) => /^(address|package)_saved$/.test(e.action));
  const lines = audit.map((e) => `${e.actor.split(' <')[0]}: ${e.detail}`).reverse();
  assert.equal(lines.length, 6, lines.join('\n'));
  assert.match(lines[0], new RegExp(`^Acme Parcels Admin: saved address ${warehouse.id} "Main warehouse" \\(1 Dock Rd, Springfield, IL 62701 US\\), the default$`));
  assert.match(lines[1], /^Acme Parcels operator: saved address adr_\w+ "Returns desk"/);
  assert.match(lines[2], /^Acme Parcels operator: made adr_\w+ "Returns desk" .* the default address$/);
  assert.match(lines[3], new RegExp(`^Acme Parcels operator: deleted address ${returns.id} .*; ${warehouse.id} "Main warehouse" is the default now$`));
  assert.match(lines[4], /^Acme Parcels Admin: changed address .*"Main warehouse".* → .*"Warehouse"/);
  assert.match(lines[5], new RegExp(`^Acme Parcels Admin: saved package preset ${preset.id} "Small box" \\(9 × 6 × 3 in, 14 oz\\)$`));
});

test('another organization sees none of them and gets 404 on their ids', async () => {
  const beta = await newOrg('Beta Goods');
  const { admin } = beta;
  assert.deepEqual((await admin.call('GET', '/api/org/addresses')).json, { addresses: [] });
  assert.deepEqual((await admin.call('GET', '/api/org/packages')).json, { packages: [] });
  const theirs = (await acme.admin.call('GET', '/api/org/addresses')).json;
  const [warehouse] = theirs.addresses;
  const [preset] = (await acme.admin.call('GET', '/api/org/packages')).json.packages;
  for (const [method, route, body] of [
    ['PUT', `/api/org/addresses/${warehouse.id}`, { label: 'Mine', address: WAREHOUSE }],
    ['PUT', `/api/org/addresses/${warehouse.id}/default`],
    ['DELETE', `/api/org/addresses/${warehouse.id}`],
    ['PUT', `/api/org/packages/${preset.id}`, { name: 'Mine', parcel: SMALL_BOX }],
    ['DELETE', `/api/org/packages/${preset.id}`],
  ]) {
    const res = await admin.call(method, route, body);
    assertError(res, 404, 'EDGE.SAVED.NOT_FOUND');
    for (const secret of ['Acme', acme.id]) assert.ok(!res.text.includes(secret), `${method} ${route} reveals ${secret}`);
  }
  assert.deepEqual((await acme.admin.call('GET', '/api/org/addresses')).json, theirs, 'nothing changed in Acme');
  // Beta's own are Beta's alone.
  const own = await admin.call('POST', '/api/org/addresses', { label: 'Beta dock', address: RETURNS });
  assert.equal(own.status, 201, own.text);
  assert.deepEqual((await acme.viewer.call('GET', '/api/org/addresses')).json, theirs);
});

/** `who` (a `Person` of `newOrg`) signed in by password in a browser context of their own. */
async function inBrowser(who) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) errors.push(m.text()); });
  await page.goto(edge.url + '/ship');
  await new PasswordSignIn(page).signIn(who.email, PASSWORD);
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  const menu = (name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
  return { context, page, errors, menu };
}

const PRESET_NAME = 'Small box (9 × 6 × 3 in, 14 oz)';

test('in the browser: the admin keeps the warehouse (the default) and a preset; Ship preselects the warehouse and the preset fills the parcel of the label bought; a batch\'s sender is the warehouse and the preset fills the rows without a size; the viewer cannot change them', async () => {
  const cargo = await newOrg('Cargo Co', ['operator', 'viewer']);
  const { key } = await sim.control('POST', '/__sim/keys', { env: 'sandbox', scopes: ALL_SCOPES, account: `acct_cargo_${randomBytes(4).toString('hex')}` });
  const keyed = await cargo.admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
  assert.equal(keyed.status, 200, keyed.text);

  // The admin keeps them on their page (every role has it in the menu).
  const admin = await inBrowser(cargo.admin);
  await admin.menu('Addresses & packages').click();
  const page = admin.page;
  await page.getByRole('heading', { name: 'Addresses & packages' }).waitFor({ timeout: T });
  await page.getByText('No saved addresses yet.').waitFor({ timeout: T });
  // A form with problems says so at the field, and saves nothing.
  await page.getByRole('button', { name: 'Save address' }).click();
  await page.getByText('Enter a label, such as “Main warehouse”').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'address-label');
  await page.getByLabel('Label', { exact: true }).fill('Main warehouse');
  await new ShipPage(page).fillAddress('Address', WAREHOUSE);
  await page.getByRole('button', { name: 'Save address' }).click();
  const addresses = page.getByRole('table', { name: 'Saved ship-from addresses' });
  await addresses.getByRole('row', { name: /Main warehouse/ }).getByText('Default').waitFor({ timeout: T });
  await page.getByLabel('Preset name').fill('Small box');
  const parcel = new ShipPage(page);
  await parcel.fillParcel({ weight: '14', unit: 'oz', length: '9', width: '6', height: '3' });
  await page.getByRole('button', { name: 'Save preset' }).click();
  await page.getByRole('listitem').filter({ hasText: PRESET_NAME }).waitFor({ timeout: T });
  await axe(page, 'addresses & packages');
  await screenshot(page, 'orgs-presets');
  // The widget ships from the warehouse: chosen, not retyped.
  await admin.menu('API keys').click();
  await page.getByRole('link', { name: 'storefront widget settings' }).click({ timeout: T });
  await page.getByRole('heading', { name: 'Storefront widget' }).waitFor({ timeout: T });
  const useSaved = page.getByLabel('Use a saved address');
  await useSaved.selectOption({ index: 1 });
  assert.match(await useSaved.locator('option:checked').innerText(), /^Main warehouse: Acme Warehouse, 1 Dock Rd/);
  assert.equal(await page.getByRole('group', { name: 'Ships from' }).getByLabel('Street address', { exact: true }).inputValue(), '1 Dock Rd');
  const widgetSaved = page.waitForResponse((r) => r.url().endsWith('/api/org/widget') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save the widget settings' }).click();
  assert.equal((await widgetSaved).status(), 200);
  const widget = (await cargo.admin.call('GET', '/api/org/widget')).json;
  assert.deepEqual([widget.settings.ship_from.name, widget.settings.ship_from.street1], ['Acme Warehouse', '1 Dock Rd']);

  // The operator ships from the warehouse with the preset.
  const operator = await inBrowser(cargo.operator);
  const ship = new ShipPage(operator.page);
  const from = ship.group('From');
  await operator.page.waitForFunction(() => document.getElementById('from-name')?.value === 'Acme Warehouse', null, { timeout: T });
  for (const [label, value] of [['Street address', '1 Dock Rd'], ['City', 'Springfield'], ['ZIP code', '62701']]) {
    assert.equal(await from.getByLabel(label, { exact: true }).inputValue(), value, label);
  }
  const picker = operator.page.getByLabel('Saved addresses');
  assert.match(await picker.locator('option:checked').innerText(), /^Main warehouse: Acme Warehouse, 1 Dock Rd/);
  // Saved already: nothing to save again.
  await operator.page.getByRole('button', { name: 'Save this address' }).click();
  await operator.page.getByText('Saved already, as “Main warehouse”.').waitFor({ timeout: T });
  await ship.group('Parcel').getByLabel('Preset').selectOption({ label: PRESET_NAME });
  assert.equal(await ship.group('Parcel').getByLabel('Weight', { exact: true }).inputValue(), '14');
  assert.equal(await ship.group('Parcel').getByLabel('Height (in)').inputValue(), '3');
  await ship.fillAddress('To', RECIPIENT);
  const quoted = operator.page.waitForRequest((r) => r.url().endsWith('/api/v1/rates') && r.method() === 'POST');
  await ship.getRates();
  const asked = (await quoted).postDataJSON();
  assert.deepEqual(asked.parcel, SMALL_BOX);
  assert.deepEqual([asked.from_address.name, asked.from_address.street1, asked.from_address.zip.slice(0, 5)].map((v) => v.toLowerCase()), ['acme warehouse', '1 dock rd', '62701']);
  const bought = operator.page.waitForResponse((r) => r.url().endsWith('/api/v1/labels') && r.request().method() === 'POST');
  await ship.buyFirst();
  await ship.confirmButton().click();
  const label = await (await bought).json();
  assert.match(await ship.trackingNumber(), /\S/);
  assert.equal(label.sandbox, true);

  // A new batch: the sender is the warehouse; the preset fills the rows without a size.
  await operator.menu('Batches').click();
  const b = new Batches(operator.page, { edge });
  await b.newBatch();
  const rows = [1, 2, 3].map((i) => [`#${i}`, `Customer ${i}`, `${i} Elm St`, '', 'Brooklyn', 'NY', '11201', 'US', '', '', i === 3 ? '2' : '', i === 3 ? 'lb' : '', '', '', '', '']);
  await b.upload('orders.csv', csv(TEMPLATE, rows));
  await b.summary().getByText('0 rows ready, 3 with problems.').waitFor({ timeout: T });
  // The sender is the default, once the organization's addresses are read.
  await operator.page.waitForFunction(() => document.getElementById('sender-name')?.value === 'Acme Warehouse', null, { timeout: T });
  assert.equal(await operator.page.getByRole('group', { name: 'Ship from (every row)' }).getByLabel('City', { exact: true }).inputValue(), 'Springfield');
  assert.match(await operator.page.getByLabel('Saved addresses').locator('option:checked').innerText(), /^Main warehouse:/);
  await operator.page.getByLabel('Package preset for the 3 rows with a weight or size problem').selectOption({ label: PRESET_NAME });
  await operator.page.getByRole('button', { name: 'Set for 3 rows' }).first().click();
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  const planned = operator.page.waitForRequest((r) => /\/api\/jobs$/.test(r.url()) && r.method() === 'POST');
  const job = await b.plan();
  const sent = (await planned).postDataJSON().rows;
  assert.deepEqual(sent.map((r) => r.from_address.name), ['Acme Warehouse', 'Acme Warehouse', 'Acme Warehouse']);
  // The preset's size on every row; the row that had a weight keeps it.
  assert.deepEqual(sent.map((r) => r.parcel), [SMALL_BOX, SMALL_BOX, { ...SMALL_BOX, weight_oz: 32 }]);
  const view = await operator.page.evaluate(async (id) => (await fetch(`/api/jobs/${id}/rows`)).json(), job);
  assert.deepEqual(view.rows.map((r) => r.parcel), sent.map((r) => r.parcel), 'the job\'s rows, as they will be quoted');

  // The viewer sees them and cannot change them.
  const viewer = await inBrowser(cargo.viewer);
  await viewer.menu('Addresses & packages').click();
  await viewer.page.getByTestId('read-only').waitFor({ timeout: T });
  await viewer.page.getByRole('table', { name: 'Saved ship-from addresses' }).getByText('Main warehouse').waitFor({ timeout: T });
  await viewer.page.getByText(PRESET_NAME).waitFor();
  for (const name of ['Save address', 'Save preset', /^Edit /, /^Delete /, /^Make .* the default$/]) {
    assert.equal(await viewer.page.getByRole('button', { name }).count(), 0, String(name));
  }
  await axe(viewer.page, 'addresses & packages, read only');

  for (const p of [admin, operator, viewer]) assert.deepEqual(p.errors, []);
  for (const p of [admin, operator, viewer]) await p.context.close();
});

test('in the browser: Ship\'s recipient starts in the default sender\'s country, the US while none is saved', async () => {
  const north = await newOrg('North Freight', ['operator']);
  const { key } = await sim.control('POST', '/__sim/keys', { env: 'sandbox', scopes: ALL_SCOPES, account: `acct_north_${randomBytes(4).toString('hex')}` });
  const keyed = await north.admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
  assert.equal(keyed.status, 200, keyed.text);
  const country = (page) => page.getByRole('group', { name: 'To' }).getByLabel('Country', { exact: true });

  const before = await inBrowser(north.operator);
  // The saved addresses are read (none): the page's own default stands.
  await before.page.getByRole('button', { name: 'Save this address' }).waitFor({ timeout: T });
  assert.equal(await country(before.page).inputValue(), 'US');
  await before.context.close();

  const depot = { name: 'North Depot', street1: '100 King St W', city: 'Toronto', state: 'ON', zip: 'M5X 1A9', country: 'CA' };
  const saved = await north.admin.call('POST', '/api/org/addresses', { label: 'Toronto depot', address: depot });
  assert.equal(saved.status, 201, saved.text);
  const after = await inBrowser(north.operator);
  await after.page.waitForFunction(() => document.getElementById('from-name')?.value === 'North Depot', null, { timeout: T });
  assert.equal(await country(after.page).inputValue(), 'CA');
  assert.deepEqual([...before.errors, ...after.errors], []);
  await after.context.close();
});
