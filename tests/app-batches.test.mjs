// The batch screens through the real Worker in workerd, the real simulator
// and Chromium: 5,000 rows imported, planned, confirmed and run to the end
// (the simulator's limits raised), with a reload and a second device during
// the run, the results CSV matched to the simulator's labels row for row,
// and the labels printed as merged PDFs; a review-first batch approved at
// its exact total, failed rows retried, and the browser notification.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { csvRecords } from './support/csv.mjs';
import { RAISED, T, TEMPLATE, Batches, batchStack, csv, templateRows } from './support/batches.mjs';
import { advanceWhileProcessing, untilJob } from './support/jobs.mjs';

let s, browser;
before(async () => {
  s = await batchStack({ limits: RAISED });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await s?.stop();
});

const number = async (locator) => Number((await locator.innerText()).replace(/[^0-9]/g, ''));

/** Watches the job from Node until `done`, moving the simulator's clock while a chunk processes (unless `tick` is false). */
function runUntil(id, done, { during, tick = true } = {}) {
  const advance = advanceWhileProcessing(s);
  return untilJob(s, id, done, {
    every: 1000,
    tick: async (job) => {
      if (tick) await advance(job);
      if (during) await during(job);
    },
  });
}

/** A download's text, from the link or button that starts it. */
async function download(page, click) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), click()]);
  return readFileSync(await file.path());
}

/** The page count of a PDF, from its page tree (the merged file is written uncompressed at object level). */
function pdfPages(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  assert.ok(text.startsWith('%PDF-'), 'a PDF');
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

test('5,000 rows: imported, planned, confirmed, run to the end through a reload and on a second device; the results CSV is the simulator\'s labels row for row; merged PDFs print', { timeout: 900000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  await b.newBatch();
  const undeliverable = Array.from({ length: 20 }, (_, i) => i * 250 + 7);
  await b.upload('orders.csv', csv(TEMPLATE, templateRows(5000, { undeliverable })));
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.match(await b.summary().innerText(), /^5,000 rows read and checked in \d+ ms/);
  await b.fillSender();
  const before = await s.sim.control('GET', '/__sim/accounts/acct_demo');
  const id = await b.plan({ ceiling: 1000000 });
  // The plan: time from the limit, the ceiling, the wallet; nothing spent.
  assert.match(await page.getByTestId('plan-time').innerText(), /^About .+ quoting, .+ making labels$/);
  assert.equal(await page.getByTestId('plan-cost').innerText(), 'At most $1,000,000.00 (your ceilings); exact once quoted');
  assert.equal(await page.getByTestId('wallet').innerText(), 'Wallet: $1,000,000.00, enough for the ceiling ($1,000,000.00).');
  assert.equal(await b.state().innerText(), 'Planned: nothing bought yet');
  assert.equal((await s.sim.control('GET', '/__sim/accounts/acct_demo')).balance_cents, before.balance_cents, 'nothing is bought before the confirmation');
  await screenshot(page, 'batches-plan');
  await page.getByRole('button', { name: 'Confirm: quote and buy' }).click();
  await page.getByTestId('progress').waitFor({ timeout: T });

  // Leaving and coming back mid-run: the page shows the job where it is.
  let other;
  await runUntil(id, (job) => job.counts.bought >= 1000, {
    during: async (job) => { if (job.counts.bought > 0 && !other) other = job; },
  });
  const boughtBefore = (await s.json(`/api/jobs/${id}`)).counts.bought;
  await page.reload();
  await page.getByTestId('progress').waitFor({ timeout: T });
  await page.getByTestId('count-bought').getByText(/Bought: [1-9]/).waitFor({ timeout: T });
  assert.ok(await number(b.count('bought')) >= boughtBefore, 'the reloaded page shows at least what was bought before it');
  assert.match(await page.title(), /^\d+% · orders\.csv · Parcel batches$/);
  // Another device (another browser, another user) sees the same job.
  const device = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const phone = await device.newPage();
  const p = new Batches(phone, s);
  await p.signIn(s.users.admin);
  await phone.getByRole('link', { name: 'orders.csv' }).click();
  await phone.getByTestId('progress').waitFor({ timeout: T });

  const done = await runUntil(id, (job) => job.state === 'completed');
  assert.equal(done.counts.bought, 4980);
  assert.equal(done.counts.failed, 20);
  for (const view of [page, phone]) {
    await view.getByTestId('job-state').getByText('Completed').waitFor({ timeout: T });
    await view.getByTestId('count-bought').getByText('Bought: 4,980').waitFor({ timeout: T });
    await view.getByTestId('count-failed').getByText('Failed: 20').waitFor({ timeout: T });
  }
  assert.equal(await page.title(), 'Done · orders.csv · Parcel batches');
  assert.equal(await page.getByTestId('announcement').innerText(), 'Completed 100%: 4,980 of 5,000 bought, 20 failed.');
  await device.close();

  // The rows: windowed (a few dozen in the page), filtered, with detail.
  const viewport = page.getByTestId('rows-viewport');
  const rendered = () => viewport.locator('tbody tr:not(.spacer)').count();
  assert.ok(await rendered() < 60, `only the rows in view are in the page (${await rendered()})`);
  await viewport.evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await viewport.locator('tr[data-index="4999"]').waitFor({ timeout: T });
  await page.getByRole('button', { name: 'Failed (20)' }).click();
  await viewport.locator('tr[data-state="failed"]').first().waitFor({ timeout: T });
  // Scrolled through, the filter holds exactly the rows that failed.
  const failed = await viewport.evaluate(async (el) => {
    const seen = new Set();
    for (el.scrollTop = 0; ; el.scrollTop += 200) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (const tr of el.querySelectorAll('tbody tr[data-index]')) seen.add(`${tr.dataset.state} ${tr.dataset.index}`);
      if (el.scrollTop + el.clientHeight >= el.scrollHeight) return [...seen];
    }
  });
  assert.deepEqual(failed.sort(), undeliverable.map((i) => `failed ${i}`).sort());
  await viewport.evaluate((el) => { el.scrollTop = 0; });
  await viewport.getByRole('button', { name: 'Details of #00008' }).click();
  const detail = page.getByTestId('row-detail');
  await detail.getByText('LABEL.ADDRESS.UNDELIVERABLE', { exact: false }).waitFor({ timeout: T });
  await page.getByRole('button', { name: 'Bought (4,980)' }).click();
  await viewport.getByRole('button', { name: 'Details of #00001' }).click();
  await detail.getByRole('link', { name: 'Open the label (PDF)' }).waitFor();
  await screenshot(page, 'batches-done');

  // The results CSV, downloaded from the page, against the simulator's labels.
  const records = csvRecords((await download(page, () => page.getByRole('link', { name: 'Download the results (CSV)' }).click())).toString('utf8'));
  assert.equal(records.length, 5000);
  for (const [i, record] of records.entries()) {
    assert.equal(record.reference, `#${String(i + 1).padStart(5, '0')}`);
    if (undeliverable.includes(i)) {
      assert.equal(record.status, 'failed');
      assert.equal(record.error_code, 'LABEL.ADDRESS.UNDELIVERABLE');
      continue;
    }
    const label = await s.label(record.label_id);
    assert.equal(label.tracking_number, record.tracking_number, `row ${i + 1}`);
    assert.equal(label.carrier, record.carrier);
    assert.equal(String(label.rate_cents), record.rate_cents);
  }
  // Printing: 100 labels to a file, 50 files.
  await page.getByRole('link', { name: 'Labels PDF 50 of 50' }).waitFor();
  assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: 'Labels PDF 1 of 50' }).click())), 100);
  assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: 'Labels PDF 50 of 50' }).click())), 80);
  assert.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await context.close();
});

test('review first: the exact total per carrier before anything is bought, approved; failed rows re-quoted and approved again; the merged PDF and the notifications', { timeout: 300000 }, async () => {
  await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
  const context = await browser.newContext({ acceptDownloads: true });
  await context.grantPermissions(['notifications']);
  // The notifications the page shows, recorded where the test can read them.
  await context.addInitScript(() => {
    window.shown = [];
    const Real = window.Notification;
    window.Notification = class extends Real {
      constructor(title, options) { super(title, options); window.shown.push(options?.body); }
    };
    Object.defineProperty(window.Notification, 'permission', { get: () => Real.permission });
    window.Notification.requestPermission = (...a) => Real.requestPermission(...a);
  });
  const page = await context.newPage();
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  await b.newBatch();
  await b.upload('forty.csv', csv(TEMPLATE, templateRows(40)));
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  await b.fillSender();
  const id = await b.plan();
  assert.equal(await page.getByTestId('plan-cost').innerText(), 'Exact after quoting: you approve the total before anything is bought');
  await page.getByRole('button', { name: 'Confirm: start quoting' }).click();
  await runUntil(id, (j) => j.state === 'awaiting_approval', { tick: false });
  await page.getByRole('heading', { name: 'Approve the total' }).waitFor({ timeout: T });
  const job = await s.json(`/api/jobs/${id}`);
  const total = `$${(job.cost.quoted_cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
  assert.equal(await page.getByTestId('exact-total').innerText(), `Every row is quoted: ${total} for 40 labels.`);
  const byCarrier = page.getByRole('table', { name: 'By carrier' });
  // Every row's quote has reached the page (the feed, or the rows read).
  await page.waitForFunction(() => [...document.querySelectorAll('table.breakdown tbody tr')].reduce((t, tr) => t + Number(tr.children[1].innerText), 0) === 40, null, { timeout: T });
  const cells = await byCarrier.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.innerText)));
  const sum = cells.reduce((t, [, , cost]) => t + Number(cost.replace(/[$,.]/g, '')), 0);
  assert.equal(sum, job.cost.quoted_cents, 'the carriers add up to the total');
  assert.equal(cells.reduce((t, [, n]) => t + Number(n), 0), 40);
  await page.getByRole('button', { name: 'Approve and buy' }).click();
  await page.getByTestId('progress').waitFor({ timeout: T });
  await page.getByLabel('Notify me when the batch ends or needs me').check();
  await runUntil(id, (j) => j.chunks.some((c) => c.state === 'processing'), { tick: false });
  // Twenty labels are made; then every carrier fails for the other twenty.
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
  await s.sim.control('PUT', '/__sim/faults', { carrier_errors: ['Pacific Post', 'Atlas Freight', 'Comet Express', 'Harbor Parcel'] });
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
  await s.sim.control('PUT', '/__sim/faults', {});
  await runUntil(id, (j) => j.state === 'completed', { tick: false });
  await page.getByTestId('count-failed').getByText('Failed: 20').waitFor({ timeout: T });
  await page.getByTestId('job-state').getByText('Completed').waitFor({ timeout: T });
  assert.deepEqual(await page.evaluate(() => window.shown), ['forty.csv: 20 bought, 20 failed.']);
  await page.getByRole('button', { name: 'Retry the 20 failed rows' }).click();
  // Review first holds for the retry too: the 20 rows' new total is approved first.
  await runUntil(id, (j) => j.state === 'awaiting_approval', { tick: false });
  await page.getByRole('heading', { name: 'Approve the total' }).waitFor({ timeout: T });
  const requoted = await s.json(`/api/jobs/${id}`);
  assert.equal(requoted.counts.bought, 20, 'nothing bought before the new approval');
  const retryTotal = `$${(requoted.cost.quoted_cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
  assert.equal(await page.getByTestId('exact-total').innerText(), `Every row is quoted: ${retryTotal} for 20 labels.`);
  await page.getByRole('button', { name: 'Approve and buy' }).click();
  await runUntil(id, (j) => j.state === 'completed' && j.counts.bought === 40);
  await page.getByTestId('count-bought').getByText('Bought: 40').waitFor({ timeout: T });
  await page.getByTestId('count-failed').getByText('Failed: 0').waitFor({ timeout: T });
  assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: 'Labels PDF 1 of 1' }).click())), 40);
  await page.waitForFunction(() => window.shown.length === 3, null, { timeout: T });
  assert.deepEqual(await page.evaluate(() => window.shown.slice(1)), ['forty.csv: every row is quoted; approve the total to buy.', 'forty.csv: 40 bought, 0 failed.']);
  await screenshot(page, 'batches-retried');
  await s.sim.control('POST', '/__sim/clock/freeze', { frozen: false });
  await context.close();
});
