// The batch screens' tests and benchmark: an organization whose keys'
// limits are raised (as tests/jobs.test.mjs has it), the rows of an import
// as CSV, the page objects of /batches, and a batch run to the end in the
// screens (`batchToTheEnd`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RAISED_LIMITS, signInPage } from './stack.mjs';
import { App, ShipPage } from './pages.mjs';
import { screenshot, watchProblems } from './browser.mjs';
import { csvRecords } from './csv.mjs';
import { jobsOn, pdfPages, untilJob } from './jobs.mjs';

export const T = 20000;
/** Limits high enough that 5,000 rows are not held up by the table's. */
export const RAISED = RAISED_LIMITS;

/**
 * An organization of `stack` (`jobsOn`: its operator's job API, its
 * account funded) with keys of `limits`; `label(id)` reads a label at the
 * simulator with its live key.
 */
export async function batchesOn(stack, options) {
  const s = await jobsOn(stack, options);
  s.label = async (id) => (await fetch(`${s.sim.url}/v1/labels/${id}`, { headers: { authorization: `Bearer ${s.keys.live}` } })).json();
  return s;
}

export const TEMPLATE = ['reference', 'name', 'street1', 'street2', 'city', 'state', 'zip', 'country', 'phone', 'email', 'weight', 'weight_unit', 'length', 'width', 'height', 'dimension_unit'];

const quote = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));
export const csv = (header, rows) => [header, ...rows].map((r) => r.map(quote).join(',')).join('\n') + '\n';

/** `n` distinct shipments in our template; `undeliverable` rows fail when their labels are made. */
export function templateRows(n, { undeliverable = [] } = {}) {
  return Array.from({ length: n }, (_, i) => [
    `#${String(i + 1).padStart(5, '0')}`, `Customer ${i + 1}`, `${i + 1} ${undeliverable.includes(i) ? 'UNDELIVERABLE ' : ''}Elm St`, '',
    'Brooklyn', 'NY', '11201', 'US', '', '', String(10 + (i % 7)), 'oz', '10', '8', '4', 'in',
  ]);
}

export const SENDER = { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };

/** The batch screens as a merchant uses them. */
export class Batches {
  constructor(page, s) { this.page = page; this.s = s; }
  async signIn(user) {
    await signInPage(this.page, { edge: this.s.edge }, user);
    await new App(this.page, this.s).nav('Batches');
    await this.page.getByRole('heading', { name: 'Batches', exact: true }).waitFor({ timeout: T });
  }
  async newBatch() {
    await this.page.getByRole('link', { name: 'New batch' }).click();
    await this.page.getByRole('heading', { name: 'New batch' }).waitFor({ timeout: T });
  }
  async upload(name, text, label = 'Choose a file, or drop it here') {
    await this.page.getByLabel(label).setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
  }
  summary() { return this.page.getByTestId('rows-summary'); }
  /** The sender form is the dashboard's address form. */
  fillSender(a = SENDER) { return new ShipPage(this.page).fillAddress('Ship from (every row)', a); }
  /** Plans the batch; `ceiling` in dollars picks "buy as quoted". Returns the job id. */
  async plan({ ceiling } = {}) {
    if (ceiling) {
      await this.page.getByLabel('Buy as quoted, within a ceiling').check();
      await this.page.getByLabel('At most per label ($)').fill('1000');
      await this.page.getByLabel('At most in all ($)').fill(String(ceiling));
    }
    await this.page.getByRole('button', { name: 'Plan the batch' }).click();
    await this.page.getByRole('heading', { name: 'The plan' }).waitFor({ timeout: 60000 });
    return new URL(this.page.url()).pathname.split('/').pop();
  }
  state() { return this.page.getByTestId('job-state'); }
  count(name) { return this.page.getByTestId(`count-${name}`); }
}

const number = async (locator) => Number((await locator.innerText()).replace(/[^0-9]/g, ''));
const counted = (n) => n.toLocaleString('en-US');

/**
 * Watches the job from Node until `done`, moving the simulator's clock by
 * `seconds` (a minute unless said) while a chunk processes, unless `tick`
 * is false; `during(job)` runs between polls.
 */
export function runUntil(s, id, done, { during, tick = true, seconds = 60 } = {}) {
  return untilJob(s, id, done, {
    every: 1000,
    tick: async (job) => {
      if (tick && job.chunks.some((c) => c.state === 'processing')) await s.sim.control('POST', '/__sim/clock/advance', { seconds });
      if (during) await during(job);
    },
  });
}

/** A download's bytes, from the link or button that starts it. */
export async function download(page, click) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), click()]);
  return readFileSync(await file.path());
}

/**
 * `n` rows (`undeliverable` of them failing in processing; 7 among them)
 * imported, planned, confirmed and run to the end in the batch screens of
 * `browser` (`s` from `batchesOn`, raised limits), through a reload and on
 * a second device; the results CSV is the simulator's labels row for row;
 * merged PDFs of 100 print. The test command runs it on a few hundred
 * rows; tests/bench/jobs-scale.mjs on 5,000.
 */
export async function batchToTheEnd(browser, s, n, undeliverable) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  await b.newBatch();
  await b.upload('orders.csv', csv(TEMPLATE, templateRows(n, { undeliverable })));
  await b.summary().getByText('Every row is ready.').waitFor({ timeout: T });
  assert.match(await b.summary().innerText(), new RegExp(`^${counted(n)} lines read, one row each, checked in \\d+ ms`));
  await b.fillSender();
  const before = await s.account();
  const id = await b.plan({ ceiling: 1000000 });
  // The plan: time from the limit, the ceiling (the lower of $1,000 a
  // label and $1,000,000 in all), the wallet; nothing spent.
  const ceiling = `$${counted(Math.min(1000 * n, 1_000_000))}.00`;
  assert.match(await page.getByTestId('plan-time').innerText(), /^About .+ quoting, .+ making labels$/);
  assert.equal(await page.getByTestId('plan-cost').innerText(), `At most ${ceiling} (your ceilings); exact once quoted`);
  assert.equal(await page.getByTestId('wallet').innerText(), `Wallet: $1,000,000.00, enough for the ceiling (${ceiling}).`);
  assert.equal(await b.state().innerText(), 'Planned: nothing bought yet');
  assert.equal((await s.account()).balance_cents, before.balance_cents, 'nothing is bought before the confirmation');
  await screenshot(page, 'batches-plan');
  // The simulator's clock stands still while the job runs, so it is
  // mid-run for as long as the test needs: its batch makes labels (20 a
  // simulated second) as the test moves the clock, a tenth of the rows a step.
  const seconds = Math.max(1, Math.ceil(n / 20 / 10));
  await s.sim.frozen(async () => {
    await page.getByRole('button', { name: 'Confirm: quote and buy' }).click();
    await page.getByTestId('progress').waitFor({ timeout: T });

    // Leaving and coming back mid-run: the page shows the job where it is.
    await runUntil(s, id, (job) => job.counts.bought >= n / 5, { seconds });
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

    const bought = n - undeliverable.length;
    const done = await runUntil(s, id, (job) => job.state === 'completed', { seconds });
    assert.equal(done.counts.bought, bought);
    assert.equal(done.counts.failed, undeliverable.length);
    for (const view of [page, phone]) {
      await view.getByTestId('job-state').getByText('Completed').waitFor({ timeout: T });
      await view.getByTestId('count-bought').getByText(`Bought: ${counted(bought)}`).waitFor({ timeout: T });
      await view.getByTestId('count-failed').getByText(`Failed: ${undeliverable.length}`).waitFor({ timeout: T });
    }
    assert.equal(await page.title(), 'Done · orders.csv · Parcel batches');
    assert.equal(await page.getByTestId('announcement').innerText(), `Completed 100%: ${counted(bought)} of ${counted(n)} bought, ${undeliverable.length} failed.`);
    await device.close();

    // The rows: windowed (a few dozen in the page), filtered, with detail.
    const viewport = page.getByTestId('rows-viewport');
    const rendered = () => viewport.locator('tbody tr:not(.spacer)').count();
    assert.ok(await rendered() < 60, `only the rows in view are in the page (${await rendered()})`);
    await viewport.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await viewport.locator(`tr[data-index="${n - 1}"]`).waitFor({ timeout: T });
    await page.getByRole('button', { name: `Failed (${undeliverable.length})` }).click();
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
    await page.getByRole('button', { name: `Bought (${counted(bought)})` }).click();
    await viewport.getByRole('button', { name: 'Details of #00001' }).click();
    await detail.getByRole('link', { name: 'Open the label (PDF)' }).waitFor();
    await screenshot(page, 'batches-done');

    // The results CSV, downloaded from the page, against the simulator's labels.
    const records = csvRecords((await download(page, () => page.getByRole('link', { name: 'Download the results (CSV)' }).click())).toString('utf8'));
    assert.equal(records.length, n);
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
    // Printing: 100 labels to a file.
    const parts = Math.ceil(bought / 100);
    await page.getByRole('link', { name: `Labels PDF ${parts} of ${parts}` }).waitFor();
    assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: `Labels PDF 1 of ${parts}` }).click())), Math.min(100, bought));
    assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: `Labels PDF ${parts} of ${parts}` }).click())), bought - 100 * (parts - 1));
  });
  assert.deepEqual(problems.filter((pr) => !pr.includes('401')), []);
  await context.close();
}
