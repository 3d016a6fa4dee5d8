// Seeds the demo organization scripts/run prints: "Demo Shop", with the
// simulator's sandbox and live keys (entered as an admin enters them, so
// they are checked and sealed) and one demo person per role, each with a
// password; then set up as a merchant would be after a few weeks, so a
// newcomer signs in to a dashboard with data: a sender, two packages, the
// demo shop's origin on its storefront widget (with a fallback option), a
// webhook secret the simulator signs with, three weeks of labels (bought on
// the simulator by another integration of the account, announced by signed
// deliveries), a few of them on their way, labels bought by its operator
// and a batch. It stays in sandbox mode, as every new organization does.
// Its people and passwords, and its widget id, go to .dev.tokens. Run
// again, it only checks that the demo admin can still sign in.
//   node scripts/seed-demo.mjs EDGE_URL SIM_URL SHOP_URL
// Needs SESSION_SECRET, SVC_LIVE_KEY and SVC_SANDBOX_KEY in the environment
// (scripts/run exports .dev.vars). The simulator account of those keys
// then delivers label.created to the organization's own URL, not the
// deployment's. .dev.tokens is the one in the working directory.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [edge, simUrl, shop] = process.argv.slice(2).map((url) => url.replace(/\/$/, ''));
if (!shop) {
  console.error('usage: node scripts/seed-demo.mjs EDGE_URL SIM_URL SHOP_URL');
  process.exit(2);
}
const TOKENS = '.dev.tokens';
const people = { admin: 'admin@demo-shop.example', operator: 'operator@demo-shop.example', viewer: 'viewer@demo-shop.example' };

/** A person's session: one cookie, requests from the dashboard's own origin. */
function client() {
  let cookie = '';
  return async (method, path, body, extra = {}) => {
    const res = await fetch(edge + path, {
      method,
      headers: { origin: edge, 'content-type': 'application/json', ...(cookie && { cookie }), ...extra },
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
const link = execFileSync('bash', [fileURLToPath(new URL('./new-org', import.meta.url)), edge], { encoding: 'utf8' });
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
const { org } = await admin('GET', '/api/session');
// Kept before the data: a seed stopped past here still leaves its people able to sign in.
appendFileSync(TOKENS, [
  ...Object.entries(people).map(([role, email]) => `${email} password: ${passwords[role]}   (Demo Shop, ${role})\n`),
  `Demo Shop widget: ${org.id}\n`,
].join(''), { mode: 0o600 });

const FROM = { name: 'Demo Shop', street1: '500 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
const CUSTOMERS = [['Ada Lovelace', '12 Elm St', 'Brooklyn', 'NY', '11201'], ['Grace Hopper', '40 Oak Ave', 'Austin', 'TX', '73301'],
  ['Alan Turing', '7 Pine Rd', 'Denver', 'CO', '80202'], ['Katherine Johnson', '300 Lake Dr', 'Seattle', 'WA', '98101']];
const customer = (i) => {
  const [name, street1, city, state, zip] = CUSTOMERS[i % CUSTOMERS.length];
  return { name, street1, city, state, zip, country: 'US' };
};
const MUG_BOX = { weight_oz: 20, length: 10, width: 8, height: 4 };
await admin('POST', '/api/org/addresses', { label: 'Warehouse', address: FROM });
await admin('POST', '/api/org/packages', { name: 'Mug box', parcel: MUG_BOX });
await admin('POST', '/api/org/packages', { name: 'Gift set', parcel: { weight_oz: 48, length: 14, width: 10, height: 6 } });
await admin('PUT', '/api/org/widget', { origins: [shop], ship_from: FROM, share: 0.5, fallback: { name: 'Standard shipping', price_cents: 795 } });

// The simulator: its clock and its demo account (the one SVC_* keys belong
// to), as its control API lets the merchant's side of it be played.
const sim = async (method, path, body, key) => {
  const res = await fetch(simUrl + path, {
    method,
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body: body && JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`simulator ${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
};
const { account } = await sim('GET', `/__sim/keys/${process.env.SVC_SANDBOX_KEY}`);
const secret = `whsec_${randomBytes(24).toString('hex')}`;
await admin('PUT', '/api/org/webhook', { action: 'set', slot: 'current', secret });
await sim('PUT', `/__sim/accounts/${account}/webhook`, { url: `${edge}/hooks/v1/label-created/${org.id}`, secret });
await sim('PUT', `/__sim/accounts/${account}/wallet`, { balance_cents: 250_000, card: 'ok', auto_reload: null });

// Three weeks of sandbox labels, one to three a day, on the simulator's
// clock set back to each day; deliveries made "then" wait for the clock to
// come back, and are sent when it does.
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);
const history = [];
for (let day = 20; day >= 0; day--) {
  await sim('POST', '/__sim/clock/set', { now: now - day * DAY - 3600 });
  for (let n = 0; n < 1 + (day % 3); n++) {
    const i = history.length;
    const quote = await sim('POST', '/v1/rates', { from_address: FROM, to_address: customer(i), parcel: { ...MUG_BOX, weight_oz: 12 + (i % 5) * 8 } }, process.env.SVC_SANDBOX_KEY);
    history.push(await sim('POST', '/v1/labels', { rate_id: quote.rates[i % quote.rates.length].id }, process.env.SVC_SANDBOX_KEY));
  }
}
await sim('POST', '/__sim/clock/set', { now });
// The newest are on their way: scanned once (in transit) or twice.
for (const [i, label] of history.slice(-6).entries()) {
  for (let scan = 0; scan <= i % 2; scan++) await sim('POST', `/__sim/labels/${label.id}/scan`);
}

// The operator buys three through the dashboard's own calls (by name in
// the label history), and starts a small batch.
const operator = client();
await operator('POST', '/api/session/password', { email: people.operator, password: passwords.operator });
for (let i = 0; i < 3; i++) {
  const quote = await operator('POST', '/api/v1/rates', { from_address: FROM, to_address: customer(i + 1), parcel: MUG_BOX });
  await operator('POST', '/api/v1/labels', { rate_id: quote.rates[0].id }, { 'idempotency-key': `demo-seed-${org.id}-${i}` });
}
const job = await operator('POST', '/api/jobs', {
  name: 'weekend-orders.csv', rule: { rule: 'cheapest' },
  approval: { approval: 'buy_as_quoted', max_row_cents: 5_000, max_total_cents: 50_000 },
  rows: [0, 1, 2, 3, 4].map((i) => ({ reference: `#20${i + 1}`, from_address: FROM, to_address: customer(i), parcel: MUG_BOX })),
});
await operator('POST', `/api/jobs/${job.id}/start`);

console.log(`[seed] made the demo organization "Demo Shop" with the simulator's keys, ${history.length + 3} labels and a batch; its people sign in by email and password (${TOKENS})`);
