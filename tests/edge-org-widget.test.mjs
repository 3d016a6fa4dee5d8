// Each organization's storefront widget through the three Workers in
// workerd, in front of the real simulator (each organization's keys belong
// to an account of its own there): its admin sets the shop origins,
// ship-from, share and fallback in the app's endpoint (audited with what
// changed; operators and viewers may read, not write); the page and the
// quotes named by its widget id use its settings and its key only; a shop
// allowed by one organization cannot frame or quote another's widget; an
// unknown id is refused without saying more; the widget quote cache never
// hands one organization's quote to another's shopper. On the shared stack
// (its deployment's own widget allows no shop; its quote cache is on).
// (The deployment's own widget beside them, configured by its settings:
// tests/edge-deployment.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, sharedStack } from './support/stack.mjs';
import { Person, assertError, newAddress, newOrgLink } from './support/orgs.mjs';

const PASSWORD = 'correct horse battery staple';
const SHOP_A = 'https://shop-a.example';
const SHOP_B = 'https://shop-b.example';
const FROM = { name: 'Acme Goods', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
/** The one shopper of this file (the per-shopper cap counts by address). */
const SHOPPER = newAddress();
const { sim, edge, sessionSecret } = await sharedStack();

const person = () => new Person(edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;
const calls = async (key) => (await sim.control('GET', `/__sim/keys/${key}`)).calls;

/** A new organization with a sandbox key of its own simulator account; returns its admin. */
async function newOrg(name) {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = person();
  const res = await admin.createOrg(link.token, { orgName: name, name: `${name} Admin`, email: email('admin'), password: PASSWORD });
  assert.equal(res.status, 200, res.text);
  admin.org = res.json.org.id;
  const { key } = await sim.control('POST', '/__sim/keys', { env: 'sandbox', scopes: ALL_SCOPES, account: `acct_${name.toLowerCase()}_${randomBytes(4).toString('hex')}` });
  admin.key = key;
  const set = await admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
  assert.equal(set.status, 200, set.text);
  return admin;
}

async function member(admin, role) {
  const invited = await admin.invite(role);
  const who = person();
  assert.equal((await who.accept(invited.json.token, { email: email(role), password: PASSWORD })).status, 200);
  return who;
}

const settings = (origins, extra = {}) => ({ origins, ship_from: FROM, share: 0.5, fallback: null, ...extra });

/** The widget page for `query`: status, its CSP's frame-ancestors and its metas. */
async function page(query) {
  const res = await fetch(`${edge.url}/widget/?${new URLSearchParams(query)}`);
  const html = await res.text();
  const meta = (name) => {
    const m = new RegExp(`<meta name="${name}" content="([^"]*)"`).exec(html);
    return m && m[1].replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  };
  const ancestors = /frame-ancestors ([^;]+)/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
  return { status: res.status, ancestors, shop: meta('parcel-shop'), from: meta('parcel-ship-from'), fallback: meta('parcel-fallback') };
}

const destination = (zip) => ({ name: 'Shopper', street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip, country: 'US' });

/** A rates call as the widget page framed by `shop` makes it, naming widget `id`. */
async function quote(shop, id, zip = '11201') {
  const headers = { origin: edge.url, 'content-type': 'application/json', 'parcel-widget-origin': shop, 'cf-connecting-ip': SHOPPER };
  if (id) headers['parcel-widget-id'] = id;
  const body = { from_address: FROM, to_address: destination(zip), parcel: { weight_oz: 20, length: 10, width: 8, height: 4 } };
  const res = await fetch(`${edge.url}/api/v1/rates`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, age: res.headers.get('age'), text, json: JSON.parse(text) };
}

let acme, beta;

test('an admin sets the widget: checked field by field, audited with what changed; operators and viewers read it but cannot change it', async () => {
  acme = await newOrg('Acme');
  const fresh = await acme.call('GET', '/api/org/widget');
  assert.equal(fresh.status, 200, fresh.text);
  assert.deepEqual(fresh.json, {
    widget_id: acme.org,
    settings: { origins: [], ship_from: null, share: 0.25, fallback: null },
    updated_by: null,
    updated_at: null,
  });

  const badOrigin = assertError(await acme.call('PUT', '/api/org/widget', settings([SHOP_A, 'http://shop.example'])), 422, 'VALIDATION.FIELD.INVALID');
  assert.equal(badOrigin.field, 'origins[1]');
  assert.match(badOrigin.message, /https:\/\//);
  const badFrom = assertError(await acme.call('PUT', '/api/org/widget', settings([SHOP_A], { ship_from: { ...FROM, zip: '' } })), 422, 'VALIDATION.FIELD.REQUIRED');
  assert.equal(badFrom.field, 'ship_from.zip');
  const badWait = assertError(await acme.call('PUT', '/api/org/widget', settings([SHOP_A], { fallback: { name: 'Flat', price_cents: 500, wait_seconds: 600 } })), 422, 'VALIDATION.FIELD.INVALID');
  assert.equal(badWait.field, 'fallback.wait_seconds');
  assert.deepEqual((await acme.call('GET', '/api/org/widget')).json.settings.origins, [], 'nothing refused was stored');

  const saved = await acme.call('PUT', '/api/org/widget', settings([' https://Shop-A.example ', SHOP_A], { fallback: { name: 'Standard shipping', price_cents: 795 } }));
  assert.equal(saved.status, 200, saved.text);
  assert.deepEqual(saved.json.settings.origins, [SHOP_A], 'lower-cased, once');
  assert.deepEqual(saved.json.settings.fallback, { name: 'Standard shipping', price_cents: 795, wait_seconds: 8 }, 'the wait defaults to 8 s');
  assert.match(saved.json.updated_by, /^Acme Admin </);

  const audit = (await acme.call('GET', '/api/org/audit')).json.entries.filter((e) => e.action === 'widget_changed');
  assert.equal(audit.length, 1, 'refused changes are not audited');
  assert.equal(audit[0].detail,
    `widget shop origins added: ${SHOP_A}; ship-from: none → Acme Goods, 500 Market St Suite 3, San Francisco, CA 94105 US; share: 0.25 → 0.5; fallback: none → Standard shipping $7.95 after 8 s`);

  for (const role of ['operator', 'viewer']) {
    const who = await member(acme, role);
    const read = await who.call('GET', '/api/org/widget');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.settings.origins, [SHOP_A]);
    assertError(await who.call('PUT', '/api/org/widget', settings([SHOP_B])), 403, 'EDGE.ROLE.FORBIDDEN');
  }
  assert.deepEqual((await acme.call('GET', '/api/org/widget')).json.settings.origins, [SHOP_A]);
});

test('the page and the quotes named by a widget id use that organization\'s settings and key; another organization\'s shop and unknown ids are refused', async () => {
  beta = await newOrg('Beta');
  assert.equal((await beta.call('PUT', '/api/org/widget', settings([SHOP_B], { ship_from: { ...FROM, name: 'Beta Supply' } }))).status, 200);
  assert.equal((await beta.call('GET', '/api/org/widget')).json.widget_id, beta.org);

  const a = await page({ widget: acme.org, shop: SHOP_A });
  assert.equal(a.status, 200);
  assert.equal(a.ancestors, SHOP_A);
  assert.equal(a.shop, SHOP_A);
  assert.equal(JSON.parse(a.from).name, 'Acme Goods');
  assert.deepEqual(JSON.parse(a.fallback), { name: 'Standard shipping', price_cents: 795, wait_seconds: 8 });
  const b = await page({ widget: beta.org, shop: SHOP_B });
  assert.deepEqual([b.status, b.ancestors, JSON.parse(b.from).name, b.fallback], [200, SHOP_B, 'Beta Supply', '']);

  // Acme's shop on Beta's widget id, unknown and malformed ids: nobody may frame.
  for (const query of [
    { widget: beta.org, shop: SHOP_A },
    { widget: 'org_doesnotexist', shop: SHOP_A },
    { widget: 'acct_1', shop: SHOP_A },
    // No id: the deployment's own widget, which allows neither shop.
    { shop: SHOP_A },
  ]) {
    const refused = await page(query);
    assert.deepEqual([refused.status, refused.ancestors, refused.shop, refused.from], [403, "'none'", '', ''], JSON.stringify(query));
  }

  const [acmeBefore, betaBefore] = [await calls(acme.key), await calls(beta.key)];
  const quoted = await quote(SHOP_A, acme.org);
  assert.equal(quoted.status, 200, quoted.text);
  assert.ok(quoted.json.rates.length > 0);
  assert.equal(await calls(acme.key), acmeBefore + 1, 'quoted with Acme\'s key');
  assert.equal(await calls(beta.key), betaBefore, 'never with Beta\'s');

  // Another organization's widget and an unknown id are refused alike (tests/edge-org-same-answers.test.mjs).
  const foreign = assertError(await quote(SHOP_A, beta.org), 403, 'EDGE.ORIGIN.REFUSED');
  const unknown = await quote(SHOP_A, 'org_doesnotexist');
  assert.equal(assertError(unknown, 403, 'EDGE.ORIGIN.REFUSED').message, foreign.message);
  assert.ok(!unknown.text.includes('org_doesnotexist'), 'the refusal does not echo the id');
  // A closed widget (no origins) answers exactly like an unknown one.
  const closed = await newOrg('Gamma');
  const closedAnswer = await quote(SHOP_A, closed.org);
  assert.equal(closedAnswer.status, unknown.status);
  assert.equal(closedAnswer.json.error.message, unknown.json.error.message);
  assert.equal(await calls(beta.key), betaBefore, 'no refused call reached Beta\'s key');
});

test('the widget quote cache is each organization\'s own: the same quote for another organization\'s shopper goes to its own key', async () => {
  const zip = '10001';
  const first = await quote(SHOP_A, acme.org, zip);
  assert.equal(first.status, 200, first.text);
  const acmeCalls = await calls(acme.key);
  const again = await quote(SHOP_A, acme.org, zip);
  assert.equal(again.status, 200);
  assert.ok(again.age !== null, 'Acme\'s repeat is answered from the cache');
  assert.equal(await calls(acme.key), acmeCalls);

  // Another organization whose widget allows the same shop: its first
  // quote of the same parcel and address is made with its own key.
  const delta = await newOrg('Delta');
  assert.equal((await delta.call('PUT', '/api/org/widget', settings([SHOP_A]))).status, 200);
  const deltaCalls = await calls(delta.key);
  const other = await quote(SHOP_A, delta.org, zip);
  assert.equal(other.status, 200, other.text);
  assert.equal(other.age, null, 'not from Acme\'s cache');
  assert.equal(await calls(delta.key), deltaCalls + 1);
  assert.equal(await calls(acme.key), acmeCalls);
  assert.notDeepEqual(other.json.rates.map((r) => r.id), first.json.rates.map((r) => r.id));
});
