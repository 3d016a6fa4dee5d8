// The batch screens' accessibility: axe-core finds no serious or critical
// violation on any of them, at phone and desktop width, light and dark, and
// nothing scrolls sideways; the whole flow, from the file to the row's detail,
// works from the keyboard. As an organization's members on the shared stack.
import { test, before, after } from 'node:test';
import { sharedStack } from './support/stack.mjs';
import assert from 'node:assert/strict';
import { axeEveryWay, launch, screenshot } from './support/browser.mjs';
import { RAISED, SENDER, T, TEMPLATE, Batches, batchesOn, csv, templateRows } from './support/batches.mjs';
import { advanceWhileProcessing, untilJob } from './support/jobs.mjs';

const shared = await sharedStack();
let s, browser;
const jobs = {};

/** A job made through the API, as the screens would. */
async function job(name, approval, rows) {
  const body = rows.map((r) => ({
    reference: r[0], from_address: SENDER,
    to_address: { name: r[1], street1: r[2], city: r[4], state: r[5], zip: r[6], country: r[7] },
    parcel: { weight_oz: Number(r[10]), length: 10, width: 8, height: 4 },
  }));
  return s.json('/api/jobs', { method: 'POST', body: JSON.stringify({ name, rule: { rule: 'cheapest' }, approval, rows: body }) });
}

const until = (id, done) => untilJob(s, id, done, { tick: advanceWhileProcessing(s) });

before(async () => {
  s = await batchesOn(shared, { limits: RAISED });
  browser = await launch();
  const review = { approval: 'review_first' };
  jobs.planned = (await job('planned.csv', review, templateRows(30))).id;
  jobs.approval = (await job('approval.csv', review, templateRows(30))).id;
  await s.json(`/api/jobs/${jobs.approval}/start`, { method: 'POST' });
  await until(jobs.approval, (j) => j.state === 'awaiting_approval');
  jobs.done = (await job('done.csv', { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 10000000 }, templateRows(30, { undeliverable: [2, 5] }))).id;
  await s.json(`/api/jobs/${jobs.done}/start`, { method: 'POST' });
  await until(jobs.done, (j) => j.state === 'completed');
});
after(async () => {
  await browser?.close();
});

const SCREENS = [
  ['batches-list', async (page, b) => {
    await page.goto(`${s.edge.url}/batches`);
    await page.getByRole('link', { name: 'done.csv' }).waitFor({ timeout: T });
  }],
  ['batches-new-problems', async (page, b) => {
    await page.goto(`${s.edge.url}/batches/new`);
    const rows = templateRows(12);
    rows[1][6] = '';
    rows[4][10] = '';
    rows[5][10] = '';
    await b.upload('orders.csv', csv(TEMPLATE, rows));
    await b.summary().getByText('3 with problems', { exact: false }).waitFor({ timeout: T });
  }],
  ['batches-new-mapper', async (page, b) => {
    await page.goto(`${s.edge.url}/batches/new`);
    await b.upload('own.csv', csv(['Auftrag', 'Empfänger', 'Strasse'], [['1', 'A', 'B']]));
    await page.getByRole('button', { name: 'Use these columns' }).waitFor({ timeout: T });
  }],
  ['batches-plan', async (page) => {
    await page.goto(`${s.edge.url}/batches/${jobs.planned}`);
    await page.getByRole('heading', { name: 'The plan' }).waitFor({ timeout: T });
  }],
  ['batches-approve', async (page) => {
    await page.goto(`${s.edge.url}/batches/${jobs.approval}`);
    await page.getByRole('table', { name: 'By carrier' }).waitFor({ timeout: T });
  }],
  ['batches-done', async (page) => {
    await page.goto(`${s.edge.url}/batches/${jobs.done}`);
    await page.getByRole('link', { name: 'Labels PDF 1 of 1' }).waitFor({ timeout: T });
    await page.getByRole('button', { name: 'Failed (2)' }).click();
    await page.getByRole('button', { name: 'Details of #00003' }).click();
    await page.getByTestId('row-detail').waitFor();
  }],
];

test('every batch screen, at phone and desktop width, light and dark: no serious or critical axe violation, no sideways scrolling', { timeout: 180000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const b = new Batches(page, s);
  await b.signIn(s.users.admin);
  for (const [name, show] of SCREENS) {
    await show(page, b);
    await axeEveryWay(page, name);
    await screenshot(page, `${name}-desktop`);
  }
  await context.close();
});

test('keyboard: from the menu to a planned, started batch and a row\'s detail without the mouse', { timeout: 180000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  const tabTo = async (locator, max = 60) => {
    for (let i = 0; i < max; i++) {
      if (await locator.evaluate((el) => el === document.activeElement).catch(() => false)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${locator}`);
  };
  await tabTo(page.getByRole('link', { name: 'New batch' }));
  await page.keyboard.press('Enter');
  const input = page.getByLabel('Choose a file, or drop it here');
  await input.waitFor({ timeout: T });
  // Listening before the key press: Playwright turns on the browser's file
  // chooser interception when a listener is added, and a press that overtakes
  // that (a loaded machine) opens a chooser nobody sees.
  const chosen = page.waitForEvent('filechooser', { timeout: 0 }); // bounded by the test's own budget
  await tabTo(input);
  const rows = templateRows(6);
  rows[2][6] = '';
  rows[3][10] = '';
  rows[4][10] = '';
  await page.keyboard.press('Space');
  const chooser = await chosen;
  await chooser.setFiles({ name: 'keys.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(TEMPLATE, rows)) });
  await b.summary().getByText('3 with problems', { exact: false }).waitFor({ timeout: T });
  // In bulk: the two weights; the form submits with Enter.
  await tabTo(page.getByLabel(/^Weight for the 2 rows/));
  await page.keyboard.type('2 lb');
  await page.keyboard.press('Enter');
  await page.getByTestId('fix-note').getByText('Weight set on 2 rows.').waitFor({ timeout: T });
  // Inline: the ZIP code, in its row.
  await tabTo(page.getByLabel('Row 4 ZIP code'));
  await page.keyboard.type('11201');
  await page.keyboard.press('Tab');
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  const sender = page.getByRole('group', { name: 'Ship from (every row)' });
  for (const [label, value] of [['Name', SENDER.name], ['Street address', SENDER.street1], ['City', SENDER.city], ['State', SENDER.state], ['ZIP code', SENDER.zip]]) {
    await tabTo(sender.getByLabel(label, { exact: true }));
    await page.keyboard.type(value);
  }
  await tabTo(page.getByRole('button', { name: 'Plan the batch' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'The plan' }).waitFor({ timeout: T });
  await tabTo(page.getByRole('button', { name: 'Confirm: start quoting' }));
  await page.keyboard.press('Enter');
  await until(new URL(page.url()).pathname.split('/').pop(), (j) => j.state === 'awaiting_approval');
  await page.getByRole('heading', { name: 'Approve the total' }).waitFor({ timeout: T });
  await tabTo(page.getByRole('button', { name: 'Approve and buy' }));
  await page.keyboard.press('Enter');
  await page.getByTestId('progress').waitFor({ timeout: T });
  // The rows: the scrolling region takes focus, a row's detail opens from it.
  await tabTo(page.getByTestId('rows-viewport'));
  const before = await page.getByTestId('rows-viewport').evaluate((el) => el.scrollTop);
  await page.keyboard.press('PageDown');
  await tabTo(page.getByRole('button', { name: 'Details of #00001' }), 20).catch(async () => {
    await page.getByTestId('rows-viewport').evaluate((el) => { el.scrollTop = 0; });
    await tabTo(page.getByRole('button', { name: 'Details of #00001' }));
  });
  assert.ok(before >= 0);
  await page.keyboard.press('Enter');
  const heading = page.getByRole('heading', { name: 'Row 1: #00001' });
  await heading.waitFor({ timeout: T });
  assert.equal(await heading.evaluate((el) => el === document.activeElement), true, 'focus moves to the row detail');
  await context.close();
});
