// Every label followed: labels bought through the Worker and announced by
// the service's signed label.created get a v1 tracker, registered and read
// by the organization's ledger object off the purchase path, with the
// organization's own key (docs/tracking.md). On the shared stack.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { until } from './support/wait.mjs';
import { buyOnSim } from './support/ledger-seed.mjs';

const address = (name, street1, zip, state, city) => ({ name, street1, city, state, zip, country: 'US' });
const RATE_REQUEST = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA', 'San Francisco'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY', 'Brooklyn'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};

const shared = await sharedStack();
let stack, admin;
before(async () => {
  stack = await orgStack(shared);
  await stack.webhookSecret(`whsec_${randomBytes(16).toString('hex')}`);
  admin = await stack.edge.session(stack.users.admin);
});

async function api(path, init = {}) {
  const res = await fetch(stack.edge.url + path, {
    ...init,
    headers: { cookie: admin.cookie, origin: admin.origin, 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

async function shipment(id) {
  const { status, body, text } = await api('/api/shipments');
  assert.equal(status, 200, text);
  return body.shipments.find((s) => s.label_id === id);
}

test('a label bought through the Worker is registered and read with the organization key, off the purchase path', async () => {
  const quote = await api('/api/v1/rates', { method: 'POST', body: JSON.stringify(RATE_REQUEST) });
  assert.equal(quote.status, 200, quote.text);
  const bought = await api('/api/v1/labels', {
    method: 'POST', headers: { 'idempotency-key': randomUUID() }, body: JSON.stringify({ rate_id: quote.body.rates[0].id }),
  });
  assert.equal(bought.status, 201, bought.text);
  const label = bought.body;
  const followed = await until(`the tracker of ${label.id}`, async () => {
    const s = await shipment(label.id);
    return s?.following === 'following' && s;
  });
  assert.match(followed.tracker_id, /^trk_/);
  assert.equal(followed.status, 'pre_transit');
  assert.equal(followed.tracking_number, label.tracking_number);
  assert.equal(followed.carrier, label.carrier);
  assert.equal(followed.events[0].status, 'pre_transit');
  // The tracker is the service's own, made with this organization's key.
  const env = label.sandbox ? 'sandbox' : 'live';
  const read = await fetch(`${stack.sim.url}/v1/trackers/${followed.tracker_id}`, {
    headers: { authorization: `Bearer ${stack.keys[env]}` },
  });
  assert.equal(read.status, 200);
  assert.equal((await read.json()).tracking_number, label.tracking_number);
});

test('a label announced by label.created is followed too, and a scanned parcel reads in transit', async () => {
  const auth = { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' };
  const rates = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(RATE_REQUEST) })).json();
  // Scanned before the ledger first reads it: the first read says in transit.
  const res = await fetch(`${stack.sim.url}/v1/labels`, { method: 'POST', headers: auth, body: JSON.stringify({ rate_id: rates.rates[0].id }) });
  assert.equal(res.status, 201);
  const label = await res.json();
  await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`);
  const followed = await until(`${label.id} followed`, async () => {
    const r = await api('/api/shipments?mode=live');
    assert.equal(r.status, 200, r.text);
    return r.body.shipments.find((s) => s.label_id === label.id && s.status);
  });
  assert.equal(followed.status, 'in_transit');
  assert.equal(followed.following, 'following');
  assert.deepEqual(followed.events.map((e) => e.status), ['pre_transit', 'in_transit']);
  assert.ok(followed.estimated_delivery, 'the carrier estimates the day once scanned');
});

test('200 labels at raised limits: each registered once with no 429, the trackers taking at most their quarter of the window', async () => {
  // An organization of its own whose keys have raised tracker limits; its
  // labels are bought by another integration of its account and announced
  // by label.created, so its own key is used by the trackers alone.
  const limits = { 'POST /v1/trackers': 1000, 'GET /v1/trackers/{id}': 1500 };
  const own = await orgStack(shared, { limits });
  await own.webhookSecret(`whsec_${randomBytes(16).toString('hex')}`);
  const person = await own.edge.session(own.users.admin);
  const calls = async (env) => (await own.sim.control('GET', `/__sim/keys/${own.keys[env]}`)).calls;
  // Setting the keys up checked them with the service: counted from here.
  const before = { live: await calls('live'), sandbox: await calls('sandbox') };
  const now = Math.floor(Date.now() / 1000);
  const ids = await buyOnSim(own, { count: 200, days: 1, now, account: own.accountId });
  const list = async () => {
    const res = await fetch(`${own.edge.url}/api/shipments?mode=live`, { headers: { cookie: person.cookie, origin: person.origin } });
    assert.equal(res.status, 200);
    return (await res.json()).shipments;
  };
  const followed = await until('200 labels followed', async () => {
    const l = await list();
    return l.filter((x) => x.following === 'following').length === 200 && l;
  }, 120_000, 500);
  assert.deepEqual(new Set(followed.map((x) => x.label_id)), new Set(ids));
  // One registration each: a 429 would have been counted and tried again.
  assert.equal((await calls('live')) - before.live, 200);
  assert.equal((await calls('sandbox')) - before.sandbox, 0);
  // A person's call now still finds at least the others' three quarters
  // of the window (the trackers' 250 a minute at most).
  const res = await fetch(`${own.edge.url}/api/v1/trackers`, {
    method: 'POST',
    headers: { cookie: person.cookie, origin: person.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ tracking_number: followed[0].tracking_number }),
  });
  assert.ok(res.ok, `${res.status} ${await res.clone().text()}`);
  assert.equal(res.headers.get('x-ratelimit-limit'), '1000');
  assert.ok(Number(res.headers.get('x-ratelimit-remaining')) >= 749, res.headers.get('x-ratelimit-remaining'));
});
