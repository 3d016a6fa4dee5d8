// What the Workers do when something underneath them goes wrong, through
// the real Workers in workerd and the real simulator, as organizations'
// members: a stack of this file's own, because each test here stops and
// restarts the Workers on their stored state (edited while they are down,
// for what no endpoint can do), restarts them with other settings, or
// slows, breaks or stops the simulator, which on the shared stack is every
// test file's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from './support/stack.mjs';
import { Person, assertError, newOrgLink, orgStack } from './support/orgs.mjs';
import { filesWithTable, sqlite } from './support/sqlite.mjs';
import { until } from './support/wait.mjs';

const PASSWORD = 'correct horse battery staple';
/** The Durable Objects' SQLite files, edited while the Workers are down. */
const persist = mkdtempSync(path.join(tmpdir(), 'parcel-faults-'));
let stack, org, operator;
before(async () => {
  // A short upstream timeout, so a slow upstream is met in seconds.
  stack = await startStack({ persist, edgeVars: { UPSTREAM_TIMEOUT_MS: '2000' } });
  org = await orgStack(stack);
  operator = await stack.edge.session(org.users.operator);
});
after(async () => {
  await stack?.stop();
  rmSync(persist, { recursive: true, force: true });
});

const person = () => new Person(stack.edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** A call as the organization's operator, from the dashboard's own origin. */
const api = (p, init = {}) => fetch(stack.edge.url + p, {
  ...init,
  headers: { cookie: operator.cookie, origin: operator.origin, ...init.headers },
});
const post = (body, headers = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const json = (body, headers = {}) => post(JSON.stringify(body), headers);
const address = (name, street1, zip, state) => ({ name, street1, city: 'X', state, zip, country: 'US' });
const shipment = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};
const account = () => org.account();
const liveBalance = async () => (await account()).balance_cents;

/** `res` is `status` with the v1 envelope of `code`; returns the error. */
async function envelope(res, status, code) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error.code, code, JSON.stringify(body));
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(body.error[f], `${f} in ${JSON.stringify(body)}`);
  assert.equal(res.headers.get('x-request-id'), body.error.request_id);
  return body.error;
}

async function quote() {
  return (await (await api('/api/v1/rates', post(JSON.stringify(shipment)))).json()).rates[0].id;
}

/** One purchase intent: its key and its rate, as the app sends it on every retry. */
const buy = (key, rate) => api('/api/v1/labels', post(JSON.stringify({ rate_id: rate }), { 'idempotency-key': key }));

test('an invitation a day past its expiry is refused as expired, and listed so', async () => {
  const admin = person();
  const link = await newOrgLink(stack.sessionSecret, stack.edge.url);
  const made = await admin.createOrg(link.token, { orgName: 'Aging Co', name: 'Ada Admin', email: email('admin'), password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  // A day past its expiry (moved there in the organization's stored row,
  // with the Workers stopped: no endpoint can age an invitation), a link is
  // refused as expired.
  const aging = await admin.invite('viewer', 1);
  assert.equal(aging.status, 201, aging.text);
  await stack.edge.stop();
  const [orgFile] = filesWithTable(persist, 'invites').filter((f) => sqlite(f, 'SELECT id FROM invites WHERE id = ?', [aging.json.invite.id]).length);
  assert.ok(orgFile, 'the organization object holds the invitation');
  sqlite(orgFile, 'UPDATE invites SET expires_at = ? WHERE id = ?', [Math.floor(Date.now() / 1000) - 86400, aging.json.invite.id]);
  await stack.edge.restart();
  assertError(await person().preview(aging.json.token), 410, 'EDGE.INVITE.EXPIRED');
  assertError(await person().accept(aging.json.token, { email: email('late'), password: PASSWORD }), 410, 'EDGE.INVITE.EXPIRED');
  assert.equal((await admin.call('GET', '/api/org/invites')).json.invites.find((i) => i.id === aging.json.invite.id).state, 'expired');
});

test('a purchase whose record cannot be read is refused, and nothing is bought again', async () => {
  const key = randomUUID();
  const rate = await quote();
  const first = await buy(key, rate);
  assert.equal(first.status, 201);
  const label = await first.json();
  const bought = await account();
  // The deployment stops; its stored record is damaged (or written by a newer build).
  await stack.edge.stop();
  const [file] = filesWithTable(persist, 'entry').filter((f) => sqlite(f, 'SELECT json FROM entry')[0]?.[0].includes(label.id));
  assert.ok(file, 'the record of the purchase is on disk');
  sqlite(file, "UPDATE entry SET json = '{\"v\":99,\"state\":\"done\"}'");
  await stack.edge.restart();
  operator = await stack.edge.session(org.users.operator);
  // The retry of the same intent: refused, with what to do, and no purchase upstream.
  const e = await envelope(await buy(key, rate), 503, 'EDGE.IDEMPOTENCY.RECORD_UNREADABLE');
  assert.equal(e.outcome_unknown, true, 'the app must keep the key');
  assert.match(e.message, /not sent/);
  assert.match(e.suggestion, /same Idempotency-Key/);
  const after = await account();
  assert.equal(after.balance_cents, bought.balance_cents, 'the wallet is unchanged');
  assert.equal(after.live_labels, bought.live_labels, 'no second label');
});

test('a record written in the previous shape (no version) is still replayed', async () => {
  const key = randomUUID();
  const rate = await quote();
  const first = await buy(key, rate);
  assert.equal(first.status, 201);
  const label = await first.json();
  await stack.edge.stop();
  const [file] = filesWithTable(persist, 'entry').filter((f) => sqlite(f, 'SELECT json FROM entry')[0]?.[0].includes(label.id));
  const [[stored]] = sqlite(file, 'SELECT json FROM entry');
  const current = JSON.parse(stored);
  assert.equal(current.v, 2, 'records are written with their version');
  // The shape the first builds wrote: the entry itself, without `v`.
  const { v, ...previous } = current;
  sqlite(file, 'UPDATE entry SET json = ?', [JSON.stringify(previous)]);
  await stack.edge.restart();
  operator = await stack.edge.session(org.users.operator);
  const before = await account();
  const again = await buy(key, rate);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal((await again.json()).id, label.id);
  assert.equal((await account()).balance_cents, before.balance_cents);
});

test('a ship-from with a three-letter country is a configuration error naming the setting', async () => {
  const shipFrom = { ...shipment.from_address, country: 'USA' };
  // The deployment restarted with the bad setting, then with none again.
  await stack.edge.restart({ vars: { WIDGET_ORIGINS: 'http://127.0.0.1:9', WIDGET_SHIP_FROM: JSON.stringify(shipFrom) } });
  try {
    for (const p of ['/widget/', '/api/session']) {
      const e = await envelope(await fetch(stack.edge.url + p), 503, 'EDGE.CONFIG.INVALID');
      assert.match(e.message, /WIDGET_SHIP_FROM/);
      assert.match(e.message, /country/);
      assert.doesNotMatch(e.message, /Market St/, 'the value itself stays out of the answer');
    }
  } finally {
    await stack.edge.restart({ vars: { WIDGET_ORIGINS: '', WIDGET_SHIP_FROM: '' } });
  }
});

test('a slow upstream: a late purchase says its outcome is unknown, and its retry never buys again', async () => {
  const quote = await (await api('/api/v1/rates', json(shipment))).json();
  const rate = quote.rates[0];
  const before = await liveBalance();
  await stack.sim.control('PUT', '/__sim/faults', { latency_ms: 3000 });
  try {
    const read = await envelope(await api('/api/v1/wallet'), 504, 'EDGE.UPSTREAM.TIMEOUT');
    assert.match(read.message, /within 2 s; nothing was changed/);
    const key = randomUUID();
    const buy = () => api('/api/v1/labels', json({ rate_id: rate.id }, { 'idempotency-key': key }));
    const started = Date.now();
    const e = await envelope(await buy(), 504, 'EDGE.UPSTREAM.TIMEOUT');
    assert.ok(Date.now() - started < 2900, 'answered at the timeout, not when upstream finished');
    assert.match(e.message, /outcome of this request is unknown/);
    const retry = await buy();
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    await envelope(retry, 504, 'EDGE.UPSTREAM.TIMEOUT');
  } finally {
    await stack.sim.control('PUT', '/__sim/faults', {});
  }
  // The slow purchase completes upstream on its own time; then it is charged once.
  await until('the slow purchase to be charged', async () => (await liveBalance()) !== before);
  assert.equal(await liveBalance(), before - rate.rate_cents, 'the purchase happened once, and only once');
});

// Last: the simulator is stopped for good.
test('with the upstream down, reads say nothing changed and purchases say the outcome is unknown', async () => {
  await stack.sim.stop();
  const read = await envelope(await api('/api/v1/wallet'), 502, 'EDGE.UPSTREAM.UNREACHABLE');
  assert.match(read.message, /nothing was changed/);
  const buy = await envelope(await api('/api/v1/labels', json({ rate_id: 'rate_x' }, { 'idempotency-key': randomUUID() })), 502, 'EDGE.UPSTREAM.UNREACHABLE');
  assert.match(buy.message, /outcome of this request is unknown/);
  assert.match(buy.suggestion, /before trying again/);
});
