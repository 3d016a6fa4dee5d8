// Organizations through the real Worker: the setup link scripts/new-org
// prints, and a small HTTP client for the organization endpoints
// (api/src/orgs.rs) that keeps each person's session cookie.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { ROOT } from './stack.mjs';

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
  constructor(url, { address } = {}) {
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
