// A chunk whose batch creation got no clear answer, as the merchant meets it
// in the batch screens (real Worker in workerd, real simulator, Chromium):
// the job stops saying what the wallet did; released rows are kept apart
// from the failed ones (no bulk retry takes them); buying one again shows
// the chunk's total and the wallet before and after, says plainly that the
// balance moved by exactly that total, and needs the merchant's tick.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { RAISED, T, batchStack } from './support/batches.mjs';
import { advanceWhileProcessing, untilJob } from './support/jobs.mjs';
import { signInPage } from './support/stack.mjs';

let s, browser;
before(async () => {
  // Creations answer after the Worker's timeout: the outcome is unknown, yet they take.
  s = await batchStack({ limits: RAISED, vars: { UPSTREAM_TIMEOUT_MS: '1500' } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await s?.stop();
});

const address = (name, street1) => ({ name, street1, city: 'Brooklyn', state: 'NY', zip: '11201', country: 'US' });
const rows = Array.from({ length: 3 }, (_, i) => ({
  reference: `#R${i + 1}`,
  from_address: address('Ada Shop Inc', '500 Market St Suite 3'),
  to_address: address(`Customer ${i + 1}`, `${i + 1} Elm St`),
  parcel: { weight_oz: 12, length: 10, width: 8, height: 4 },
}));

test('released rows: kept apart, no bulk retry; one row bought again only after the wallet is shown and the merchant ticks', { timeout: 180000 }, async () => {
  await s.sim.control('PUT', '/__sim/faults', { latency_ms: 2500, latency_endpoints: ['POST /v1/batches'] });
  const job = await s.json('/api/jobs', {
    method: 'POST',
    body: JSON.stringify({ name: 'lost.csv', rule: { rule: 'cheapest' }, approval: { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 10000000 }, rows }),
  });
  await s.json(`/api/jobs/${job.id}/start`, { method: 'POST' });
  // The job's own signal: stopped, with the wallet read after the lost creation.
  const stopped = await untilJob(s, job.id, (j) => j.state === 'stopped' && j.problem?.wallet_after_cents != null);
  await s.sim.control('PUT', '/__sim/faults', {});
  const { total_cents: total, wallet_before_cents: walletBefore, wallet_after_cents: walletAfter } = stopped.problem;
  assert.equal(walletBefore - walletAfter, total, 'the creation took');
  const dollars = (cents) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInPage(page, { edge: s.edge }, s.users.operator);
  await page.goto(`${s.edge.url}/batches/${job.id}`);
  const problem = page.getByTestId('job-problem');
  await problem.waitFor({ timeout: T });
  const said = await problem.innerText();
  assert.match(said, new RegExp(`held ${dollars(walletBefore).replace('$', '\\$')} before and ${dollars(walletAfter).replace('$', '\\$')} after`));
  assert.match(said, /moved by exactly the chunk's total/);
  await page.getByRole('button', { name: 'Release the chunk' }).click();
  await page.getByTestId('count-released').getByText('Released: 3').waitFor({ timeout: T });
  await page.getByTestId('job-state').getByText('Completed').waitFor({ timeout: T });
  // No bulk retry is offered for released rows.
  assert.equal(await page.getByRole('button', { name: /Retry the/ }).count(), 0);

  // One row, by name: the facts, then the tick, then the purchase.
  await page.getByRole('button', { name: 'Released (3)' }).click();
  await page.getByRole('button', { name: 'Details of #R2' }).click();
  const panel = page.getByTestId('retry-released');
  await panel.waitFor({ timeout: T });
  assert.match(await panel.innerText(), new RegExp(`Chunk 1's batch \\(${dollars(total).replace('$', '\\$')}, request req_job_`));
  assert.match(await page.getByTestId('wallet-verdict').innerText(), /moved by exactly the chunk's total.*would pay twice/);
  const buy = page.getByRole('button', { name: 'Buy this row again' });
  assert.ok(await buy.isDisabled(), 'not before the tick');
  await screenshot(page, 'batches-released-retry');
  const before = await s.sim.control('GET', '/__sim/accounts/acct_demo');
  await page.getByLabel(/I checked the service's dashboard: this row has no label/).check();
  await buy.click();
  await untilJob(s, job.id, (j) => j.state === 'completed' && j.counts.bought === 1, { tick: advanceWhileProcessing(s) });
  await page.getByTestId('count-bought').getByText('Bought: 1').waitFor({ timeout: T });
  await page.getByTestId('count-released').getByText('Released: 2').waitFor({ timeout: T });
  const after = await s.sim.control('GET', '/__sim/accounts/acct_demo');
  assert.equal(after.live_labels - before.live_labels, 1, 'exactly that row');
  const page1 = await s.json(`/api/jobs/${job.id}/rows?offset=0&limit=10`);
  assert.deepEqual(page1.rows.map((r) => r.state), ['released', 'bought', 'released']);
  // The sign-in page's first session check is a 401 by design.
  assert.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await context.close();
});
