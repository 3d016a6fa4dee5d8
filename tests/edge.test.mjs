// The real Worker in workerd in front of the real simulator, as an
// organization's operator on the shared stack: routing, the envelope,
// money safety and the upstream's limits. (A slow upstream and one that is
// down: tests/edge-faults.test.mjs.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';

const shared = await sharedStack();
let stack, operator;
before(async () => {
  stack = await orgStack(shared);
  operator = await stack.edge.session(stack.users.operator);
});

/** A call as the signed-in operator, from the dashboard's own origin. */
const api = (path, init = {}) => fetch(stack.edge.url + path, {
  ...init,
  headers: { cookie: operator.cookie, origin: operator.origin, ...init.headers },
});
/**
 * POSTs `body` as the operator with `Expect: 100-continue`, as a client
 * sends a large body: the Worker may refuse it from its headers, and
 * workerd then closes the connection instead of reading on (fetch, still
 * writing, would see the connection reset). The answer as a Response.
 */
function postLarge(path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(stack.edge.url + path, {
      method: 'POST',
      headers: { cookie: operator.cookie, origin: operator.origin, 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: res.headers })));
    });
    req.on('continue', () => req.end(body));
    req.on('error', reject);
  });
}
const json = (body, headers = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const address = (name, street1, zip, state) => ({ name, street1, city: 'X', state, zip, country: 'US' });
const shipment = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};
const liveBalance = async () => (await stack.account()).balance_cents;

async function assertEnvelope(res, status, code) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error.code, code);
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(body.error[f], `${f} in ${JSON.stringify(body)}`);
  assert.equal(res.headers.get('x-request-id'), body.error.request_id);
  return body.error;
}

test('only the v1 endpoints are forwarded; path tricks get the envelope', async () => {
  for (const p of ['/api/v1/nope', '/api/v1//wallet', '/api/v1/wallet/', '/api/v1/labels/..%2Fwallet', '/api/v1/labels/%2e%2e', '/api/v2/wallet', '/api/v1/labels/a/b', '/api//v1/wallet']) {
    await assertEnvelope(await api(p), 404, 'EDGE.ROUTE.NOT_FOUND');
  }
  const e = await assertEnvelope(await api('/api/v1/wallet', { method: 'PUT' }), 405, 'EDGE.ROUTE.METHOD_NOT_ALLOWED');
  assert.match(e.suggestion, /GET/);
});

test('upstream answers pass through with their status, request id and limit headers, without cookies', async () => {
  const res = await api('/api/v1/labels/lbl_missing');
  const e = await assertEnvelope(res, 404, 'LABEL.NOT_FOUND');
  assert.match(e.request_id, /^req_/);
  assert.equal(res.headers.get('x-ratelimit-limit'), '300');
  assert.ok(Number(res.headers.get('x-ratelimit-remaining')) < 300);
  assert.equal(res.headers.get('set-cookie'), null);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
});

test('a purchase without an Idempotency-Key is refused before it costs anything', async () => {
  const before = await liveBalance();
  const e = await assertEnvelope(await api('/api/v1/labels', json({ rate_id: 'rate_x' })), 422, 'VALIDATION.FIELD.REQUIRED');
  assert.equal(e.field, 'Idempotency-Key');
  assert.equal(await liveBalance(), before);
});

test('a double-clicked purchase charges the wallet once', async () => {
  const quote = await (await api('/api/v1/rates', json(shipment))).json();
  const rate = quote.rates[0];
  const before = await liveBalance();
  const key = randomUUID();
  const buy = () => api('/api/v1/labels', json({ rate_id: rate.id }, { 'idempotency-key': key }));
  const [a, b] = await Promise.all([buy(), buy()]);
  const statuses = [a.status, b.status].sort();
  assert.ok(statuses[0] === 201 && [201, 409].includes(statuses[1]), `statuses ${statuses}`);
  const first = await (a.status === 201 ? a : b).json();
  // Retried with the same key: the same label comes back, marked as a replay.
  const again = await buy();
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal((await again.json()).id, first.id);
  assert.equal(await liveBalance(), before - rate.rate_cents, 'charged exactly once');
  // The same key for another request is refused.
  await assertEnvelope(await api('/api/v1/labels', json({ rate_id: quote.rates[1].id }, { 'idempotency-key': key })), 422, 'EDGE.IDEMPOTENCY.KEY_REUSED');
  // A refusal releases the key: nothing was bought, so a corrected retry may proceed.
  const k2 = randomUUID();
  await assertEnvelope(await api('/api/v1/labels', json({ rate_id: 'rate_nope' }, { 'idempotency-key': k2 })), 404, 'RATE.NOT_FOUND');
  assert.equal(await liveBalance(), before - rate.rate_cents);
});

test('a malformed body is refused at the edge, naming the field, without an upstream call', () => stack.sim.inOneWindow(async () => {
  const remaining = async () => Number((await api('/api/v1/rates', json(shipment))).headers.get('x-ratelimit-remaining'));
  const first = await remaining();
  const bad = { ...shipment, parcel: { ...shipment.parcel, weight_oz: 'heavy' } };
  const e = await assertEnvelope(await api('/api/v1/rates', json(bad)), 422, 'VALIDATION.FIELD.INVALID');
  assert.equal(e.field, 'parcel.weight_oz');
  const missing = await assertEnvelope(await api('/api/v1/rates', json({ from_address: shipment.from_address })), 422, 'VALIDATION.FIELD.REQUIRED');
  assert.equal(missing.field, 'to_address');
  await assertEnvelope(await api('/api/v1/rates', { method: 'POST', body: '{oops' }), 422, 'VALIDATION.FIELD.INVALID');
  assert.equal(await remaining(), first - 1, 'the three refusals cost the upstream budget nothing');
  const huge = 'x'.repeat(9 * 1024 * 1024);
  await assertEnvelope(await postLarge('/api/v1/rates', huge), 413, 'VALIDATION.BODY.TOO_LARGE');
}));

test('upstream 429 is passed on with Retry-After, then the spent budget is answered locally', () => stack.sim.inOneWindow(async () => {
  const buy = () => api('/api/v1/batches/b_none/buy', json({}, { 'idempotency-key': randomUUID() }));
  // The Worker learns the budget from its first answer (10 a minute)...
  assert.equal((await buy()).headers.get('x-ratelimit-remaining'), '9');
  // ...then another client of the same key spends the rest upstream, behind the Worker's back.
  for (let i = 0; i < 9; i++) {
    await fetch(`${stack.sim.url}/v1/batches/b_none/buy`, { method: 'POST', headers: { authorization: `Bearer ${stack.keys.live}` } });
  }
  const upstream429 = await buy();
  const e = await assertEnvelope(upstream429, 429, 'AUTH.RATE_LIMIT.EXCEEDED');
  assert.match(e.message, /POST \/v1\/batches\/\{id\}\/buy allows 10/, 'the upstream\'s own 429');
  assert.ok(Number(upstream429.headers.get('retry-after')) >= 1);
  // Now the Worker knows the budget is spent: it answers itself, without an upstream call.
  const local = await buy();
  const l = await assertEnvelope(local, 429, 'AUTH.RATE_LIMIT.EXCEEDED');
  assert.match(l.message, /used up .*it was not called/);
  assert.match(l.request_id, /^req_edge_/);
  const wait = Number(local.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.equal(l.retry_after_seconds, wait);
}));
