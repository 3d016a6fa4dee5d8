// Seeds the demo organization scripts/run prints: "Demo Shop", with the
// simulator's sandbox and live keys (entered as an admin enters them, so
// they are checked and sealed) and one demo person per role, each with a
// password. Its people and passwords go to .dev.tokens. Run again, it only
// checks that the demo admin can still sign in.
//   node scripts/seed-demo.mjs EDGE_URL
// Needs SESSION_SECRET, SVC_LIVE_KEY and SVC_SANDBOX_KEY in the environment
// (scripts/run exports .dev.vars).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

const edge = (process.argv[2] ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const TOKENS = '.dev.tokens';
const people = { admin: 'admin@demo-shop.example', operator: 'operator@demo-shop.example', viewer: 'viewer@demo-shop.example' };

/** A person's session: one cookie, requests from the dashboard's own origin. */
function client() {
  let cookie = '';
  return async (method, path, body) => {
    const res = await fetch(edge + path, {
      method,
      headers: { origin: edge, 'content-type': 'application/json', ...(cookie && { cookie }) },
      body: body && JSON.stringify(body),
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0];
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${json?.error?.code ?? ''}: ${json?.error?.message ?? ''}`);
    return json;
  };
}

const saved = existsSync(TOKENS) ? readFileSync(TOKENS, 'utf8') : '';
// The newest line for the email (a wiped .wrangler state means a new seed).
const savedPassword = (email) => [...saved.matchAll(new RegExp(`^${email.replace(/\./g, '\\.')} password: (\\S+)`, 'gm'))].pop()?.[1];

if (savedPassword(people.admin)) {
  try {
    await client()('POST', '/api/session/password', { email: people.admin, password: savedPassword(people.admin) });
    console.log(`[seed] the demo organization is there (people and passwords in ${TOKENS})`);
    process.exit(0);
  } catch (e) {
    console.log(`[seed] the demo admin could not sign in (${e.message}): seeding again`);
  }
}

const password = () => randomBytes(12).toString('base64url');
const link = execFileSync('bash', ['scripts/new-org', edge], { encoding: 'utf8' });
const setup = /\/new-org#(\S+)/.exec(link)[1];
const admin = client();
const passwords = { admin: password(), operator: password(), viewer: password() };
await admin('POST', '/api/orgs', { setup, org_name: 'Demo Shop', name: 'Demo Admin', email: people.admin, password: passwords.admin });
for (const key of [process.env.SVC_SANDBOX_KEY, process.env.SVC_LIVE_KEY]) {
  await admin('PUT', '/api/org/keys', { action: 'set', slot: 'current', key });
}
for (const role of ['operator', 'viewer']) {
  const { token } = await admin('POST', '/api/org/invites', { role });
  await client()('POST', '/api/invites/accept', { token, email: people[role], password: passwords[role], name: `Demo ${role[0].toUpperCase()}${role.slice(1)}` });
}
appendFileSync(TOKENS, Object.entries(people).map(([role, email]) => `${email} password: ${passwords[role]}   (Demo Shop, ${role})\n`).join(''), { mode: 0o600 });
console.log(`[seed] made the demo organization "Demo Shop" with the simulator's keys; its people sign in by email and password (${TOKENS})`);
