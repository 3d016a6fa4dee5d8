// A personal access token stays in the organization it was made in,
// through the real Workers in workerd: a person who is an admin of A and a
// viewer of B signs in with a token made in A; switching that session to B
// is refused exactly like switching to an organization that does not exist
// (404 EDGE.ORG.NOT_FOUND, the same message and headers), the session stays
// A's and shows nothing of B (its organization list holds A alone; B's
// team, saved addresses and tokens stay out of reach). The same person's password
// session switches to B as before. Only A lists and revokes the token. On
// the shared stack, in organizations of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { Person, PASSWORD, assertError, newOrgAdmin } from './support/orgs.mjs';

const { edge, sessionSecret } = await sharedStack();

/** A client at an address of its own (the sign-in throttle counts by address). */
const person = () => new Person(edge.url);
/** A new organization made through a setup link; returns its admin, signed in. */
const newOrg = (name) => newOrgAdmin(edge.url, sessionSecret, name);

/** The answer's header names, but those that differ per answer anyway. */
const headerNames = (res) => [...res.headers.keys()].filter((h) => !['date', 'x-request-id'].includes(h)).sort();

test('a token session of A cannot switch to B, answered like an unknown organization; the password session can', async () => {
  // P: admin of A (they made it), viewer of B.
  const p = await newOrg('Alpha Tokens');
  const a = p.org;
  const bAdmin = await newOrg('Beta Tokens');
  const b = bAdmin.org;
  const invited = await bAdmin.invite('viewer');
  assert.equal(invited.status, 201, invited.text);
  const joined = await p.accept(invited.json.token, { email: p.email, password: PASSWORD });
  assert.equal(joined.status, 200, joined.text);
  assert.equal(joined.json.org.id, b);
  // Something of B's that any of its members reads.
  const warehouse = { name: 'Beta Warehouse', street1: '1 Secret Way', city: 'Oakland', state: 'CA', zip: '94607', country: 'US' };
  const saved = await bAdmin.call('POST', '/api/org/addresses', { label: 'Beta back door', address: warehouse });
  assert.equal(saved.status, 201, saved.text);

  // A token made in A, while signed in to A; its prefix names A.
  const inA = person();
  const signed = await inA.signIn(p.email, PASSWORD);
  assert.equal(signed.status, 200, signed.text);
  if (signed.json.org.id !== a) assert.equal((await inA.call('PUT', '/api/session/org', { org: a })).status, 200);
  const made = await inA.call('POST', '/api/org/tokens', { name: 'shop A CI' });
  assert.equal(made.status, 201, made.text);
  const token = made.json.token;
  assert.ok(token.startsWith(`parcel_pat_${a.slice(4)}`), 'the token names A');

  // The script signs in with it: a session of A, listing A alone.
  const script = person();
  const started = await script.call('POST', '/api/session', { token });
  assert.equal(started.status, 200, started.text);
  assert.equal(started.json.org.id, a);
  assert.equal(started.json.role, 'admin');
  assert.deepEqual(started.json.orgs.map((o) => o.id), [a], 'a token session shows no other organization');

  // Switching to B: refused exactly as switching to an organization that does not exist.
  const toB = await script.call('PUT', '/api/session/org', { org: b });
  const refused = assertError(toB, 404, 'EDGE.ORG.NOT_FOUND');
  const unknown = assertError(await script.call('PUT', '/api/session/org', { org: `org_${randomBytes(8).toString('hex')}` }), 404, 'EDGE.ORG.NOT_FOUND');
  assert.equal(refused.message, unknown.message);
  assert.equal(refused.suggestion, unknown.suggestion);
  assert.equal(refused.docs_url, unknown.docs_url);
  assert.deepEqual(Object.keys(refused).sort(), Object.keys(unknown).sort());
  // And as a password session of someone who is not in B is answered.
  const stranger = await newOrg('Gamma Tokens');
  const outsider = assertError(await stranger.call('PUT', '/api/session/org', { org: b }), 404, 'EDGE.ORG.NOT_FOUND');
  assert.equal(refused.message, outsider.message);
  assert.deepEqual(headerNames(toB), headerNames(await stranger.call('PUT', '/api/session/org', { org: b })));

  // The script still acts for A, and reads nothing of B.
  const now = await script.call('GET', '/api/session');
  assert.equal(now.status, 200, now.text);
  assert.equal(now.json.org.id, a);
  assert.deepEqual(now.json.orgs.map((o) => o.id), [a]);
  const members = await script.call('GET', '/api/org/members');
  assert.equal(members.status, 200, members.text);
  assert.ok(!members.text.includes(bAdmin.email), 'B\'s team is not A\'s');
  const addresses = await script.call('GET', '/api/org/addresses');
  assert.equal(addresses.status, 200, addresses.text);
  assert.ok(!addresses.text.includes('Beta back door'), 'B\'s saved addresses are not A\'s');

  // P's own password session switches to B, as a viewer.
  const mine = person();
  assert.equal((await mine.signIn(p.email, PASSWORD)).status, 200);
  const switched = await mine.call('PUT', '/api/session/org', { org: b });
  assert.equal(switched.status, 200, switched.text);
  assert.deepEqual([switched.json.org.id, switched.json.role], [b, 'viewer']);
  assert.ok((await mine.call('GET', '/api/org/addresses')).text.includes('Beta back door'));
  assert.deepEqual(switched.json.orgs.map((o) => o.id).sort(), [a, b].sort());

  // The token is A's: listed and revocable there only.
  const id = made.json.info.id;
  assert.ok(!(await mine.call('GET', '/api/org/tokens')).json.tokens.some((t) => t.id === id), 'not among P\'s tokens in B');
  assert.ok(!(await bAdmin.call('GET', '/api/org/tokens')).json.tokens.some((t) => t.id === id), 'not among B\'s tokens');
  assertError(await bAdmin.call('DELETE', `/api/org/tokens/${id}`), 404, 'EDGE.TOKEN.NOT_FOUND');
  assert.ok((await inA.call('GET', '/api/org/tokens')).json.tokens.some((t) => t.id === id), 'A\'s admin sees it');
});
