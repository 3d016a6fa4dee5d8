// What a stranger must not tell apart is answered alike, through the real
// Workers in workerd: a widget call naming another organization's widget
// id, a made-up one and a closed one (no shop allowed); an invitation token
// that was never made, one naming no organization, and another
// organization's invitation under this one's id (previewed, accepted, or
// withdrawn by id by an admin); an unknown email and a wrong password, up
// to and including their throttle. Alike means the same status, code,
// message and suggestion, and the same headers. On the shared stack, in
// organizations of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { Person, PASSWORD, assertError, newAddress, newOrgAdmin } from './support/orgs.mjs';

const SHOP_A = 'https://shop-a.example';
const SHOP_B = 'https://shop-b.example';
const FROM = { name: 'Acme Goods', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
/** The one shopper of this file (the widget's per-shopper cap counts by address). */
const SHOPPER = newAddress();
const { edge, sessionSecret } = await sharedStack();

/** A client at an address of its own (the sign-in throttle counts by address). */
const person = () => new Person(edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;
const madeUpOrg = () => `org_${randomBytes(8).toString('hex')}`;

const newOrg = (name) => newOrgAdmin(edge.url, sessionSecret, name);

/** The answer's header names and values, but those that differ per answer anyway. */
const headers = (res) => [...res.headers].filter(([h]) => !['date', 'x-request-id'].includes(h)).sort();

/** `answers` all say the same: status, code, message, suggestion, docs and headers. */
function alike(answers, status, code) {
  const [first, ...rest] = answers.map((res) => ({ res, e: assertError(res, status, code) }));
  for (const { res, e } of rest) {
    for (const f of ['message', 'suggestion', 'docs_url', 'field', 'retry_after_seconds']) assert.equal(e[f], first.e[f], f);
    assert.deepEqual(Object.keys(e).sort(), Object.keys(first.e).sort());
    assert.deepEqual(headers(res), headers(first.res));
  }
  return first.e;
}

/** A rates call as the widget page framed by `shop` makes it, naming widget `id`. */
async function quote(shop, id) {
  const headers = { origin: edge.url, 'content-type': 'application/json', 'parcel-widget-origin': shop, 'parcel-widget-id': id, 'cf-connecting-ip': SHOPPER };
  const body = { from_address: FROM, to_address: { ...FROM, name: 'Shopper', zip: '10001', city: 'New York', state: 'NY' }, parcel: { weight_oz: 20, length: 10, width: 8, height: 4 } };
  const res = await fetch(`${edge.url}/api/v1/rates`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

test('a foreign widget id is answered exactly like a made-up one and a closed one', async () => {
  const beta = await newOrg('Beta Widgets');
  const set = await beta.call('PUT', '/api/org/widget', { origins: [SHOP_B], ship_from: FROM, share: 0.5, fallback: null });
  assert.equal(set.status, 200, set.text);
  const closed = await newOrg('Closed Widgets');
  // Shop A names Beta's widget (which allows only shop B), a made-up id, a closed widget.
  const e = alike([await quote(SHOP_A, beta.org), await quote(SHOP_A, madeUpOrg()), await quote(SHOP_A, closed.org)], 403, 'EDGE.ORIGIN.REFUSED');
  assert.ok(!e.message.includes(beta.org), 'the refusal names no organization');
  // Shop B on Beta's widget is served, so the refusal above was about the id alone.
  const served = await quote(SHOP_B, beta.org);
  assert.notEqual(served.status, 403, served.text);
});

test('an invitation token never made, naming no organization, or another organization\'s is the same unknown invitation', async () => {
  const alpha = await newOrg('Alpha Invites');
  const beta = await newOrg('Beta Invites');
  const real = await beta.invite('viewer');
  assert.equal(real.status, 201, real.text);
  const nonce = (org) => org.slice(4);
  const secret = real.json.token.slice(16);
  const tokens = [
    `${nonce(alpha.org)}${randomBytes(32).toString('base64url')}`,
    `${nonce(madeUpOrg())}${randomBytes(32).toString('base64url')}`,
    // Beta's real invitation, presented as Alpha's.
    `${nonce(alpha.org)}${secret}`,
  ];
  const previews = [];
  const accepts = [];
  for (const token of tokens) {
    previews.push(await person().preview(token));
    accepts.push(await person().accept(token, { email: email('joiner'), password: PASSWORD, name: 'Joiner' }));
  }
  alike(previews, 404, 'EDGE.INVITE.UNKNOWN');
  alike(accepts, 404, 'EDGE.INVITE.UNKNOWN');
  // The real one still works where it belongs.
  assert.equal((await person().preview(real.json.token)).status, 200);
  // Withdrawing by id: another organization's invitation is an unknown one.
  alike([
    await alpha.call('DELETE', `/api/org/invites/${real.json.invite.id}`),
    await alpha.call('DELETE', '/api/org/invites/inv_000000000000'),
  ], 404, 'EDGE.INVITE.UNKNOWN');
  assert.equal((await beta.call('GET', '/api/org/invites')).json.invites.find((i) => i.id === real.json.invite.id).state, 'pending');
});

test('an unknown email and a wrong password are answered alike, throttle included', async () => {
  const owner = await newOrg('Alike Sign-in');
  const [known, stranger] = [person(), person()];
  const nobody = email('nobody');
  for (let i = 0; i < 3; i++) {
    alike([await known.signIn(owner.email, `wrong ${i}`), await stranger.signIn(nobody, `wrong ${i}`)], 401, 'EDGE.SIGN_IN.FAILED');
  }
  // The fourth try at once: both wait, for as long, said alike.
  const [a, b] = [await known.signIn(owner.email, PASSWORD), await stranger.signIn(nobody, PASSWORD)];
  const ra = Number(a.headers.get('retry-after'));
  const rb = Number(b.headers.get('retry-after'));
  assert.ok(Math.abs(ra - rb) <= 1, `${ra} and ${rb}`);
  const ea = assertError(a, 429, 'EDGE.SIGN_IN.THROTTLED');
  const eb = assertError(b, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.equal(ea.message, eb.message);
  assert.deepEqual(headers(a).filter(([h]) => h !== 'retry-after'), headers(b).filter(([h]) => h !== 'retry-after'));
});
