// The dashboard where the service fails or the deployment is set otherwise,
// in Chromium through the real Workers in workerd and the real simulator,
// as an organization's members, on a stack of this file's own: each test
// here injects a fault into the simulator (its faults hold for every
// caller, and the shared stack's simulator is every test file's) or needs
// a setting the shared deployment does not have (ROLES, a short upstream
// timeout). The ship page with the address check down; a review-first
// batch whose failed rows are retried; a chunk whose creation got no clear
// answer, released and one row bought again; a page outside a role's scopes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, tokenField } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { T, openSignedIn } from './support/pages.mjs';
import { RAISED, TEMPLATE, Batches, batchesOn, csv, download, runUntil, templateRows } from './support/batches.mjs';
import { advanceWhileProcessing, pdfPages, twentyMadeTwentyFailed, untilJob } from './support/jobs.mjs';

// This deployment keeps the wallet from viewers (ROLES): every read scope but wallet:read.
const VIEWER_SCOPES = ['rates:read', 'labels:read', 'tracking:read', 'addresses:read', 'carrier-accounts:read', 'batches:read'];
let own, stack, s, browser;
before(async () => {
  // Creations answering after the Workers' 1.5 s timeout are lost answers, yet they take.
  own = await startStack({ edgeVars: { ROLES: JSON.stringify({ viewer: VIEWER_SCOPES }), UPSTREAM_TIMEOUT_MS: '1500' } });
  stack = await orgStack(own);
  // The batch screens' organization: keys with raised limits, a funded account.
  s = await batchesOn(own, { limits: RAISED });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await own?.stop();
});

const signedIn = (role = 'operator') => openSignedIn(browser, stack, stack.users[role]);

test('address service down: the error is shown and rates may be fetched without the check', async () => {
  const { context, page, ship } = await signedIn('operator');
  await stack.sim.control('PUT', '/__sim/faults', { address_service_down: true });
  try {
    await ship.fillAll();
    await ship.getRatesButton().click();
    await page.locator('.error-code', { hasText: 'ADDRESS.VALIDATION.SERVICE_ERROR' }).first().waitFor({ state: 'attached', timeout: T });
    const go = page.getByRole('button', { name: 'Continue without checking' });
    // Both addresses are checked at once; their answers land one after the other.
    await go.nth(1).waitFor({ timeout: T });
    assert.equal(await go.count(), 2);
    await go.first().click();
    await go.first().click();
    const unchecked = page.getByText('Not checked', { exact: true });
    await unchecked.nth(1).waitFor({ timeout: T });
    assert.equal(await unchecked.count(), 2);
    await ship.getRates();
    assert.ok((await ship.rows().count()) >= 4);
  } finally {
    await stack.sim.control('PUT', '/__sim/faults', {});
  }
  await context.close();
});

test('a page outside the role\'s scopes says what the role cannot do, and calls nothing', async () => {
  const { context, page, app } = await signedIn('viewer');
  const menu = page.getByRole('navigation', { name: 'Main' });
  await menu.getByRole('link', { name: 'Labels' }).waitFor();
  assert.equal(await menu.getByRole('link', { name: 'Wallet' }).count(), 0, 'the menu leaves the wallet out');
  const walletCalls = [];
  page.on('request', (r) => { if (r.url().endsWith('/api/v1/wallet')) walletCalls.push(r.url()); });
  // Typed or bookmarked, the operator's page still is not reachable.
  await app.go('/wallet');
  await page.getByRole('heading', { name: 'Wallet', level: 1 }).waitFor({ timeout: T });
  assert.equal(await page.getByTestId('guard').innerText(), 'Your role cannot see the wallet. An admin of the organization can change your role.');
  assert.equal(await page.getByTestId('balance').count(), 0);
  assert.equal(await app.alert().count(), 0, 'no refusal: nothing was asked');
  assert.deepEqual(walletCalls, []);
  await screenshot(page, 'guard-viewer-wallet');
  await context.close();

  const op = await signedIn('operator');
  await op.app.go('/wallet');
  await op.page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await op.page.getByTestId('guard').count(), 0);
  await op.context.close();
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
  await runUntil(s, id, (j) => j.state === 'awaiting_approval', { tick: false });
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
  await runUntil(s, id, (j) => j.chunks.some((c) => c.state === 'processing'), { tick: false });
  // Twenty labels are made; then every carrier fails for the other twenty.
  await twentyMadeTwentyFailed(s.sim);
  await runUntil(s, id, (j) => j.state === 'completed', { tick: false });
  await page.getByTestId('count-failed').getByText('Failed: 20').waitFor({ timeout: T });
  await page.getByTestId('job-state').getByText('Completed').waitFor({ timeout: T });
  assert.deepEqual(await page.evaluate(() => window.shown), ['forty.csv: 20 bought, 20 failed.']);
  await page.getByRole('button', { name: 'Retry the 20 failed rows' }).click();
  // Review first holds for the retry too: the 20 rows' new total is approved first.
  await runUntil(s, id, (j) => j.state === 'awaiting_approval', { tick: false });
  await page.getByRole('heading', { name: 'Approve the total' }).waitFor({ timeout: T });
  const requoted = await s.json(`/api/jobs/${id}`);
  assert.equal(requoted.counts.bought, 20, 'nothing bought before the new approval');
  const retryTotal = `$${(requoted.cost.quoted_cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
  assert.equal(await page.getByTestId('exact-total').innerText(), `Every row is quoted: ${retryTotal} for 20 labels.`);
  await page.getByRole('button', { name: 'Approve and buy' }).click();
  await runUntil(s, id, (j) => j.state === 'completed' && j.counts.bought === 40);
  await page.getByTestId('count-bought').getByText('Bought: 40').waitFor({ timeout: T });
  await page.getByTestId('count-failed').getByText('Failed: 0').waitFor({ timeout: T });
  assert.equal(pdfPages(await download(page, () => page.getByRole('link', { name: 'Labels PDF 1 of 1' }).click())), 40);
  await page.waitForFunction(() => window.shown.length === 3, null, { timeout: T });
  assert.deepEqual(await page.evaluate(() => window.shown.slice(1)), ['forty.csv: every row is quoted; approve the total to buy.', 'forty.csv: 40 bought, 0 failed.']);
  await screenshot(page, 'batches-retried');
  await s.sim.control('POST', '/__sim/clock/freeze', { frozen: false });
  await context.close();
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
  // Signed in on the job's own page (an organization's Ship page, the
  // landing page, would load its saved addresses, and leaving it at once
  // would abort that request).
  await page.goto(`${s.edge.url}/batches/${job.id}`);
  await (await tokenField(page)).fill(s.users.operator.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
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
  const before = await s.account();
  // This deployment does not name its service: the default name, no link.
  await page.getByLabel(/^I checked the shipping service's dashboard: this row has no label/).check();
  await buy.click();
  await untilJob(s, job.id, (j) => j.state === 'completed' && j.counts.bought === 1, { tick: advanceWhileProcessing(s) });
  await page.getByTestId('count-bought').getByText('Bought: 1').waitFor({ timeout: T });
  await page.getByTestId('count-released').getByText('Released: 2').waitFor({ timeout: T });
  const after = await s.account();
  assert.equal(after.live_labels - before.live_labels, 1, 'exactly that row');
  const page1 = await s.json(`/api/jobs/${job.id}/rows?offset=0&limit=10`);
  assert.deepEqual(page1.rows.map((r) => r.state), ['released', 'bought', 'released']);
  // The sign-in page's first session check is a 401 by design.
  assert.deepEqual(problems.filter((p) => !p.includes('401')), []);
  await context.close();
});
