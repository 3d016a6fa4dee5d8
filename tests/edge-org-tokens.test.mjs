// Personal access tokens of an organization's members through the real
// Workers in workerd, in front of the real simulator: a member makes one
// (shown once, listed by its last four), signs in with it as themselves
// with their role at that moment; revocation, a demotion and a removal
// count from the next sign-in; admins see and revoke everyone's, another
// organization's admin nothing; wrong tokens are refused alike and
// throttled per client address; no token reaches the log. On the shared
// stack. (Expiry is the rule `orgs::rules::token_role`, tested natively:
// the Workers' clock cannot be moved from here. The deployment's USERS
// tokens: tests/edge-deployment.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { Person, assertError, orgStack } from './support/orgs.mjs';

const shared = await sharedStack();
const { edge } = shared;
const PASSWORD = 'correct horse battery staple';
const DAY = 86400;
/** Every token made, for the log scan. */
const made = [];

/** A client at its own address, so one test's failures never throttle another's. */
const client = () => new Person(edge.url);

async function makeToken(who, name, days) {
  const res = await who.call('POST', '/api/org/tokens', days === undefined ? { name } : { name, expires_in_days: days });
  assert.equal(res.status, 201, res.text);
  made.push(res.json.token);
  return res.json;
}

/** Signs a fresh client in with `token`; returns the client and the answer. */
async function signInWith(token, who = client()) {
  const res = await who.call('POST', '/api/session', { token });
  return { who, res };
}

const list = async (who) => {
  const res = await who.call('GET', '/api/org/tokens');
  assert.equal(res.status, 200, res.text);
  return res.json.tokens;
};

let acme;

test('a member makes a token, shown once; it signs in as them, with their role', async () => {
  acme = await orgStack(shared, { orgName: 'Acme Tokens' });
  for (const role of ['admin', 'operator', 'viewer']) made.push(acme.users[role].token);
  const { operator } = acme.people;

  const created = await makeToken(operator, '  nightly export  ');
  const t = created.token;
  assert.match(t, /^parcel_pat_[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
  assert.ok(t.startsWith(`parcel_pat_${acme.org.id.slice(4)}`), 'the token names its organization');
  assert.equal(created.info.name, 'nightly export');
  assert.equal(created.info.last_four, t.slice(-4));
  assert.equal(created.info.owner, `${operator.name} <${operator.email}>`);
  assert.equal(created.info.expires_at - created.info.created_at, 30 * DAY, 'thirty days unless chosen');
  assert.equal(created.info.last_used_at, null);
  assert.match(created.info.id, /^tok_[0-9a-f]+$/);

  // Shown once: no list, no audit line holds it.
  const mine = await list(operator);
  assert.ok(mine.some((x) => x.id === created.info.id));
  for (const res of [await operator.call('GET', '/api/org/tokens'), await acme.people.admin.call('GET', '/api/org/tokens'), await acme.people.admin.call('GET', '/api/org/audit')]) {
    assert.ok(!res.text.includes(t.slice(27)), 'an answer holds the token');
  }

  // It signs in as the operator, in the organization, and the session works.
  const { who: script, res } = await signInWith(t);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.role, 'operator');
  assert.equal(res.json.org.id, acme.org.id);
  assert.equal(res.json.user, `${operator.name} <${operator.email}>`);
  assert.ok(res.json.scopes.includes('labels:write'));
  assert.equal((await script.call('GET', '/api/v1/wallet')).status, 200);
  const used = (await list(operator)).find((x) => x.id === created.info.id);
  assert.ok(Math.abs(used.last_used_at - Date.now() / 1000) < 60, 'its last use is recorded');

  // A viewer's token signs in as a viewer, who cannot buy.
  const viewer = (await signInWith(acme.users.viewer.token)).who;
  assert.equal((await viewer.call('GET', '/api/session')).json.role, 'viewer');
  const quote = await script.call('POST', '/api/v1/rates', {
    from_address: { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
    to_address: { name: 'Grace Hopper', street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201', country: 'US' },
    parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
  });
  assert.equal(quote.status, 200, quote.text);
  const rate = quote.json.rates[0].id;
  const refused = await viewer.call('POST', '/api/v1/labels', { rate_id: rate }, { 'idempotency-key': `viewer-${randomBytes(4).toString('hex')}` });
  assertError(refused, 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  const bought = await script.call('POST', '/api/v1/labels', { rate_id: rate }, { 'idempotency-key': `op-${randomBytes(4).toString('hex')}` });
  assert.equal(bought.status, 201, bought.text);

  // The audit log records the creation by name and last four, never the token.
  const audit = (await acme.people.admin.call('GET', '/api/org/audit')).json.entries;
  const line = audit.find((e) => e.action === 'token_created' && e.detail.includes(created.info.id));
  assert.ok(line, JSON.stringify(audit));
  assert.equal(line.actor, created.info.owner);
  assert.match(line.detail, new RegExp(`"nightly export" \\(…${created.info.last_four.replace(/[-_]/g, '.')}\\)`));
});

test('a bad name or expiry is refused with its field; no token lasts for ever', async () => {
  const { viewer } = acme.people;
  const before = (await list(viewer)).length;
  const invalid = 'VALIDATION.FIELD.INVALID';
  for (const [body, field, code] of [
    [{ name: '' }, 'name', invalid],
    [{ name: 'x'.repeat(101) }, 'name', invalid],
    [{ name: 'ok', expires_in_days: 0 }, 'expires_in_days', invalid],
    [{ name: 'ok', expires_in_days: 366 }, 'expires_in_days', invalid],
    [{ expires_in_days: 7 }, 'name', 'VALIDATION.FIELD.REQUIRED'],
  ]) {
    const e = assertError(await viewer.call('POST', '/api/org/tokens', body), 422, code);
    assert.equal(e.field, field, JSON.stringify(body));
  }
  assert.equal((await list(viewer)).length, before, 'nothing was made');
  const year = await makeToken(viewer, 'yearly', 365);
  assert.equal(year.info.expires_at - year.info.created_at, 365 * DAY);
});

test('revoked, demoted, removed: each counts from the next sign-in; every refusal is the same', async () => {
  const { admin, operator, viewer } = acme.people;
  const unknown = (await signInWith(`parcel_pat_${acme.org.id.slice(4)}${randomBytes(32).toString('base64url')}`)).res;
  const reference = assertError(unknown, 401, 'EDGE.SESSION.INVALID_TOKEN');
  const sameAsUnknown = (res) => {
    const e = assertError(res, 401, 'EDGE.SESSION.INVALID_TOKEN');
    assert.equal(e.message, reference.message);
    assert.equal(e.suggestion, reference.suggestion);
  };
  sameAsUnknown((await signInWith(`pt_${randomBytes(24).toString('hex')}`)).res);
  sameAsUnknown((await signInWith('parcel_pat_not-a-token')).res);

  // Revoked by its owner.
  const own = await makeToken(operator, 'to revoke');
  assert.equal((await signInWith(own.token)).res.status, 200);
  const revoked = await operator.call('DELETE', `/api/org/tokens/${own.info.id}`);
  assert.equal(revoked.status, 200, revoked.text);
  assert.ok(!revoked.json.tokens.some((x) => x.id === own.info.id));
  sameAsUnknown((await signInWith(own.token)).res);
  assertError(await operator.call('DELETE', `/api/org/tokens/${own.info.id}`), 404, 'EDGE.TOKEN.NOT_FOUND');

  // A member sees and revokes only their own; an admin sees everyone's, with the owner.
  const viewers = await makeToken(viewer, 'viewer script');
  assert.ok(!(await list(operator)).some((x) => x.id === viewers.info.id));
  assertError(await operator.call('DELETE', `/api/org/tokens/${viewers.info.id}`), 404, 'EDGE.TOKEN.NOT_FOUND');
  const all = await list(admin);
  const seen = all.find((x) => x.id === viewers.info.id);
  assert.equal(seen.owner, `${viewer.name} <${viewer.email}>`);
  assert.deepEqual(new Set(all.map((x) => x.owner)).size, 3, 'every member\'s tokens');
  assert.equal((await admin.call('DELETE', `/api/org/tokens/${viewers.info.id}`)).status, 200);
  sameAsUnknown((await signInWith(viewers.token)).res);
  const audit = (await admin.call('GET', '/api/org/audit')).json.entries.filter((e) => e.action === 'token_revoked');
  assert.ok(audit.some((e) => e.actor.includes(admin.email) && e.detail.includes(viewers.info.id) && e.detail.includes(viewer.email)));

  // A demotion applies to the person's tokens at once.
  const demote = await makeToken(operator, 'demoted');
  assert.equal((await admin.call('PUT', `/api/org/members/${operator.account}`, { role: 'viewer' })).status, 200);
  assert.equal((await signInWith(demote.token)).res.json.role, 'viewer');
  assert.equal((await admin.call('PUT', `/api/org/members/${operator.account}`, { role: 'operator' })).status, 200);
  assert.equal((await signInWith(demote.token)).res.json.role, 'operator');

  // Removed from the organization: their tokens stop, and are gone from the list.
  const leaving = await acme.invitee('viewer');
  const theirs = await makeToken(leaving, 'leaving');
  const session = (await signInWith(theirs.token)).who;
  assert.equal((await admin.call('DELETE', `/api/org/members/${leaving.account}`)).status, 200);
  sameAsUnknown((await signInWith(theirs.token)).res);
  assert.ok(!(await list(admin)).some((x) => x.id === theirs.info.id));
  // The session it started ends with the membership.
  assertError(await session.call('GET', '/api/session'), 401, 'EDGE.SESSION.REQUIRED');
});

test('another organization\'s admin neither sees nor revokes them', async () => {
  const other = await orgStack(shared, { orgName: 'Other Org', roles: [] });
  const target = (await list(acme.people.operator))[0];
  assert.ok(target);
  assert.deepEqual((await list(other.people.admin)).map((x) => x.id).includes(target.id), false);
  assertError(await other.people.admin.call('DELETE', `/api/org/tokens/${target.id}`), 404, 'EDGE.TOKEN.NOT_FOUND');
  assert.ok((await list(acme.people.operator)).some((x) => x.id === target.id), 'still there');
  assert.equal((await signInWith(acme.users.operator.token)).res.json.org.id, acme.org.id);
});

test('wrong tokens from one address are throttled like sign-in, with Retry-After; other addresses are not', async () => {
  const office = client();
  let res;
  for (let i = 0; i < 31; i++) {
    res = (await signInWith(`parcel_pat_${acme.org.id.slice(4)}${randomBytes(32).toString('base64url')}`, office)).res;
    if (res.status === 429) break;
  }
  const e = assertError(res, 429, 'EDGE.SIGN_IN.THROTTLED');
  const wait = Number(res.headers.get('retry-after'));
  assert.ok(wait > 800 && wait <= 900, `Retry-After ${wait}`);
  assert.equal(e.retry_after_seconds, wait);
  // Even the right token waits at that address; elsewhere it signs in.
  assertError((await signInWith(acme.users.admin.token, office)).res, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.equal((await signInWith(acme.users.admin.token)).res.status, 200);
});

test('no token ever reaches the log', () => {
  assert.ok(made.length >= 8);
  for (const t of made) {
    const secret = t.slice(27);
    assert.ok(!edge.logs.some((l) => l.includes(secret)), 'the log holds a token');
  }
});
