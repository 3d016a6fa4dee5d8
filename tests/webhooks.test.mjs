// Webhooks end to end: the simulator signs and delivers label.created to the
// real Worker in workerd, at an organization's own URL with its secrets,
// which verifies, stores once and shows it. On the shared stack. (The
// deployment's own URL and WEBHOOK_SECRET: tests/edge-deployment.test.mjs.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { sharedStack, signInPage } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';
import { until } from './support/wait.mjs';

const OLD = `whsec_${randomBytes(16).toString('hex')}`;
const NEW = `whsec_${randomBytes(16).toString('hex')}`;
const sign = (secret, body) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

const shared = await sharedStack();
let stack, admin;
before(async () => {
  stack = await orgStack(shared);
  // A rotation in progress: the current secret and the next one both verify.
  await stack.webhookSecret(OLD);
  await stack.webhookSecret(NEW, { slot: 'next' });
  admin = await stack.edge.session(stack.users.admin);
});
/** The service's webhook for the organization's account: its URL (or `url`), signed with `secret`. */
const deliverTo = (secret, url = stack.hook) => stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/webhook`, { url, secret });

const address = (name, street1, zip, state, city) => ({ name, street1, city, state, zip, country: 'US' });
const RATE_REQUEST = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA', 'San Francisco'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY', 'Brooklyn'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};

/** Buys a label straight on the simulator with the live key (as another integration would). */
async function buyOnSim() {
  const auth = { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' };
  const rates = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(RATE_REQUEST) })).json();
  const res = await fetch(`${stack.sim.url}/v1/labels`, {
    method: 'POST', headers: { ...auth, 'idempotency-key': randomUUID() }, body: JSON.stringify({ rate_id: rates.rates[0].id }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
}

async function api(path, init = {}) {
  const res = await fetch(stack.edge.url + path, { ...init, headers: { cookie: admin.cookie, origin: admin.origin, ...init.headers } });
  return { status: res.status, body: await res.json() };
}

const inboxEntry = async (id) => {
  const { status, body } = await api(`/api/webhooks/inbox?q=${encodeURIComponent(id)}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body.accepted.find((e) => e.label.id === id);
};

function post(body, headers = {}) {
  return fetch(stack.hook, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

test('a label bought on the simulator arrives signed, is stored once and joins the ledger', async () => {
  await deliverTo(OLD);
  const label = await buyOnSim();
  const entry = await until('the event in the inbox', () => inboxEntry(label.id));
  assert.equal(entry.label.tracking_number, label.tracking_number);
  assert.equal(entry.event.deliveries, 1);
  assert.equal(entry.event.verified_with, 'current');
  const history = (await api(`/api/ledger/history?q=${label.tracking_number}`)).body.rows;
  assert.deepEqual(history.map((l) => [l.id, l.deliveries]), [[label.id, 1]]);
  // The service's own log shows the same delivery as succeeded.
  const deliveries = (await api('/api/v1/webhooks/deliveries')).body.deliveries.filter((d) => d.label_id === label.id);
  assert.deepEqual(deliveries.map((d) => [d.attempt, d.status, d.response_status]), [[1, 'succeeded', 200]]);
});

test('a label bought through the dashboard joins the ledger with its buyer, and its event is matched to it', async () => {
  await deliverTo(OLD);
  const operator = await stack.edge.session(stack.users.operator);
  const call = (path, init = {}) => fetch(stack.edge.url + path, { ...init, headers: { cookie: operator.cookie, origin: operator.origin, 'content-type': 'application/json', ...init.headers } });
  const quote = await (await call('/api/v1/rates', { method: 'POST', body: JSON.stringify(RATE_REQUEST) })).json();
  const bought = await call('/api/v1/labels', { method: 'POST', headers: { 'idempotency-key': randomUUID() }, body: JSON.stringify({ rate_id: quote.rates[0].id }) });
  assert.equal(bought.status, 201);
  const label = await bought.json();
  const row = await until('the event to reach the bought label', async () => {
    const [entry] = (await api(`/api/ledger/history?q=${label.tracking_number}`)).body.rows;
    return entry?.deliveries ? entry : null;
  });
  assert.equal(row.id, label.id);
  assert.equal(row.bought_by, stack.users.operator.name);
  assert.equal(row.deliveries, 1);
});

test('tampered, wrongly signed, unsigned and malformed deliveries get 401 in the envelope and a rejected record', async () => {
  const body = JSON.stringify({ event: 'label.created', data: { ...(await buyOnSim()), id: `lbl_forged_${randomUUID()}` } });
  const good = sign(OLD, body);
  const cases = [
    ['tampered', body.replace('"sandbox":false', '"sandbox":true'), { 'svc-signature': good }, 'WEBHOOK.SIGNATURE.INVALID', 'wrong_signature'],
    ['wrong secret', body, { 'svc-signature': sign('not-the-secret-at-all', body) }, 'WEBHOOK.SIGNATURE.INVALID', 'wrong_signature'],
    ['missing', body, {}, 'WEBHOOK.SIGNATURE.MISSING', 'missing_signature'],
    ['malformed', body, { 'svc-signature': good.toUpperCase() }, 'WEBHOOK.SIGNATURE.MALFORMED', 'malformed_signature'],
  ];
  const before = (await api('/api/webhooks/inbox?state=rejected')).body.rejected.length;
  for (const [name, payload, headers, code, reason] of cases) {
    const res = await post(payload, { ...headers, 'cf-connecting-ip': '203.0.113.7' });
    assert.equal(res.status, 401, name);
    const { error } = await res.json();
    assert.equal(error.code, code, name);
    assert.ok(error.message && error.suggestion && error.docs_url && error.request_id, name);
    const rejected = (await api('/api/webhooks/inbox?state=rejected')).body.rejected;
    assert.equal(rejected[0].reason, reason, name);
    assert.equal(rejected[0].source_ip, '203.0.113.7');
    assert.ok(rejected[0].excerpt.length <= 512 && rejected[0].excerpt.startsWith('{"event"'), name);
  }
  assert.equal((await api('/api/webhooks/inbox?state=rejected')).body.rejected.length, before + cases.length);
  // None of them became an event or a ledger row.
  const forged = JSON.parse(body).data.id;
  assert.equal(await inboxEntry(forged), undefined);
  const history = (await api('/api/ledger/history')).body;
  assert.equal(history.next, null, 'the whole ledger in one page');
  assert.ok(!history.rows.some((r) => r.id === forged));
  // Too large: refused unread.
  const big = await post('x'.repeat(70 * 1024), { 'svc-signature': good });
  assert.equal(big.status, 413);
});

test('refusals keep only the newest 1,000: the oldest goes when the 1,001st arrives', async () => {
  const run = randomUUID().slice(0, 8);
  const marker = (i) => `trim_${run}_${String(i).padStart(4, '0')}`;
  const forge = (i) => post(JSON.stringify({ event: 'label.created', data: { id: marker(i) } }), { 'svc-signature': `sha256=${'0'.repeat(64)}` })
    .then((res) => { assert.equal(res.status, 401); return res.arrayBuffer(); });
  const found = async (i) => (await api(`/api/webhooks/inbox?state=rejected&q=${marker(i)}`)).body.rejected.length;
  // The first two in order, so they are the two oldest; the other 999 eight at a time.
  await forge(0);
  await forge(1);
  assert.equal(await found(0), 1, 'kept while under the cap');
  for (let i = 2; i <= 1000; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, 1001 - i) }, (_, k) => forge(i + k)));
  }
  assert.equal(await found(0), 0, 'the oldest refusal is trimmed');
  assert.equal(await found(1), 1, 'the 1,000 newest stay');
  assert.equal(await found(1000), 1);
});

test('the same delivery replayed ten times is stored once, with its count', async () => {
  await deliverTo(OLD);
  const label = await buyOnSim();
  await until('the first delivery', () => inboxEntry(label.id));
  const body = JSON.stringify({ event: 'label.created', data: label });
  for (let i = 0; i < 10; i++) {
    const res = await post(body, { 'svc-signature': sign(OLD, body) });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).deliveries, i + 2);
  }
  const entry = await inboxEntry(label.id);
  assert.equal(entry.event.deliveries, 11);
  assert.ok(entry.event.last_received_at >= entry.event.first_received_at);
  const rows = (await api(`/api/ledger/history?q=${label.tracking_number}`)).body.rows;
  assert.deepEqual(rows.map((r) => [r.id, r.deliveries]), [[label.id, 11]]);
});

test('with the Worker unreachable for the first attempts, the retry schedule still delivers exactly once', async () => {
  // A door in front of the Worker that we can shut: connections are reset while it is.
  let open = false;
  const door = net.createServer((socket) => {
    if (!open) { socket.destroy(); return; }
    const upstream = net.connect(new URL(stack.edge.url).port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise((r) => door.listen(0, '127.0.0.1', r));
  try {
    await deliverTo(OLD, `http://127.0.0.1:${door.address().port}${new URL(stack.hook).pathname}`);
    const label = await buyOnSim();
    const listed = async () => (await api('/api/v1/webhooks/deliveries')).body.deliveries
      .filter((d) => d.label_id === label.id)
      .sort((a, b) => a.attempt - b.attempt);
    const attempts = async () => (await listed()).filter((d) => d.status !== 'pending');
    await until('attempt 1 to fail', async () => (await attempts()).length === 1);
    await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 300 });
    await until('attempt 2 to fail', async () => (await attempts()).length === 2);
    assert.equal(await inboxEntry(label.id), undefined);
    open = true;
    await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 1800 });
    await until('attempt 3 to succeed', async () => (await attempts()).at(-1)?.status === 'succeeded');
    // Nothing more is scheduled after a success. A retry is listed (pending)
    // the moment an attempt fails, so the full list is final without a wait.
    const log = await listed();
    assert.deepEqual(log.map((d) => [d.attempt, d.status]), [[1, 'failed'], [2, 'failed'], [3, 'succeeded']]);
    assert.equal(log[2].next_attempt_at, null, 'no next attempt after the success');
    assert.equal((await inboxEntry(label.id)).event.deliveries, 1);
  } finally {
    door.close();
  }
});

test('during a secret rotation both secrets verify, and the inbox says which', async () => {
  await deliverTo(NEW);
  const label = await buyOnSim();
  const entry = await until('the event signed with the next secret', () => inboxEntry(label.id));
  assert.equal(entry.event.verified_with, 'next');
  // The verify helper runs the same check in the Worker; the secret never leaves it.
  const body = JSON.stringify({ event: 'label.created', data: label });
  const ok = await api('/api/webhooks/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body, signature: sign(NEW, body) }) });
  assert.deepEqual(ok.body, { reason: null, verified_with: 'next', label_id: label.id });
  const bad = await api('/api/webhooks/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body, signature: sign('guess-guess-guess', body) }) });
  assert.equal(bad.body.reason, 'wrong_signature');
  assert.ok(!JSON.stringify([ok, bad]).includes(OLD) && !JSON.stringify([ok, bad]).includes(NEW));
});

test('the inbox is a dashboard read: signed-out callers and the widget cannot see it', async () => {
  const anonymous = await fetch(stack.edge.url + '/api/webhooks/inbox');
  assert.equal(anonymous.status, 401);
  const viewer = await stack.edge.session(stack.users.viewer);
  const res = await fetch(stack.edge.url + '/api/webhooks/inbox', { headers: { cookie: viewer.cookie } });
  assert.equal(res.status, 200);
  const plain = await fetch(stack.edge.url + '/api/webhooks/live', { headers: { cookie: viewer.cookie, origin: viewer.origin } });
  assert.equal(plain.status, 426);
  assert.equal((await plain.json()).error.code, 'EDGE.WEBSOCKET.REQUIRED');
});

test('the open Webhooks page shows a new event and a refusal as they arrive, without reload', async () => {
  await deliverTo(OLD);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    // A viewer: the inbox is a read like any other.
    await signInPage(page, stack, stack.users.viewer);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('● Live').waitFor({ timeout: 10000 });
    await page.evaluate(() => { window.sameDocument = true; });

    const label = await buyOnSim();
    // The simulator delivers on its own schedule; once the Worker has stored
    // the event, the open page shows it.
    await until('the event in the inbox', () => inboxEntry(label.id));
    const row = page.locator(`tr[data-label-id="${label.id}"]`);
    await row.waitFor({ timeout: 10000 });
    assert.match(await row.innerText(), new RegExp(`${label.tracking_number}[\\s\\S]*Verified \\(current secret\\)`));
    // The service's side: its log, refreshed as the event arrived, shows the attempt delivered.
    await page.getByRole('cell', { name: 'Delivered' }).first().waitFor({ timeout: 5000 });

    const forged = JSON.stringify({ event: 'label.created', data: { id: 'lbl_forged_in_browser' } });
    await post(forged, { 'svc-signature': `sha256=${'0'.repeat(64)}` });
    await page.getByText('lbl_forged_in_browser').waitFor({ timeout: 5000 });
    assert.equal(await page.evaluate(() => window.sameDocument), true, 'the page was not reloaded');
    // A forged event never becomes a received one.
    assert.equal(await page.locator('tr[data-label-id="lbl_forged_in_browser"]').count(), 0);

    // The verify helper: a genuine payload verifies, an edited one does not.
    const body = JSON.stringify({ event: 'label.created', data: label });
    await page.getByLabel('Body').fill(body);
    await page.getByLabel('Signature').fill(sign(OLD, body));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Verified (current secret). This payload came from the service.').waitFor({ timeout: 5000 });
    await page.getByLabel('Body').fill(body.replace(label.tracking_number, 'EDITED'));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Does not verify: signature does not match the body with any secret.').waitFor({ timeout: 5000 });

    await screenshot(page, 'webhooks-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'webhooks-phone');
    const NOT_SIGNED_IN = 'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)';
    assert.deepEqual(problems.filter((p) => p !== NOT_SIGNED_IN), []);
  } finally {
    await browser.close();
  }
});

test('an event that arrives while the page is still loading its inbox is shown, not lost', async () => {
  await deliverTo(OLD);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await signInPage(page, stack, stack.users.viewer);
    // The page's inbox read is answered by the Worker now, before the event
    // exists, and reaches the page only after the event's live message did.
    let answered, release;
    const read = new Promise((r) => { answered = r; });
    const held = new Promise((r) => { release = r; });
    await page.route('**/api/webhooks/inbox**', async (route) => {
      const response = await route.fetch();
      answered();
      await held;
      await route.fulfill({ response });
    });
    const frames = [];
    page.on('websocket', (ws) => ws.on('framereceived', (frame) => frames.push(String(frame.payload))));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('● Live').waitFor({ timeout: 10000 });
    await read;
    const label = await buyOnSim();
    await until('the live message at the page', () => frames.some((f) => f.includes(label.id)));
    release();
    const row = page.locator(`tr[data-label-id="${label.id}"]`);
    await row.waitFor({ timeout: 10000 });
    assert.equal(await row.count(), 1);
  } finally {
    await browser.close();
  }
});
