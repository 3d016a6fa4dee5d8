// Importing a batch in Chromium through the real Worker and simulator:
// every problem shown with its row and column, fixed inline and in bulk,
// the rows with problems exported, fixed in a "spreadsheet" and merged
// back by reference; a store export with its own headers mapped and
// remembered; Shopify's export recognised; a 5,001-row file refused before
// anything is sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, screenshot } from './support/browser.mjs';
import { parseCsv } from './support/csv.mjs';
import { T, TEMPLATE, Batches, batchStack, csv, templateRows } from './support/batches.mjs';

let s, browser;
before(async () => {
  s = await batchStack();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await s?.stop();
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
  rows[1][7] = 'USA'; // row 3: not a country code
  rows[2][12] = '40 ft'; // row 4: a unit we do not know
  await b.upload('orders.csv', csv(TEMPLATE, rows));
  await b.summary().getByText('0 ready, 40 with problems.').waitFor({ timeout: T });
  assert.match(await line(page, 2, 'zip').innerText(), /ZIP code \(column “zip”\)[\s\S]*Enter the ZIP code/);
  assert.match(await line(page, 3, 'country').innerText(), /Country \(column “country”\)[\s\S]*Enter the country as a two-letter code, such as US/);
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
  await b.summary().getByText('39 ready, 1 with problems.').waitFor({ timeout: T });

  // In a spreadsheet: the rows with problems out, fixed, back in.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the rows with problems (CSV)' }).click()]);
  assert.equal(file.suggestedFilename(), 'orders-problems.csv');
  const [header, ...bad] = parseCsv(readFileSync(await file.path(), 'utf8'));
  assert.deepEqual(header, [...TEMPLATE, 'problems']);
  assert.equal(bad.length, 1);
  assert.equal(bad[0][0], '#00002');
  assert.equal(bad[0][16], 'country: Enter the country as a two-letter code, such as US');
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

test('a store export with its own headers is mapped once and remembered; Shopify\'s export is recognised, its line items merged and its grams converted', { timeout: 120000 }, async () => {
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
  await page.getByTestId('columns-summary').getByText('3 rows; columns from the mapping you saved for these columns.').waitFor({ timeout: T });
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.equal(await page.getByRole('button', { name: 'Use these columns' }).count(), 0);

  // Shopify: `Name` is the order, further line items carry only it, weights in grams, no sizes.
  const shopify = ['Name', 'Email', 'Financial Status', 'Lineitem name', 'Billing Name', 'Shipping Name', 'Shipping Street', 'Shipping Address1', 'Shipping Address2', 'Shipping City', 'Shipping Zip', 'Shipping Province', 'Shipping Country', 'Total Weight'];
  const order = (n) => [`#10${n}`, `c${n}@example.com`, 'paid', 'Mug', 'Bill', `Shopper ${n}`, `${n} Elm St`, `${n} Elm St`, '', 'Brooklyn', '11201', 'NY', 'US', '500'];
  const item = (n) => [`#10${n}`, '', '', 'Spoon', '', '', '', '', '', '', '', '', '', ''];
  await b.upload('orders_export.csv', csv(shopify, [order(1), item(1), order(2), order(3), item(3)]));
  await page.getByTestId('columns-summary').getByText('5 rows; columns from a Shopify orders export.').waitFor({ timeout: T });
  await b.summary().getByText('3 rows read and checked', { exact: false }).waitFor({ timeout: T });
  assert.match(await b.summary().innerText(), /\(2 further line items merged into their orders\)/);
  for (const side of ['Length', 'Width', 'Height']) {
    await page.getByLabel(new RegExp(`^${side} for the 3 rows`)).fill('6 in');
    await page.getByRole('button', { name: 'Set for 3 rows' }).first().click();
    await page.getByTestId('fix-note').getByText(`${side} set on 3 rows.`).waitFor({ timeout: T });
  }
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  await b.fillSender();
  const id = await b.plan();
  const rows = (await s.json(`/api/jobs/${id}/rows?offset=0&limit=10`)).rows;
  assert.deepEqual(rows.map((r) => [r.reference, r.to_address.name, r.parcel.weight_oz]), [['#101', 'Shopper 1', 17.64], ['#102', 'Shopper 2', 17.64], ['#103', 'Shopper 3', 17.64]]);
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
