// Organizations through the real Worker: the setup link scripts/new-org
// prints, and a small HTTP client for the organization endpoints
// (api/src/orgs.rs) that keeps each person's session cookie; an
// organization whose members sign in with personal access tokens
// (`orgUsers`); and the shared stack as an organization of a test's own
// sees it (`orgStack`).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ROOT, keysWithLimits } from './stack.mjs';

let addresses = 0;
/**
 * A client address (sent as CF-Connecting-IP) no other client of the run
 * has: the Workers count failed sign-ins per address, and on the shared
 * stack that count is every test file's. The process id keeps files apart.
 */
export function newAddress() {
  const n = addresses++;
  return `10.${process.pid % 256}.${(Math.floor(process.pid / 256) + Math.floor(n / 250)) % 256}.${1 + (n % 250)}`;
}

/** Runs scripts/new-org for a Worker whose SESSION_SECRET is `secret`; returns the link's path and token. */
export async function newOrgLink(secret, base = 'http://127.0.0.1:8787') {
  const { stdout } = await promisify(execFile)('bash', [path.join(ROOT, 'scripts/new-org'), base], {
    env: { ...process.env, SESSION_SECRET: secret },
  });
  const m = /(\/new-org#(\S+))/.exec(stdout);
  if (!m) throw new Error(`scripts/new-org printed no link: ${stdout}`);
  return { path: m[1], token: m[2] };
}

/** `res` (a `Person.call` answer) is `status` with the v1 envelope of `code`; returns the error. */
export function assertError(res, status, code) {
  assert.equal(res.status, status, res.text);
  const e = res.json.error;
  assert.equal(e.code, code, res.text);
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(e[f], f);
  return e;
}

/** One person's client: remembers the cookie the Worker sets. */
export class Person {
  constructor(url, { address = newAddress() } = {}) {
    this.url = url;
    this.cookie = null;
    this.address = address;
  }

  async call(method, route, body, extra = {}) {
    const headers = { origin: this.url, ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.cookie) headers.cookie = this.cookie;
    if (this.address) headers['cf-connecting-ip'] = this.address;
    const res = await fetch(this.url + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* empty */ }
    return { status: res.status, headers: res.headers, json, text };
  }

  createOrg(setup, { orgName, name, email, password }) {
    return this.call('POST', '/api/orgs', { setup, org_name: orgName, name, email, password });
  }

  signIn(email, password) {
    return this.call('POST', '/api/session/password', { email, password });
  }

  invite(role, days) {
    return this.call('POST', '/api/org/invites', { role, expires_in_days: days });
  }

  preview(token) {
    return this.call('POST', '/api/invites/preview', { token });
  }

  accept(token, { email, password, name }) {
    return this.call('POST', '/api/invites/accept', { token, email, password, name });
  }
}

export const PASSWORD = 'correct horse battery staple';

/** Live mode turned on by `admin` (a `Person`), as on the API keys page. */
export async function turnLiveOn(admin) {
  const on = await admin.call('PUT', '/api/org/keys', { action: 'live', on: true });
  assert.equal(on.status, 200, on.text);
  assert.equal(on.json.live, true);
}

/**
 * A new organization `orgName` on the Worker at `url` (whose SESSION_SECRET
 * is `sessionSecret`), made from a setup link; returns its first admin,
 * signed in: a `Person` with `email` and `org` (the organization's id).
 */
export async function newOrgAdmin(url, sessionSecret, orgName) {
  const link = await newOrgLink(sessionSecret, url);
  const admin = new Person(url);
  admin.email = `admin.${randomBytes(4).toString('hex')}@example.com`;
  const res = await admin.createOrg(link.token, { orgName, name: `${orgName} Admin`, email: admin.email, password: PASSWORD });
  assert.equal(res.status, 200, res.text);
  admin.org = res.json.org.id;
  return admin;
}

/**
 * An organization on the Worker at `url` (whose SESSION_SECRET is
 * `sessionSecret`) standing in for the deployment `newUsers()` describes:
 * made through a scripts/new-org link, its admin enters `keys` (the
 * simulator's `{live, sandbox}` keys the stack was given, so calls reach
 * the same simulator accounts) and turns live mode on (unless `live` is
 * false), invites one person per role in `roles` and
 * each makes a personal access token. Returns the organization, `users` in
 * the shape of `newUsers()` (`{admin: {name, role, token}, operator: …,
 * viewer: …}`, `name` being what the product records as the actor of
 * what they do, their name), the
 * signed-in `people` (`Person`s with `name`, `email`, `account`) and
 * `invitee(role)` for one more member.
 */
export async function orgUsers({ url, sessionSecret, keys, orgName = 'Parcel Test Org', roles = ['operator', 'viewer'], live = true }) {
  const tag = randomBytes(4).toString('hex');
  let n = 0;
  const person = (role) => {
    const p = new Person(url);
    p.name = `${role[0].toUpperCase()}${role.slice(1)} ${tag}`;
    p.email = `${role}.${tag}.${++n}@example.com`;
    return p;
  };
  const link = await newOrgLink(sessionSecret, url);
  const admin = person('admin');
  const made = await admin.createOrg(link.token, { orgName, name: admin.name, email: admin.email, password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  const org = made.json.org;
  for (const key of [keys.live, keys.sandbox].filter(Boolean)) {
    const set = await admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
    assert.equal(set.status, 200, set.text);
  }
  // A new organization works in sandbox until its admin turns live on.
  if (live && keys.live) await turnLiveOn(admin);
  const invitee = async (role) => {
    const invited = await admin.invite(role);
    assert.equal(invited.status, 201, invited.text);
    const p = person(role);
    const joined = await p.accept(invited.json.token, { email: p.email, password: PASSWORD, name: p.name });
    assert.equal(joined.status, 200, joined.text);
    return p;
  };
  const people = { admin };
  for (const role of roles) people[role] = await invitee(role);
  const members = (await admin.call('GET', '/api/org/members')).json.members;
  const users = {};
  for (const [role, p] of Object.entries(people)) {
    p.account = members.find((m) => m.email === p.email).account;
    const res = await p.call('POST', '/api/org/tokens', { name: `${role} test script` });
    assert.equal(res.status, 201, res.text);
    users[role] = { name: p.name, role, token: res.json.token };
  }
  return {
    org,
    users,
    people,
    async invitee(role) {
      const p = await invitee(role);
      p.account = (await admin.call('GET', '/api/org/members')).json.members.find((m) => m.email === p.email).account;
      return p;
    },
  };
}

/**
 * The shared stack (`sharedStack()`) as an organization of a test's own
 * sees it: made from a setup link, with a simulator account of its own
 * (its wallet, labels, carrier accounts and webhook are no other test's)
 * whose live and sandbox keys it uses (`limits` per endpoint, else the
 * table's), and one member per role (`users`, signing in with personal
 * access tokens, in the shape of `newUsers()`; `people`, signed in by
 * password). The wallet starts as the simulator's demo account does
 * (10,000 cents, card ok), or as `wallet` says. `account()` reads the
 * account's state without spending a key's limit.
 */
export async function orgStack(stack, { orgName, roles, limits, live, wallet = { balance_cents: 10_000, card: 'ok', auto_reload: null } } = {}) {
  const account = `acct_${randomBytes(6).toString('hex')}`;
  const keys = await keysWithLimits(stack.sim, limits, account);
  await stack.sim.control('PUT', `/__sim/accounts/${account}/wallet`, wallet);
  const made = await orgUsers({ url: stack.edge.url, sessionSecret: stack.sessionSecret, keys, orgName, roles, live });
  return {
    ...made,
    sim: stack.sim,
    edge: stack.edge,
    keys,
    accountId: account,
    account: () => stack.sim.control('GET', `/__sim/accounts/${account}`),
    /** Where the service delivers this organization's webhooks (its own URL, `/api/org/webhook`). */
    hook: `${stack.edge.url}/hooks/v1/label-created/${made.org.id}`,
    /**
     * The organization's webhook secret in `slot`, entered by its admin;
     * with `deliver`, the service is pointed at the organization's URL
     * with it, as its admin would in the service's dashboard.
     */
    async webhookSecret(secret, { slot = 'current', deliver = slot === 'current' } = {}) {
      const set = await made.people.admin.call('PUT', '/api/org/webhook', { action: 'set', slot, secret });
      assert.equal(set.status, 200, set.text);
      if (deliver) await stack.sim.control('PUT', `/__sim/accounts/${account}/webhook`, { url: this.hook, secret });
    },
  };
}
