// Roles and errors, as an organization's members (the shared stack): a
// viewer sees no purchase or void and is refused when it forces one; a
// network drop reads as a network problem (and a purchase retried after one
// is charged once); a 429 counts down and retries by itself. (A page outside
// a role's scopes, with ROLES set: tests/app-faults.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot } from './support/browser.mjs';
import { T, buyViaApi, openSignedIn } from './support/pages.mjs';
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

const signedIn = (role) => openSignedIn(browser, stack, stack.users[role]);

test('a viewer compares rates but sees no buy or void button; a forced purchase is refused with 403', async () => {
  const op = await signedIn('operator');
  const label = await buyViaApi(op.page);
  await op.context.close();

  const { context, page, app, ship } = await signedIn('viewer');
  await ship.fillAll();
  await ship.getRates();
  assert.ok((await ship.rows().count()) >= 4);
  assert.equal(await ship.buyButtons().count(), 0);
  await page.getByText('Your role can compare rates but not buy labels.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Switch to sandbox' }).count(), 0);
  await screenshot(page, 'ship-viewer');
  const forced = await page.evaluate(async (rateId) => {
    const r = await fetch('/api/v1/labels', {
      method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ rate_id: rateId }),
    });
    return { status: r.status, body: await r.json() };
  }, (await ship.rowTexts())[0].id);
  assert.equal(forced.status, 403);
  assert.equal(forced.body.error.code, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.equal(forced.body.error.required_scope, 'labels:write');

  await app.go(`/labels/${label.id}`);
  await page.getByText('Your role cannot void labels.').waitFor({ timeout: T });
  assert.equal(await page.getByRole('button', { name: 'Void label' }).count(), 0);
  await app.go('/status');
  assert.equal(await page.getByTestId('role').innerText(), 'viewer');
  assert.equal(await page.getByRole('heading', { name: 'Key rotation' }).count(), 0);
  const scopes = await page.getByTestId('scopes').innerText();
  assert.doesNotMatch(scopes, /labels:write|batches:write/);
  await context.close();
});

test('offline: a read shows a network problem (not a refusal) and works again after "Try again"', async () => {
  const { context, page, app } = await signedIn('operator');
  await context.setOffline(true);
  await app.nav('Wallet');
  const alert = app.alert();
  await alert.waitFor({ timeout: T });
  assert.equal(await alert.getAttribute('data-kind'), 'network');
  assert.match(await alert.innerText(), /^No answer: the request did not reach Parcel\.\s+Check your connection/);
  assert.doesNotMatch(await alert.innerText(), /Refused|Request id|Details/);
  await screenshot(page, 'wallet-offline');
  await context.setOffline(false);
  await alert.getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('balance').waitFor({ timeout: T });
  await context.close();
});

test('a purchase whose answer is lost is retried with the same Idempotency-Key and charged once', async () => {
  const { context, page, ship } = await signedIn('operator');
  await ship.fillAll();
  await ship.getRates();
  const price = (await ship.rowTexts())[0];
  const before = await account();
  const keys = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/labels') && r.method() === 'POST') keys.push(r.headers()['idempotency-key']);
  });
  // The purchase reaches the Worker and the service, but the answer never reaches the browser.
  await page.route('**/api/v1/labels', async (route) => {
    await route.fetch();
    await route.abort('connectionreset');
  }, { times: 1 });
  await ship.buyFirst();
  await ship.confirmButton().click();
  const alert = ship.dialog().locator('.error-view');
  await alert.waitFor({ timeout: T });
  assert.equal(await alert.getAttribute('data-kind'), 'network');
  await ship.dialog().getByText('The outcome is unknown', { exact: false }).waitFor();
  const mid = await account();
  assert.equal(mid.live_labels, before.live_labels + 1, 'the service did buy it');
  await ship.confirmButton().click();
  const tracking = await ship.trackingNumber();
  assert.ok(tracking);
  const after = await account();
  assert.equal(after.live_labels, before.live_labels + 1, 'bought once');
  assert.equal(after.balance_cents, mid.balance_cents, 'charged once');
  assert.equal(keys.length, 2, 'two purchase requests left the browser');
  assert.match(keys[0], /^[0-9a-f-]{36}$/);
  assert.equal(keys[0], keys[1], 'the retry reused the purchase key');
  assert.ok(price.id);
  await context.close();
});

test('429: the error counts down from Retry-After and the read retries by itself', async () => {
  const { context, page, app } = await signedIn('operator');
  // The service's windows are minutes of its own clock. Frozen 5 s before a
  // window ends, that window cannot turn over while the budget is spent and
  // the page loads, however slow the machine; it ends when the test moves the
  // clock. The minute chosen has already ended on the Worker's clock, so the
  // Worker forwards every retry instead of answering from what it last saw.
  await stack.sim.frozenAt((now) => now - (now % 60) - 5, async () => {
    // Spend the live key's wallet budget straight at the service (limits are per key).
    let refused;
    for (let i = 0; i < 400 && !refused; i++) {
      const r = await fetch(`${stack.sim.url}/v1/wallet`, { headers: { authorization: `Bearer ${stack.keys.live}` } });
      await r.arrayBuffer();
      if (r.status === 429) refused = r;
    }
    assert.ok(refused, 'the wallet budget ran out');
    assert.equal(refused.headers.get('retry-after'), '5');
    await app.nav('Wallet');
    const countdown = page.getByTestId('retry-countdown');
    await countdown.waitFor({ timeout: T });
    const alert = app.alert();
    assert.equal(await alert.getAttribute('data-kind'), 'refusal');
    // The sentence and the next step first; the code, status and request id folded under "Details".
    assert.equal(await alert.getByTestId('request-id').isVisible(), false, 'the request id is folded');
    assert.doesNotMatch(await alert.locator('.error-title').innerText(), /AUTH\.|HTTP/);
    await alert.getByText('Details', { exact: true }).click();
    assert.match(await alert.locator('.error-code').innerText(), /^Code AUTH\.RATE_LIMIT\.EXCEEDED · HTTP 429 · Request id \S+/);
    await alert.getByTestId('request-id').waitFor();
    await alert.getByRole('button', { name: 'Copy request id' }).waitFor();
    // The error's page: served with the dashboard, about this code.
    const about = await alert.getByRole('link', { name: 'About this error' }).getAttribute('href');
    assert.equal(about, '/errors/AUTH.RATE_LIMIT.EXCEEDED/');
    const res = await fetch(stack.edge.url + about);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<h1><code>AUTH\.RATE_LIMIT\.EXCEEDED<\/code><\/h1>/);
    assert.match(html, /What to do/);
    const secs = async () => Number(/in (\d+) s/.exec(await countdown.innerText())[1]);
    const first = await secs();
    assert.ok(first >= 1 && first <= 5, `Retry-After seconds: ${first}`);
    await screenshot(page, 'wallet-429');
    // The countdown moves on the page's own clock. While the service's clock
    // stands still, a retry that comes due is refused again and counts anew.
    await until('the countdown to move', async () => (await secs()) < first);
    assert.equal(await page.getByTestId('balance').count(), 0, 'no balance while refused');
    await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 5 });
  });
  // The window has ended: the next retry comes within 5 s, without a click.
  await page.getByTestId('balance').waitFor({ timeout: T });
  await context.close();
});

test('every code of the error table has its page, served with the dashboard: the list links each, and each answers 200 with its code, what it means and what to do', async () => {
  const table = readFileSync(path.join(ROOT, 'api/src/code.rs'), 'utf8');
  const codes = [...table.matchAll(/^\s+\w+ = "([A-Z_.]+)", \d{3};$/gm)].map((m) => m[1]);
  assert.ok(codes.length > 90, `${codes.length} codes in api/src/code.rs`);
  const list = await fetch(`${stack.edge.url}/errors/`);
  assert.equal(list.status, 200);
  const linked = [...(await list.text()).matchAll(/<a href="\/errors\/([A-Z_.]+)\/">/g)].map((m) => m[1]);
  assert.deepEqual(linked.sort(), [...codes].sort());
  for (const code of codes) {
    const res = await fetch(`${stack.edge.url}/errors/${code}/`);
    assert.equal(res.status, 200, code);
    const html = await res.text();
    assert.ok(html.includes(`<h1><code>${code}</code></h1>`), code);
    assert.match(html, /<h2>What to do<\/h2><p>[A-Z]/, code);
  }
});
