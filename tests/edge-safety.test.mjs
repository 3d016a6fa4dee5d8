// The foundations the money path stands on, through the real Worker in
// workerd and the real simulator, as an organization's operator on the
// shared stack: bodies with anything after the JSON are refused before any
// upstream call, by the Worker and by the simulator alike; every simulator
// answer carries the rate-limit headers, 401s included. Over-long text (a
// job name, a street line) is refused naming the field and its limit, by
// the Worker and the simulator alike, and nothing is stored. (A purchase
// record that cannot be read, one in the previous shape, a bad ship-from
// setting: tests/edge-faults.test.mjs.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';

const shared = await sharedStack();
let stack, operator;
before(async () => {
  stack = await orgStack(shared);
  operator = await stack.edge.session(stack.users.operator);
});

const api = (p, init = {}) => fetch(stack.edge.url + p, {
  ...init,
  headers: { cookie: operator.cookie, origin: operator.origin, ...init.headers },
});
const post = (body, headers = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const address = (name, street1, zip, state) => ({ name, street1, city: 'X', state, zip, country: 'US' });
const shipment = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};
const account = () => stack.account();

async function envelope(res, status, code) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error.code, code, JSON.stringify(body));
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(body.error[f], `${f} in ${JSON.stringify(body)}`);
  return body.error;
}

// Each POST endpoint with a valid body, then the same body with data after it.
const posts = [
  ['/v1/addresses/validate', shipment.to_address, {}],
  ['/v1/rates', shipment, {}],
  ['/v1/labels', { rate_id: 'rate_1_0_00000000' }, { 'idempotency-key': 'k' }],
  ['/v1/trackers', { tracking_number: '9400000000' }, {}],
  ['/v1/batches', { items: [] }, { 'idempotency-key': 'k' }],
  ['/v1/batches/batch_none/buy', {}, { 'idempotency-key': 'k' }],
];

test('a body with data after its JSON is refused by the Worker, naming the body, with no upstream call', () => stack.sim.inOneWindow(async () => {
  for (const [p, body, headers] of posts) {
    const probe = async () => {
      const res = await api(`/api${p}`, post(JSON.stringify(body), { ...headers, 'idempotency-key': randomUUID() }));
      await res.arrayBuffer();
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const first = await probe();
    for (const tail of ['garbage', '{}', ' 1', ']']) {
      const bad = post(JSON.stringify(body) + tail, { ...headers, 'idempotency-key': randomUUID() });
      const e = await envelope(await api(`/api${p}`, bad), 422, 'VALIDATION.FIELD.INVALID');
      assert.equal(e.field, 'body', `${p} + ${tail}`);
    }
    assert.equal(await probe(), first - 1, `${p}: the refusals cost the upstream budget nothing`);
  }
}));

test('the simulator refuses the same bodies, and charges nothing', async () => {
  const before = await account();
  for (const [p, body] of posts) {
    const res = await fetch(stack.sim.url + p, post(JSON.stringify(body) + '{}', { authorization: `Bearer ${stack.keys.live}` }));
    const e = await envelope(res, 422, 'VALIDATION.FIELD.INVALID');
    assert.equal(e.field, 'body', p);
  }
  assert.deepEqual(await account(), before);
});

test('every simulator answer has the rate-limit headers, 401s before authentication included', async () => {
  for (const headers of [{}, { authorization: 'Bearer svc_live_0000' }, { authorization: `Bearer svc_live_${'0'.repeat(32)}` }]) {
    const res = await fetch(`${stack.sim.url}/v1/wallet`, { headers });
    await envelope(res, 401, headers.authorization ? 'AUTH.KEY.INVALID' : 'AUTH.KEY.MISSING');
    assert.equal(res.headers.get('x-ratelimit-limit'), '300');
    assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
    assert.match(res.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
  }
});

test('unbounded text: a 3 MiB job name or a 2.5 MiB street2 is a 422 naming the field and its limit, and nothing is stored; forwarded v1 calls and the simulator refuse alike', () => stack.sim.inOneWindow(async () => {
  const row = { reference: '#1', ...shipment };
  const job = (patch) => JSON.stringify({ name: 'orders.csv', rule: { rule: 'cheapest' }, approval: { approval: 'review_first' }, rows: [row], ...patch });
  const listed = async () => (await (await api('/api/jobs')).json()).jobs.map((j) => [j.id, j.name.length]);
  const before = await listed();
  const longLine = { ...shipment.to_address, street2: 's'.repeat(5 * 512 * 1024) };
  for (const [body, field, limit] of [
    [job({ name: 'n'.repeat(3 * 1024 * 1024) }), 'name', 255],
    [job({ rows: [{ ...row, to_address: longLine }] }), 'rows[0].to_address.street2', 100],
  ]) {
    const e = await envelope(await api('/api/jobs', post(body)), 422, 'VALIDATION.FIELD.INVALID');
    assert.equal(e.field, field);
    assert.match(e.message, new RegExp(`${field.replace(/[[\].]/g, '\\$&')} is invalid: must be at most ${limit} characters`));
  }
  assert.deepEqual(await listed(), before, 'nothing was stored');
  // The longest name taken comes back whole in the list.
  const created = await api('/api/jobs', post(job({ name: 'n'.repeat(255) })));
  assert.equal(created.status, 201);
  const id = (await created.json()).id;
  assert.deepEqual((await listed()).find(([j]) => j === id), [id, 255]);

  // The v1 calls the Worker forwards: refused before any upstream call.
  const remaining = async () => {
    const res = await api('/api/v1/rates', post(JSON.stringify(shipment)));
    await res.arrayBuffer();
    return Number(res.headers.get('x-ratelimit-remaining'));
  };
  const first = await remaining();
  const refusals = [
    ['/v1/rates', { ...shipment, to_address: longLine }, 'to_address.street2'],
    ['/v1/addresses/validate', longLine, 'street2'],
    ['/v1/rates', { ...shipment, to_address: { ...shipment.to_address, state: 'ON' } }, 'to_address.state'],
  ];
  const messages = [];
  for (const [p, body, field] of refusals) {
    const e = await envelope(await api(`/api${p}`, post(JSON.stringify(body))), 422, 'VALIDATION.FIELD.INVALID');
    assert.equal(e.field, field);
    messages.push(e.message);
  }
  assert.equal(await remaining(), first - 1, 'the refusals cost the upstream budget nothing');
  // The simulator, called directly, refuses the same bodies in the same words.
  for (const [i, [p, body]] of refusals.entries()) {
    const res = await fetch(stack.sim.url + p, post(JSON.stringify(body), { authorization: `Bearer ${stack.keys.live}` }));
    assert.equal((await envelope(res, 422, 'VALIDATION.FIELD.INVALID')).message, messages[i]);
  }
}));
