// Importing a batch in Chromium through the real Worker and simulator:
// every problem shown with its row and column, fixed inline and in bulk,
// the rows with problems exported, fixed in a "spreadsheet" and merged
// back by reference; a store export with its own headers mapped and
// remembered; the stores' own exports (Shopify, WooCommerce, Etsy) read as
// they are, names and all, with problems only where a value is missing or
// impossible; a file of many wrong countries fixed one value at a time; a
// 5,001-row file refused before anything is sent. As an organization's
// operator on the shared stack.
import { test, before, after } from 'node:test';
import { sharedStack } from './support/stack.mjs';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, screenshot } from './support/browser.mjs';
import { parseCsv } from './support/csv.mjs';
import { T, TEMPLATE, Batches, batchesOn, csv, templateRows } from './support/batches.mjs';
import { ETSY_HEADER, SHOPIFY_HEADER, US_PLACES, WOO_HEADER, etsyRows, shopifyOrder, wooRows } from './support/exports.mjs';

const shared = await sharedStack();
let s, browser;
before(async () => {
  s = await batchesOn(shared);
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function open() {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  await b.newBatch();
  return { context, page, b };
}

/** The problem line of a row (its spreadsheet row number) and field. */
const line = (page, row, field) => page.locator(`tr[data-row="${row}"][data-field="${field}"]`);

test('bad rows: each problem with its row and column; fixed inline, in bulk, and in a spreadsheet merged back by reference; then planned with nothing lost', { timeout: 120000 }, async () => {
  const { context, page, b } = await open();
  const rows = templateRows(40);
  for (let i = 0; i < 37; i++) rows[i + 3][10] = ''; // rows 5 to 41: no weight
  rows[0][6] = ''; // row 2: no ZIP code
  rows[1][7] = 'Untied States'; // row 3: a country nobody has
  rows[2][12] = '40 ft'; // row 4: a unit we do not know
  await b.upload('orders.csv', csv(TEMPLATE, rows));
  await b.summary().getByText('0 rows ready, 40 with problems.').waitFor({ timeout: T });
  assert.match(await line(page, 2, 'zip').innerText(), /ZIP code \(column “zip”\)[\s\S]*Enter the ZIP code/);
  assert.match(await line(page, 3, 'country').innerText(), /Country \(column “country”\)[\s\S]*“Untied States” is not a country we know: enter its two-letter code or its name/);
  assert.match(await line(page, 4, 'length').innerText(), /“ft” is not a unit we know: use in or cm/);
  assert.match(await line(page, 5, 'weight').innerText(), /Weight \(column “weight”\)[\s\S]*Enter the weight/);
  await screenshot(page, 'batches-problems');

  // Inline: the row's value, fixed where the problem is shown.
  await page.getByLabel('Row 2 ZIP code').fill('11201');
  await page.getByLabel('Row 2 ZIP code').press('Enter');
  await page.getByTestId('fix-note').getByText('Row 2: ZIP code fixed.').waitFor({ timeout: T });
  await line(page, 2, 'zip').waitFor({ state: 'detached' });
  await page.getByLabel('Row 4 Length').fill('30 cm');
  await page.getByLabel('Row 4 Length').press('Tab');
  await line(page, 4, 'length').waitFor({ state: 'detached' });
  // In bulk: the weight of these 37 rows.
  await page.getByLabel(/^Weight for the 37 rows with a weight problem/).fill('1.5 lb');
  await page.getByRole('button', { name: 'Set for 37 rows' }).click();
  await page.getByTestId('fix-note').getByText('Weight set on 37 rows.').waitFor({ timeout: T });
  await b.summary().getByText('39 rows ready, 1 with problems.').waitFor({ timeout: T });

  // In a spreadsheet: the rows with problems out, fixed, back in.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the rows with problems (CSV)' }).click()]);
  assert.equal(file.suggestedFilename(), 'orders-problems.csv');
  const [header, ...bad] = parseCsv(readFileSync(await file.path(), 'utf8'));
  assert.deepEqual(header, [...TEMPLATE, 'problems']);
  assert.equal(bad.length, 1);
  assert.equal(bad[0][0], '#00002');
  assert.equal(bad[0][16], 'country: “Untied States” is not a country we know: enter its two-letter code or its name, such as US or United States');
  bad[0][7] = 'US';
  await b.upload('orders-problems.csv', csv(header, bad), 'Import the fixed rows (merged by reference)');
  await page.getByTestId('fix-note').getByText('1 row merged by reference.', { exact: false }).waitFor({ timeout: T });
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });

  // Planned: the job holds every row with its fixes, in contract units.
  await b.fillSender();
  const id = await b.plan();
  const page1 = await s.json(`/api/jobs/${id}/rows?offset=0&limit=1000`);
  assert.equal(page1.total, 40);
  const by = Object.fromEntries(page1.rows.map((r) => [r.reference, r]));
  assert.equal(by['#00001'].to_address.zip, '11201');
  assert.equal(by['#00002'].to_address.country, 'US');
  assert.equal(by['#00003'].parcel.length, 11.81);
  assert.equal(by['#00004'].parcel.weight_oz, 24);
  assert.equal(by['#00001'].parcel.weight_oz, 10);
  assert.equal((await s.json(`/api/jobs/${id}`)).state, 'planned');
  await page.getByRole('button', { name: 'Discard this plan' }).click();
  await b.state().getByText('Cancelled').waitFor({ timeout: T });
  await context.close();
});

test('a store export with its own headers is mapped once and remembered; Shopify\'s export is recognised, its line items merged and its ZIP codes\' apostrophes taken off', { timeout: 120000 }, async () => {
  const { context, page, b } = await open();
  const header = ['Auftrag', 'Empfänger', 'Strasse', 'Ort', 'Bundesland', 'PLZ', 'Land', 'Gewicht kg', 'L', 'B', 'H'];
  const row = (n) => [`A-${n}`, `Kunde ${n}`, `${n} Elm St`, 'Brooklyn', 'NY', '11201', 'US', '0,5', '30', '20', '10'];
  await b.upload('export.csv', csv(header, [row(1), row(2)]));
  await page.getByTestId('columns-summary').getByText('These columns are new to us', { exact: false }).waitFor({ timeout: T });
  const choose = ['reference', 'name', 'street1', 'city', 'state', 'zip', 'country', 'weight', 'length', 'width', 'height'];
  for (const [i, h] of header.entries()) await page.getByLabel(h, { exact: true }).selectOption(choose[i]);
  await page.getByLabel('Weights without a unit are in').selectOption('kg');
  await page.getByLabel('Sizes without a unit are in').selectOption('cm');
  await screenshot(page, 'batches-mapper');
  await page.getByRole('button', { name: 'Use these columns' }).click();
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.match(await line(page, 2, 'weight').count().then(String), /^0$/);

  // Next week's export: the same headers, other orders. No mapping asked.
  await page.reload();
  await page.getByRole('heading', { name: 'New batch' }).waitFor({ timeout: T });
  await b.upload('export-2.csv', csv(header, [row(3), row(4), row(5)]));
  await page.getByTestId('columns-summary').getByText('3 lines; columns from the mapping you saved for these columns.').waitFor({ timeout: T });
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.equal(await page.getByRole('button', { name: 'Use these columns' }).count(), 0);

  // Shopify's own export: `Name` is the order, further line items are rows
  // of their own, ZIP codes carry an apostrophe, no weight or sizes.
  const shopify = [...shopifyOrder(1, US_PLACES[4], ['Mug', 'Spoon']), ...shopifyOrder(2, US_PLACES[1]), ...shopifyOrder(3, US_PLACES[0], ['Mug', 'Tea'])];
  await b.upload('orders_export.csv', csv(SHOPIFY_HEADER, shopify));
  // The file's five lines are three orders: each count says which it counts.
  await page.getByTestId('columns-summary').getByText('5 lines; columns from a Shopify orders export.').waitFor({ timeout: T });
  await b.summary().getByText('5 lines read into 3 rows: 2 further line items merged into their orders, checked in', { exact: false }).waitFor({ timeout: T });
  const summary = await b.summary().innerText();
  assert.match(summary, /0 rows ready, 3 with problems\./);
  assert.match(summary, /3 ZIP codes began with a spreadsheet's apostrophe \(such as '02134\): taken off\./);
  await bulkOnly(page, ['Weight', 'Length', 'Width', 'Height']);
  await fillSizes(page, b, 3);
  await b.fillSender();
  const id = await b.plan();
  const rows = (await s.json(`/api/jobs/${id}/rows?offset=0&limit=10`)).rows;
  assert.deepEqual(rows.map((r) => [r.reference, r.to_address.name, r.to_address.zip, r.to_address.state, r.parcel.weight_oz]), [
    ['#101', 'Shopper 1', '02134', 'MA', 8], ['#102', 'Shopper 2', '10016', 'NY', 8], ['#103', 'Shopper 3', '33139', 'FL', 8],
  ]);
  await context.close();
});

/** The bulk fixes offered are exactly these fields' (no address problem among them). */
async function bulkOnly(page, fields) {
  const labels = await page.locator('form.bulk-fix label').allInnerTexts();
  assert.deepEqual(labels.map((l) => l.split(' for ')[0]), fields, labels.join('\n'));
}

/** Weight and sizes for the `n` rows of an export that has none. */
async function fillSizes(page, b, n) {
  for (const [side, value] of [['Weight', '8 oz'], ['Length', '6 in'], ['Width', '6 in'], ['Height', '6 in']]) {
    const input = page.getByLabel(new RegExp(`^${side} for the ${n} rows`));
    await input.fill(value);
    await input.press('Enter');
    await page.getByTestId('fix-note').getByText(`${side} set on ${n} rows.`).waitFor({ timeout: T });
  }
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
}

test('WooCommerce\'s export: the state code column is taken over the state names, item rows merge into their orders, and only the missing weight and sizes are problems', { timeout: 120000 }, async () => {
  const { context, page, b } = await open();
  await b.upload('orders-export.csv', csv(WOO_HEADER, wooRows(45)));
  await page.getByTestId('columns-summary').getByText('54 lines; columns from a WooCommerce orders export.').waitFor({ timeout: T });
  await b.summary().getByText('54 lines read into 45 rows: 9 further line items merged into their orders, checked in', { exact: false }).waitFor({ timeout: T });
  const summary = await b.summary().innerText();
  assert.doesNotMatch(summary, /state names/, 'the codes were taken as they are');
  assert.match(summary, /0 rows ready, 45 with problems\./);
  await bulkOnly(page, ['Weight', 'Length', 'Width', 'Height']);
  await screenshot(page, 'batches-woocommerce');
  await fillSizes(page, b, 45);
  await b.fillSender();
  const id = await b.plan();
  const { rows, total } = await s.json(`/api/jobs/${id}/rows?offset=0&limit=100`);
  assert.equal(total, 45);
  rows.forEach((r, i) => {
    const [, code, zip] = US_PLACES[(i + 1) % US_PLACES.length];
    assert.deepEqual([r.reference, r.to_address.name, r.to_address.state, r.to_address.zip, r.to_address.country], [String(3001 + i), `Ada Buyer${i + 1}`, code, zip, 'US']);
  });
  await context.close();
});

test('Etsy\'s Sold Orders: "United States" is read as US on every row; a Canadian province on a US row is the one address problem, fixed by name', { timeout: 120000 }, async () => {
  const { context, page, b } = await open();
  const rows = etsyRows(30);
  rows[0][12] = 'ON'; // row 2: Ontario's code, on an order to the United States
  await b.upload('EtsySoldOrders2026-11.csv', csv(ETSY_HEADER, rows));
  await page.getByTestId('columns-summary').getByText('30 lines; columns from an Etsy orders export.').waitFor({ timeout: T });
  await b.summary().getByText('Read 30 country names as codes (such as United States → US).', { exact: false }).waitFor({ timeout: T });
  await bulkOnly(page, ['State', 'Weight', 'Length', 'Width', 'Height']);
  assert.equal(await page.locator('form.bulk-fix label').first().innerText(), 'State for the 1 row with “ON” in US (a code or a name: CA, California)');
  assert.match(await line(page, 2, 'state').innerText(), /“ON” is not a US state or territory/);
  await page.getByLabel('Row 2 State').fill('Oregon');
  await page.getByLabel('Row 2 State').press('Enter');
  await page.getByTestId('fix-note').getByText('Row 2: State fixed.', { exact: false }).waitFor({ timeout: T });
  await fillSizes(page, b, 30);
  await b.fillSender();
  const id = await b.plan();
  const planned = (await s.json(`/api/jobs/${id}/rows?offset=0&limit=100`)).rows;
  assert.equal(planned.length, 30);
  assert.ok(planned.every((r) => r.to_address.country === 'US'));
  assert.equal(planned[0].to_address.state, 'OR');
  assert.equal(planned[4].to_address.zip, '02134');
  await context.close();
});

test('a file of many wrong countries is fixed one wrong value at a time, not one row at a time', { timeout: 60000 }, async () => {
  const { context, page, b } = await open();
  const rows = templateRows(10);
  for (const i of [0, 1, 2]) rows[i][7] = 'Untied States';
  for (const i of [3, 4]) Object.assign(rows[i], { 5: 'ON', 6: 'M5V 2T6', 7: 'Canda' });
  rows[5][7] = '';
  for (const i of [6, 7, 8, 9]) rows[i][7] = 'United States';
  await b.upload('mixed.csv', csv(TEMPLATE, rows));
  await b.summary().getByText('4 rows ready, 6 with problems.', { exact: false }).waitFor({ timeout: T });
  assert.match(await b.summary().innerText(), /Read 4 country names as codes \(such as United States → US\)\./);
  for (const [label, value, n] of [[/^Country for the 3 rows with “Untied States”/, 'United States', 3], [/^Country for the 2 rows with “Canda”/, 'Canada', 2], [/^Country for the 1 row without one/, 'us', 1]]) {
    await page.getByLabel(label).fill(value);
    await page.getByLabel(label).press('Enter');
    await page.getByTestId('fix-note').getByText(`Country set on ${n} row${n > 1 ? 's' : ''}.`).waitFor({ timeout: T });
  }
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  await context.close();
});

test('a 5,001-row file is refused before anything is sent, with its count', { timeout: 60000 }, async () => {
  const { context, page, b } = await open();
  const sent = [];
  page.on('request', (r) => { if (r.url().includes('/api/jobs') && r.method() !== 'GET') sent.push(r.url()); });
  await b.upload('big.csv', csv(TEMPLATE, templateRows(5001)));
  const refusal = page.getByTestId('import-refused');
  await refusal.waitFor({ timeout: T });
  assert.equal(await refusal.innerText(), 'This file has 5,001 rows. A batch takes at most 5,000: split the file and import each part.');
  assert.equal(await refusal.getAttribute('role'), 'alert');
  assert.equal(await page.getByRole('button', { name: 'Plan the batch' }).count(), 0, 'nothing to plan');
  assert.deepEqual(sent, []);
  // The same rows less one are taken.
  await b.upload('big.csv', csv(TEMPLATE, templateRows(5000)));
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.equal(await refusal.count(), 0);
  await context.close();
});
