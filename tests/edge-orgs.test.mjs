// Organizations through the real Worker in workerd, in front of the real
// simulator: a new organization from a scripts/new-org link, sign-in by
// password and its throttle, invitations and each of their refusals, the
// team's roles, removal, the last admin, switching organizations, what
// one organization's session can reach of another's, and no password or
// invitation token in the log. On the shared stack. (An expired
// invitation: tests/edge-faults.test.mjs; the deployment's own
// organization: tests/edge-deployment.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { Person, assertError, newOrgLink } from './support/orgs.mjs';

const { edge, sessionSecret } = await sharedStack();
const PASSWORD = 'correct horse battery staple';

/** A person at their own client address, so one test's failures never throttle another's. */
const person = () => new Person(edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** A new organization made from a scripts/new-org link; returns its signed-in admin. */
async function newOrg(orgName) {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = person();
  admin.email = email('admin');
  const res = await admin.createOrg(link.token, { orgName, name: 'Ada Admin', email: admin.email, password: PASSWORD });
  assert.equal(res.status, 200, res.text);
  admin.org = res.json.org;
  return { admin, link, session: res.json };
}

/** Invites `role` and has a new person accept; returns them signed in. */
async function join(admin, role) {
  const invited = await admin.invite(role);
  assert.equal(invited.status, 201, invited.text);
  const p = person();
  p.email = email(role);
  const res = await p.accept(invited.json.token, { email: p.email, password: PASSWORD, name: `Olly ${role}` });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.role, role);
  p.account = (await admin.call('GET', '/api/org/members')).json.members.find((m) => m.email === p.email).account;
  return p;
}

test('a scripts/new-org link makes one organization, once; its admin signs in by password', async () => {
  const { admin, link, session } = await newOrg('Acme Parcels');
  assert.equal(session.org.name, 'Acme Parcels');
  assert.equal(session.role, 'admin');
  assert.match(session.org.id, /^org_[0-9a-f]{16}$/);
  assert.deepEqual(session.orgs.map((o) => o.name), ['Acme Parcels']);
  assert.equal(session.user, `Ada Admin <${admin.email}>`);
  assert.ok(admin.cookie.startsWith('__Host-parcel_session='));
  // The same link again: the organization exists.
  const again = await person().createOrg(link.token, { orgName: 'Acme 2', name: 'Eve', email: email('eve'), password: PASSWORD });
  assert.match(assertError(again, 403, 'EDGE.ORG.SETUP_INVALID').message, /already used/);
  // A link with a longer life than it was signed for.
  const [nonce, expires, mac] = (await newOrgLink(sessionSecret, edge.url)).token.split('.');
  const forged = await person().createOrg(`${nonce}.${Number(expires) + 86400}.${mac}`, { orgName: 'X', name: 'Eve', email: email('eve'), password: PASSWORD });
  assert.match(assertError(forged, 403, 'EDGE.ORG.SETUP_INVALID').message, /not valid/);
  // A weak password makes nothing.
  const weak = await person().createOrg((await newOrgLink(sessionSecret, edge.url)).token, { orgName: 'Y', name: 'Eve', email: email('eve'), password: 'short' });
  assertError(weak, 422, 'EDGE.PASSWORD.WEAK');

  const out = await admin.call('DELETE', '/api/session');
  assert.equal(out.status, 204);
  const back = person();
  const res = await back.signIn(admin.email.toUpperCase(), PASSWORD);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.org.id, session.org.id);
  const members = await back.call('GET', '/api/org/members');
  assert.equal(members.status, 200);
  assert.ok(members.json.members[0].last_sign_in >= members.json.members[0].joined_at);
});

test('invitations: an operator and a viewer join by link; each does what the role allows', async () => {
  const { admin } = await newOrg('Invite Co');
  const invited = await admin.invite('operator', 3);
  assert.equal(invited.status, 201);
  assert.equal(invited.json.token.length, 59);
  assert.equal(invited.json.invite.state, 'pending');
  const day = 86400;
  assert.ok(Math.abs(invited.json.invite.expires_at - invited.json.invite.created_at - 3 * day) < 5);
  // Anyone with the link sees what it is for.
  const preview = await person().preview(invited.json.token);
  assert.equal(preview.status, 200, preview.text);
  assert.deepEqual([preview.json.org_name, preview.json.role], ['Invite Co', 'operator']);
  assert.match(preview.json.invited_by, /Ada Admin/);

  const operator = person();
  const accepted = await operator.accept(invited.json.token, { email: email('op'), password: PASSWORD, name: 'Olly Operator' });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.json.org.name, 'Invite Co');
  assert.ok(accepted.json.scopes.length === 0, 'no keys yet: nothing to call with');
  const viewer = await join(admin, 'viewer');

  // Admin-only endpoints refuse the other roles.
  for (const p of [operator, viewer]) {
    assertError(await p.call('GET', '/api/org/members'), 403, 'EDGE.ROLE.FORBIDDEN');
    assertError(await p.invite('admin'), 403, 'EDGE.ROLE.FORBIDDEN');
    assertError(await p.call('GET', '/api/org/audit'), 403, 'EDGE.ROLE.FORBIDDEN');
  }
  const members = (await admin.call('GET', '/api/org/members')).json.members;
  assert.deepEqual(members.map((m) => m.role).sort(), ['admin', 'operator', 'viewer']);
  // A browser's same-origin GET carries no Origin: the team page still reads; a foreign write does not pass.
  const bare = await fetch(`${edge.url}/api/org/members`, { headers: { cookie: admin.cookie } });
  assert.equal(bare.status, 200);
  const forged = await fetch(`${edge.url}/api/org/invites`, { method: 'POST', headers: { cookie: admin.cookie, origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"role":"admin"}' });
  assert.equal(forged.status, 403);

  // Each refusal of an invitation has its own error.
  assertError(await person().accept(invited.json.token, { email: email('late'), password: PASSWORD }), 410, 'EDGE.INVITE.USED');
  const withdrawn = await admin.invite('viewer');
  const revoked = await admin.call('DELETE', `/api/org/invites/${withdrawn.json.invite.id}`);
  assert.equal(revoked.status, 200);
  assert.equal(revoked.json.invites.find((i) => i.id === withdrawn.json.invite.id).state, 'revoked');
  assertError(await person().accept(withdrawn.json.token, { email: email('late'), password: PASSWORD }), 410, 'EDGE.INVITE.REVOKED');
  assertError(await person().preview(withdrawn.json.token), 410, 'EDGE.INVITE.REVOKED');
  const unknown = invited.json.token.slice(0, 16) + randomBytes(32).toString('base64url');
  assertError(await person().accept(unknown, { email: email('x'), password: PASSWORD }), 404, 'EDGE.INVITE.UNKNOWN');
  assertError(await admin.invite('viewer', 31), 422, 'VALIDATION.FIELD.INVALID');
  // The audit log holds who did what, newest first.
  const audit = await admin.call('GET', '/api/org/audit');
  assert.equal(audit.status, 200);
  const actions = audit.json.entries.map((e) => e.action);
  assert.deepEqual(actions.slice(-2), ['invite_created', 'org_created']);
  for (const a of ['member_joined', 'invite_revoked']) assert.ok(actions.includes(a), a);
});

test('a removed member is refused at the next request; the last admin stays', async () => {
  const { admin } = await newOrg('Removal Ltd');
  const operator = await join(admin, 'operator');
  assert.equal((await operator.call('GET', '/api/session')).status, 200);
  const removed = await admin.call('DELETE', `/api/org/members/${operator.account}`);
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.json.members.length, 1);
  assertError(await operator.call('GET', '/api/session'), 401, 'EDGE.SESSION.REQUIRED');
  // Signing in again finds no organization that still has them.
  assertError(await person().signIn(operator.email, PASSWORD), 404, 'EDGE.ORG.NOT_FOUND');

  const me = (await admin.call('GET', '/api/org/members')).json.members[0].account;
  assertError(await admin.call('PUT', `/api/org/members/${me}`, { role: 'viewer' }), 409, 'EDGE.MEMBER.LAST_ADMIN');
  assertError(await admin.call('DELETE', `/api/org/members/${me}`), 409, 'EDGE.MEMBER.LAST_ADMIN');
  // With a second admin, the first may step down; a demoted admin loses the team page at once.
  const second = await join(admin, 'admin');
  const demoted = await second.call('PUT', `/api/org/members/${me}`, { role: 'viewer' });
  assert.equal(demoted.status, 200, demoted.text);
  assertError(await admin.call('GET', '/api/org/members'), 403, 'EDGE.ROLE.FORBIDDEN');
  assert.equal((await admin.call('GET', '/api/session')).json.role, 'viewer');
});

test('sign-in: wrong passwords past the free tries wait, with Retry-After; unknown emails answer the same', async () => {
  const { admin } = await newOrg('Throttle Inc');
  const timed = async (p, who) => {
    const t0 = performance.now();
    const res = await p.signIn(who, 'not the password at all');
    return { res, ms: performance.now() - t0 };
  };
  const known = person();
  const stranger = person();
  const unknownEmail = email('nobody');
  const knownMs = [];
  const unknownMs = [];
  for (let i = 0; i < 3; i++) {
    const a = await timed(known, admin.email);
    const b = await timed(stranger, unknownEmail);
    const ea = assertError(a.res, 401, 'EDGE.SIGN_IN.FAILED');
    const eb = assertError(b.res, 401, 'EDGE.SIGN_IN.FAILED');
    assert.equal(ea.message, eb.message);
    assert.equal(ea.suggestion, eb.suggestion);
    knownMs.push(a.ms);
    unknownMs.push(b.ms);
  }
  const median = (xs) => xs.sort((x, y) => x - y)[1];
  // Both paths derive the password: the unknown email is not answered early.
  assert.ok(median(unknownMs) > median(knownMs) / 3, `unknown ${median(unknownMs)} ms, known ${median(knownMs)} ms`);
  // The fourth try at once waits, even with the right password (docs/organizations.md, "Sign-in throttling").
  for (const [p, who] of [[known, admin.email], [stranger, unknownEmail]]) {
    const res = await p.signIn(who, PASSWORD);
    const e = assertError(res, 429, 'EDGE.SIGN_IN.THROTTLED');
    const wait = Number(res.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 5, `Retry-After ${wait}`);
    assert.equal(e.retry_after_seconds, wait);
  }
  // Per client address: many emails from one address are stopped too.
  const office = person();
  let status = 0;
  for (let i = 0; i < 31 && status !== 429; i++) status = (await office.signIn(email(`guess${i}`), 'wrong password guess')).status;
  assert.equal(status, 429);
  // The right password from elsewhere still signs in once the account's own counter is clear.
  const other = await newOrg('Throttle Two');
  assert.equal((await person().signIn(other.admin.email, PASSWORD)).status, 200);
});

test('one person in two organizations switches between them; another organization is not reachable', async () => {
  const a = await newOrg('Alpha Goods');
  const b = await newOrg('Beta Goods');
  // B's admin invites A's admin, who accepts with their existing password.
  const invited = await b.admin.invite('operator');
  const wrong = await person().accept(invited.json.token, { email: a.admin.email, password: 'not my password!!' });
  assertError(wrong, 401, 'EDGE.SIGN_IN.FAILED');
  const joined = await a.admin.accept(invited.json.token, { email: a.admin.email, password: PASSWORD });
  assert.equal(joined.status, 200, joined.text);
  assert.equal(joined.json.org.name, 'Beta Goods');
  assert.deepEqual(joined.json.orgs.map((o) => o.name), ['Alpha Goods', 'Beta Goods']);
  const switched = await a.admin.call('PUT', '/api/session/org', { org: a.session.org.id });
  assert.equal(switched.status, 200, switched.text);
  assert.deepEqual([switched.json.org.name, switched.json.role], ['Alpha Goods', 'admin']);

  // A third organization's admin can neither switch into A nor touch A's people.
  const c = await newOrg('Gamma Goods');
  assertError(await c.admin.call('PUT', '/api/session/org', { org: a.session.org.id }), 404, 'EDGE.ORG.NOT_FOUND');
  const aMember = (await a.admin.call('GET', '/api/org/members')).json.members[0].account;
  assertError(await c.admin.call('PUT', `/api/org/members/${aMember}`, { role: 'viewer' }), 404, 'EDGE.MEMBER.NOT_FOUND');
  assertError(await c.admin.call('DELETE', `/api/org/members/${aMember}`), 404, 'EDGE.MEMBER.NOT_FOUND');
  const aInvite = await a.admin.invite('viewer');
  assertError(await c.admin.call('DELETE', `/api/org/invites/${aInvite.json.invite.id}`), 404, 'EDGE.INVITE.UNKNOWN');
  assert.ok(!(await c.admin.call('GET', '/api/org/audit')).text.includes('Alpha'));
  // An organization without keys sends nothing upstream.
  assertError(await c.admin.call('GET', '/api/v1/wallet'), 409, 'EDGE.MODE.UNAVAILABLE');
});

test('no password or invitation token reaches the log', () => {
  // The shared stack's log: every file's lines so far.
  const log = edge.logs.join('\n');
  assert.ok(!log.includes(PASSWORD), 'a password in the log');
  assert.ok(!/[0-9a-f]{16}[A-Za-z0-9_-]{43}/.test(log), 'an invitation token in the log');
});
