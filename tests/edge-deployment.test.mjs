// The deployment configured the old way (README, Organizations: its own
// organization, `org_deployment`): USERS tokens, the SVC_* keys and their
// rotation, the WIDGET_* settings, WEBHOOK_SECRET. Through the real Workers
// in workerd, in front of the real simulator: sign-in and sign-out, every
// role against every endpoint, the storefront widget from allowed and
// refused origins (on a demo shop too), its budget share, per-shopper cap
// and quote cache, the live/sandbox switch, key rotation (in the API and
// on the status page), the webhook URL and its secrets, what its own
// organization does not have (saved addresses, a team, tokens, widget
// settings in the app), a sender saved in the browser, and a scan of every
// response and log line for secrets. The one file of this configuration,
// on a stack of its own: its settings are the deployment's, and it revokes
// the deployment's key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { newKeys, newUsers, startEdge, startSim } from './support/stack.mjs';
import { Person } from './support/orgs.mjs';
import AxeBuilder from '@axe-core/playwright';
import { launch, screenshot } from './support/browser.mjs';
import { SENDER, T, openSignedIn } from './support/pages.mjs';
import { until } from './support/wait.mjs';
import { SHIP_FROM, assertFramedOnlyByItsShop, assertPageAlone, engines, scenarios } from './support/widget.mjs';
import { startDemoShop } from '../scripts/demo-shop.mjs';

const EVIL = 'https://evil.example';
// The service's webhook secret during a rotation: the current one and the next.
const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const WEBHOOK_SECRET_NEXT = `whsec_${randomBytes(16).toString('hex')}`;
let sim, edge, users, keys, nextKey, sessionSecret, browser, shop, other, SHOP;
const seen = []; // every response (headers + body) for the leak scan
const answered = []; // every response's X-Request-Id, each to have its log line

before(async () => {
  keys = newKeys();
  users = newUsers();
  sim = await startSim({ keys });
  // The rotation candidate, and a sandbox key with fewer scopes than the Worker is told.
  const ALL = ['rates:read', 'labels:write', 'labels:read', 'tracking:read', 'addresses:read', 'carrier-accounts:read', 'batches:write', 'batches:read', 'wallet:read'];
  nextKey = (await sim.control('POST', '/__sim/keys', { env: 'live', account: 'acct_demo', scopes: ALL })).key;
  const limitedSandbox = (await sim.control('POST', '/__sim/keys', {
    env: 'sandbox', account: 'acct_demo', scopes: ['rates:read', 'wallet:read', 'labels:read', 'addresses:read'],
  })).key;
  keys.sandbox = limitedSandbox;
  sessionSecret = randomBytes(32).toString('hex');
  // The deployment's widget is on a demo shop (the configured origin); the other shop is not configured.
  shop = await startDemoShop();
  other = await startDemoShop();
  SHOP = shop.url;
  edge = await startEdge({
    upstream: sim.url,
    keys,
    users,
    vars: { WIDGET_ORIGINS: SHOP, WIDGET_SHIP_FROM: JSON.stringify(SHIP_FROM), WIDGET_SHARE: '0.2', WIDGET_IP_PER_MINUTE: '40' },
    secrets: { SVC_LIVE_KEY_NEXT: nextKey, SESSION_SECRET: sessionSecret, WEBHOOK_SECRET, WEBHOOK_SECRET_NEXT },
  });
  for (const s of [shop, other]) Object.assign(s, { edge: edge.url, query: '' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await edge?.stop();
  await sim?.stop();
  await shop?.close();
  await other?.close();
});

async function call(path, { method = 'GET', body, session, origin, headers = {} } = {}) {
  const h = { ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  if (session) { h.cookie = session.cookie; h.origin = session.origin; }
  if (origin) h.origin = origin;
  const res = await fetch(edge.url + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  seen.push(JSON.stringify([...res.headers]) + text);
  answered.push(res.headers.get('x-request-id'));
  let json = null;
  try { json = JSON.parse(text); } catch { /* 204 */ }
  return { status: res.status, headers: res.headers, json };
}

function assertError(res, status, code) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  const e = res.json.error;
  assert.equal(e.code, code);
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(e[f], f);
  assert.equal(res.headers.get('x-request-id'), e.request_id);
  return e;
}

const address = (name, street1, zip, state) => ({ name, street1, city: 'X', state, zip, country: 'US' });
const from = address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA');
const to = address('Grace Hopper', '12 Elm St', '11201', 'NY');
const shipment = (weight_oz = 20) => ({ from_address: from, to_address: to, parcel: { weight_oz, length: 10, width: 8, height: 4 } });
const idem = () => ({ 'idempotency-key': randomUUID() });
const batchItem = { ...shipment(), rate_id: 'rate_x', carrier: 'USPS', service: 'Ground', rate_cents: 500 };

/** One valid call per v1 endpoint, as the app would make it. */
const ENDPOINTS = [
  ['addresses:read', 'POST', '/api/v1/addresses/validate', { body: to }],
  ['rates:read', 'POST', '/api/v1/rates', { body: shipment() }],
  ['labels:write', 'POST', '/api/v1/labels', { body: { rate_id: 'rate_x' }, headers: idem() }],
  ['labels:read', 'GET', '/api/v1/labels/lbl_x', {}],
  ['labels:write', 'DELETE', '/api/v1/labels/lbl_x', {}],
  ['tracking:read', 'POST', '/api/v1/trackers', { body: { tracking_number: '9400100000000000000000' } }],
  ['tracking:read', 'GET', '/api/v1/trackers/trk_x', {}],
  ['carrier-accounts:read', 'GET', '/api/v1/carrier-accounts', {}],
  ['batches:write', 'POST', '/api/v1/batches', { body: { items: [batchItem] }, headers: idem() }],
  ['batches:write', 'POST', '/api/v1/batches/b_x/buy', { headers: idem() }],
  ['batches:read', 'GET', '/api/v1/batches/b_x', {}],
  ['wallet:read', 'GET', '/api/v1/wallet', {}],
  ['labels:read', 'GET', '/api/v1/webhooks/deliveries', {}],
];

test('sign-in: a wrong or cross-site attempt is refused; the cookie is HttpOnly, Secure, SameSite=Strict', async () => {
  assertError(await call('/api/v1/wallet'), 401, 'EDGE.SESSION.REQUIRED');
  assertError(await call('/api/session'), 401, 'EDGE.SESSION.REQUIRED');
  assertError(await call('/api/session', { method: 'POST', body: { token: 'pt_' + 'a'.repeat(48) }, origin: edge.url }), 401, 'EDGE.SESSION.INVALID_TOKEN');
  const missing = assertError(await call('/api/session', { method: 'POST', body: {}, origin: edge.url }), 422, 'VALIDATION.FIELD.REQUIRED');
  assert.equal(missing.field, 'token');
  assertError(await call('/api/session', { method: 'POST', body: { token: users.admin.token }, origin: EVIL }), 403, 'EDGE.ORIGIN.REFUSED');

  const res = await fetch(edge.url + '/api/session', {
    method: 'POST', headers: { 'content-type': 'application/json', origin: edge.url }, body: JSON.stringify({ token: users.operator.token }),
  });
  assert.equal(res.status, 200);
  const cookie = res.headers.get('set-cookie');
  assert.match(cookie, /^__Host-parcel_session=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/);
  const info = await res.json();
  assert.equal(info.user, 'operator1');
  assert.equal(info.role, 'operator');
  assert.equal(info.mode, 'live');
  assert.deepEqual(info.modes, ['live', 'sandbox']);
  assert.equal(info.can_switch_mode, false);
  assert.equal(info.scopes.length, 9);
});

test('sign-out revokes the session: the same cookie no longer works', async () => {
  const s = await edge.session(users.viewer);
  assert.equal((await call('/api/v1/wallet', { session: s })).status, 200);
  const out = await call('/api/session', { method: 'DELETE', session: s });
  assert.equal(out.status, 204);
  assert.match(out.headers.get('set-cookie'), /Max-Age=0/);
  const e = assertError(await call('/api/v1/wallet', { session: s }), 401, 'EDGE.SESSION.REQUIRED');
  assert.match(e.message, /session has ended/);
  // A forged cookie (role changed by hand) is refused as well.
  const forged = { ...s, cookie: s.cookie.replace('.viewer.', '.admin.') };
  assertError(await call('/api/session', { session: forged }), 401, 'EDGE.SESSION.REQUIRED');
});

test('each role against every endpoint: allowed calls reach upstream, refused ones never do', () => sim.inOneWindow(async () => {
  for (const role of ['admin', 'operator', 'viewer']) {
    const s = await edge.session(users[role]);
    assert.equal(s.info.role, role);
    for (const [scope, method, path, opts] of ENDPOINTS) {
      const res = await call(path, { method, session: s, ...opts });
      const allowed = role !== 'viewer' || scope.endsWith(':read');
      assert.equal(s.info.scopes.includes(scope), allowed, `${role} scopes list ${scope}`);
      const where = `${role} ${method} ${path} → ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`;
      if (allowed) {
        assert.notEqual(res.status, 403, where);
        assert.ok(!res.headers.get('x-request-id').startsWith('req_edge_'), `answered by upstream: ${where}`);
      } else {
        const e = assertError(res, 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
        assert.equal(e.required_scope, scope, where);
        assert.deepEqual(e.key_scopes, s.info.scopes, 'the principal\'s scopes');
        assert.match(e.request_id, /^req_edge_/, `answered by the Worker: ${where}`);
        assert.match(e.message, /Your role \(viewer\) does not allow/);
      }
    }
  }
}));

test('the deployment configured by its settings is its own organization: its admin reads the wallet; its team is its settings', async () => {
  const { cookie, origin } = await edge.session(users.admin);
  const admin = { cookie, origin };
  const res = await fetch(`${edge.url}/api/session`, { headers: admin });
  const info = await res.json();
  assert.deepEqual([info.org.id, info.role], ['org_deployment', 'admin']);
  const wallet = await fetch(`${edge.url}/api/v1/wallet`, { headers: admin });
  assert.equal(wallet.status, 200);
  const team = await fetch(`${edge.url}/api/org/members`, { headers: admin });
  assert.equal((await team.json()).error.code, 'EDGE.ORG.MANAGED_BY_SETTINGS');
});

test('the deployment\'s webhook URL: deliveries signed with WEBHOOK_SECRET, and during a rotation with WEBHOOK_SECRET_NEXT, land in its inbox and ledger; others are refused', async () => {
  const HOOK = '/hooks/v1/label-created';
  const sign = (secret, body) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  const operator = await edge.session(users.operator);
  const inboxEntry = async (id) => (await call(`/api/webhooks/inbox?q=${id}`, { session: operator })).json.accepted.find((e) => e.label.id === id);
  // Labels bought on the simulator with the deployment's key, as another integration would.
  const buyOnSim = async () => {
    const auth = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
    const { rates } = await (await fetch(`${sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(shipment()) })).json();
    const res = await fetch(`${sim.url}/v1/labels`, { method: 'POST', headers: auth, body: JSON.stringify({ rate_id: rates[0].id }) });
    assert.equal(res.status, 201, await res.clone().text());
    return res.json();
  };
  for (const [secret, slot] of [[WEBHOOK_SECRET, 'current'], [WEBHOOK_SECRET_NEXT, 'next']]) {
    await sim.control('PUT', '/__sim/accounts/acct_demo/webhook', { url: edge.url + HOOK, secret });
    const label = await buyOnSim();
    const entry = await until(`the event signed with the ${slot} secret`, () => inboxEntry(label.id));
    assert.equal(entry.event.verified_with, slot);
    assert.equal(entry.event.deliveries, 1);
    const history = (await call(`/api/ledger/history?q=${label.tracking_number}`, { session: operator })).json.rows;
    assert.deepEqual(history.map((l) => [l.id, l.deliveries]), [[label.id, 1]]);
  }
  const body = JSON.stringify({ event: 'label.created', data: { id: `lbl_forged_${randomUUID()}` } });
  const forged = await fetch(edge.url + HOOK, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': sign('not-the-secret-at-all', body) }, body });
  assert.equal(forged.status, 401);
  const refused = (await forged.json()).error;
  assert.equal(refused.code, 'WEBHOOK.SIGNATURE.INVALID');
  // Configured by its settings, it is told which one (an organization is told its page: edge-org-messages).
  assert.match(refused.suggestion, /WEBHOOK_SECRET/);
});

test('the USERS tokens sign in as the deployment\'s own organization, which has no token page', async () => {
  const who = new Person(edge.url);
  const res = await who.call('POST', '/api/session', { token: users.operator.token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.user, users.operator.name);
  assertError(await who.call('GET', '/api/org/tokens'), 409, 'EDGE.ORG.MANAGED_BY_SETTINGS');
  assertError(await new Person(edge.url).call('GET', '/api/org/tokens'), 401, 'EDGE.SESSION.REQUIRED');
});

test('the deployment\'s own organization is configured by its settings: no saved addresses, and its widget is not changed in the app', async () => {
  const { cookie, origin } = await edge.session(users.operator);
  const res = await fetch(`${edge.url}/api/org/addresses`, { headers: { cookie, origin } });
  assert.equal(res.status, 409);
  assert.equal((await res.json()).error.code, 'EDGE.ORG.MANAGED_BY_SETTINGS');
  const admin = await edge.session(users.admin);
  const settings = { origins: ['https://shop-a.example'], ship_from: SHIP_FROM, share: 0.5, fallback: null };
  const managed = await fetch(`${edge.url}/api/org/widget`, { method: 'PUT', headers: { cookie: admin.cookie, origin: admin.origin, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
  assert.equal(managed.status, 409);
  assert.equal((await managed.json()).error.code, 'EDGE.ORG.MANAGED_BY_SETTINGS');
});

test('the widget: allowed origin gets CORS (no credentials) and rates only; a refused origin gets nothing', async () => {
  const pre = await fetch(edge.url + '/api/v1/rates', {
    method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), SHOP);
  assert.match(pre.headers.get('access-control-allow-methods'), /POST/);
  assert.equal(pre.headers.get('access-control-allow-credentials'), null);
  assert.match(pre.headers.get('vary'), /Origin/);

  const wallet = await call('/api/v1/wallet', { origin: SHOP });
  const e = assertError(wallet, 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.equal(e.required_scope, 'wallet:read');
  assert.deepEqual(e.key_scopes, ['addresses:read', 'rates:read']);
  assert.equal(wallet.headers.get('access-control-allow-origin'), SHOP, 'the widget can read its refusal');

  const evilPre = await fetch(edge.url + '/api/v1/rates', { method: 'OPTIONS', headers: { origin: EVIL, 'access-control-request-method': 'POST' } });
  assert.equal(evilPre.status, 403);
  assert.equal(evilPre.headers.get('access-control-allow-origin'), null);
  const evil = await call('/api/v1/rates', { method: 'POST', body: shipment(), origin: EVIL });
  assertError(evil, 403, 'EDGE.ORIGIN.REFUSED');
  assert.equal(evil.headers.get('access-control-allow-origin'), null);
  // A preflight for an endpoint the widget may not use fails too.
  const buyPre = await fetch(edge.url + '/api/v1/labels', { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'POST' } });
  assert.equal(buyPre.status, 403);
});

/** The deployment's own widget as the widget scenarios take it (no widget id in the shops' pages). */
const widgetCtx = () => ({ engine: engines.chromium, browser, stack: { edge, sim, keys, shop, other } });

test('the deployment\'s widget on the demo shop: a shopper chooses one of every carrier\'s options; the shop gets it, changes the parcel and gets it re-quoted', () => scenarios['a shopper on the demo shop chooses one of every carrier\'s options; the shop gets it, changes the parcel and gets it re-quoted'](widgetCtx()));

test('the deployment\'s widget page, opened on its own, says it belongs in an iframe; a shop not in WIDGET_ORIGINS is told so', () => assertPageAlone(browser, widgetCtx().stack, 'WIDGET_ORIGINS'));

test('the deployment\'s widget page is framed only by the shop its link names, if configured; the dashboard by nobody', () => assertFramedOnlyByItsShop(widgetCtx().stack));

test('the widget uses only its share of the rates budget, per-shopper caps apply, and repeat quotes come from cache', () => sim.inOneWindow(async () => {
  const operator = await edge.session(users.operator);
  const dashboardQuote = () => call('/api/v1/rates', { method: 'POST', body: shipment(), session: operator });
  assert.ok(Number((await dashboardQuote()).headers.get('x-ratelimit-remaining')) > 82, 'room for the widget');
  const widgetQuote = (w) => call('/api/v1/rates', { method: 'POST', body: shipment(w), origin: SHOP, headers: { 'cf-connecting-ip': '203.0.113.7' } });
  const first = await widgetQuote(31);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.headers.get('access-control-allow-origin'), SHOP);
  // The same quote again: from the cache, same rates, no upstream call.
  const again = await widgetQuote(31);
  assert.equal(again.headers.get('x-parcel-cache'), 'hit');
  // How old the cached quote is (seconds), so the widget counts its 15 minutes from the quote, not from now.
  assert.match(again.headers.get('age'), /^\d+$/);
  assert.equal(first.headers.get('age'), null);
  assert.deepEqual(again.json.rates.map((r) => r.id), first.json.rates.map((r) => r.id));
  // New quotes until the widget's share (20% of 100) is spent: it stops exactly at the dashboard's 80.
  let refused, lastRemaining;
  for (let w = 40; w < 70 && !refused; w++) {
    const r = await widgetQuote(w);
    if (r.status === 429) refused = r;
    else lastRemaining = Number(r.headers.get('x-ratelimit-remaining'));
  }
  assert.ok(refused, 'the widget was stopped at its share');
  assert.equal(lastRemaining, 80);
  const e = assertError(refused, 429, 'AUTH.RATE_LIMIT.EXCEEDED');
  assert.match(e.message, /storefront's share/);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(refused.headers.get('access-control-allow-origin'), SHOP);
  assert.equal((await dashboardQuote()).status, 200, 'the dashboard still quotes');
  // The per-shopper cap (40 a minute) stops even cached quotes.
  let capped;
  for (let i = 0; i < 45 && !capped; i++) {
    const r = await widgetQuote(31);
    if (r.status === 429) capped = r;
  }
  assert.ok(capped, 'one shopper is capped per minute');
  assert.match(capped.json.error.message, /Too many requests from this shopper: at most 40 per minute/);
}));

test('an admin switches to sandbox; the key\'s missing scopes, learned from upstream, are then refused locally', async () => {
  const operator = await edge.session(users.operator);
  assertError(await call('/api/session/mode', { method: 'PUT', body: { mode: 'sandbox' }, session: operator }), 403, 'EDGE.ROLE.FORBIDDEN');
  const admin = await edge.session(users.admin);
  assert.equal(admin.info.can_switch_mode, true);
  const switched = await fetch(edge.url + '/api/session/mode', {
    method: 'PUT', headers: { cookie: admin.cookie, origin: admin.origin, 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'sandbox' }),
  });
  assert.equal(switched.status, 200);
  const info = await switched.json();
  assert.equal(info.mode, 'sandbox');
  const sandbox = { ...admin, cookie: switched.headers.get('set-cookie').split(';')[0] };
  const wallet = await call('/api/v1/wallet', { session: sandbox });
  assert.equal(wallet.json.sandbox, true, 'calls now use the sandbox key');
  // The sandbox key lacks labels:write, which the Worker was not told: upstream says so once...
  const first = await call('/api/v1/labels', { method: 'POST', body: { rate_id: 'rate_x' }, headers: idem(), session: sandbox });
  const e1 = assertError(first, 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.ok(!e1.request_id.startsWith('req_edge_'), 'the first refusal is upstream\'s');
  // ...and from then on the Worker refuses by itself and the session shows the narrower scopes.
  const second = await call('/api/v1/labels', { method: 'POST', body: { rate_id: 'rate_x' }, headers: idem(), session: sandbox });
  const e2 = assertError(second, 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.match(e2.request_id, /^req_edge_/);
  assert.match(e2.message, /API key does not have the labels:write scope/);
  const after = (await call('/api/session', { session: sandbox })).json;
  assert.ok(!after.scopes.includes('labels:write'));
  assert.ok(after.scopes.includes('rates:read'));
  // The live session is untouched.
  assert.equal((await call('/api/v1/wallet', { session: admin })).json.sandbox, false);
});

test('the API status page with the deployment\'s key rotation: no serious or critical axe violation, no sideways scrolling, at phone and desktop width', async () => {
  {
    for (const [vp, viewport] of Object.entries({ phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } })) {
      const { context, page } = await openSignedIn(browser, { edge }, users.admin, { viewport, path: '/status' });
      await page.getByRole('heading', { name: 'Live keys' }).waitFor({ timeout: T });
      await page.getByRole('table').first().waitFor({ timeout: T });
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], `axe on status at ${vp} width`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `status scrolls sideways by ${overflow}px at ${vp} width`);
      await screenshot(page, `status-${vp}`);
      await context.close();
    }
  }
});

test('key rotation: a revoked key shows as a problem; an admin verifies the next key and activates it on the status page; calls keep working on it', async () => {
  const admin = await edge.session(users.admin);
  const viewer = await edge.session(users.viewer);
  assertError(await call('/api/keys', { session: viewer }), 403, 'EDGE.ROLE.FORBIDDEN');
  const status = (await call('/api/keys', { session: admin })).json;
  const live = status.modes.find((m) => m.mode === 'live');
  assert.deepEqual(live.keys.map((k) => [k.slot, k.active]), [['current', true], ['next', false]]);
  assert.equal(live.keys[1].redacted, `svc_live_…${nextKey.slice(-4)}`);
  {
    const { context, page, app } = await openSignedIn(browser, { edge }, users.admin, { path: '/status' });
    const region = page.getByRole('region', { name: 'Live keys' });
    await region.waitFor({ timeout: T });
    assert.match(await region.innerText(), /current slot\s*In use/);

    // The service revokes the current key: calls fail with its error and admins see the alert.
    await sim.control('POST', `/__sim/keys/${keys.live}/revoke`);
    assertError(await call('/api/v1/wallet', { session: admin }), 401, 'AUTH.KEY.REVOKED');
    assert.equal((await call('/api/session', { session: admin })).json.key_problem, 'AUTH.KEY.REVOKED');

    const verified = await call('/api/keys/live/verify', { method: 'POST', session: admin });
    assert.equal(verified.status, 200);
    assert.equal(verified.json.ok, true, JSON.stringify(verified.json));
    assertError(await call('/api/keys/live/activate', { method: 'POST', session: viewer }), 403, 'EDGE.ROLE.FORBIDDEN');
    // The admin verifies and activates the next key on the status page.
    await region.getByRole('button', { name: 'Verify the new live key' }).click();
    await region.getByText('Verified', { exact: false }).waitFor({ timeout: T });
    await region.getByRole('button', { name: 'Activate the new live key' }).click();
    await region.getByRole('button', { name: 'Yes, activate it' }).click();
    await page.getByRole('region', { name: 'Live keys' }).getByText(/next slot\s*In use/).waitFor({ timeout: T });
    assert.equal(await page.getByRole('button', { name: 'Activate the new live key' }).count(), 0);
    await screenshot(page, 'status-rotated');
    const liveAfter = (await call('/api/keys', { session: admin })).json.modes.find((m) => m.mode === 'live');
    assert.deepEqual(liveAfter.keys.map((k) => [k.slot, k.active]), [['current', false], ['next', true]]);
    // No downtime for anyone: the next call uses the new key; the alert is gone.
    assert.equal((await call('/api/v1/wallet', { session: viewer })).status, 200);
    assert.equal((await call('/api/session', { session: admin })).json.key_problem, null);
    const none = assertError(await call('/api/keys/sandbox/activate', { method: 'POST', session: admin }), 409, 'EDGE.KEY.NO_NEXT_KEY');
    assert.match(none.message, /SVC_SANDBOX_KEY_NEXT/, 'the deployment is told the setting');
    // The dashboard works on the new key.
    await app.nav('Wallet');
    await page.getByTestId('balance').waitFor({ timeout: T });
    await context.close();
  }
});

test('a live label\'s PDF comes through the Worker with the key the service wants: viewers download it, the signed-out and the widget do not', () => sim.inOneWindow(async () => {
  const operator = await edge.session(users.operator);
  const quote = await call('/api/v1/rates', { method: 'POST', body: shipment(), session: operator });
  const bought = await call('/api/v1/labels', { method: 'POST', body: { rate_id: quote.json.rates[0].id }, session: operator, headers: idem() });
  assert.equal(bought.status, 201, JSON.stringify(bought.json));
  const { id, label_url } = bought.json;
  // The service wants a key for a live label's PDF: a browser could not open label_url itself.
  assert.equal((await fetch(label_url)).status, 401);
  const viewer = await edge.session(users.viewer);
  const pdf = async (query = '', headers = { cookie: viewer.cookie }) => {
    const res = await fetch(`${edge.url}/api/labels/${id}/pdf${query}`, { headers });
    const bytes = Buffer.from(await res.arrayBuffer());
    seen.push(JSON.stringify([...res.headers]) + bytes.toString('latin1'));
    answered.push(res.headers.get('x-request-id'));
    return { res, bytes };
  };
  const download = await pdf();
  assert.equal(download.res.status, 200);
  assert.equal(download.res.headers.get('content-type'), 'application/pdf');
  assert.equal(download.res.headers.get('content-disposition'), `attachment; filename="${id}.pdf"`);
  assert.equal(download.res.headers.get('cache-control'), 'no-store');
  assert.equal(download.bytes.subarray(0, 5).toString(), '%PDF-');
  assert.equal((await pdf('?inline=1')).res.headers.get('content-disposition'), `inline; filename="${id}.pdf"`);
  for (const headers of [{}, { origin: SHOP }]) {
    const { res, bytes } = await pdf('', headers);
    assert.equal(res.status, 401, `${JSON.stringify(headers)}: ${bytes}`);
    assert.equal(JSON.parse(bytes).error.code, 'EDGE.SESSION.REQUIRED');
  }
  const missing = await call('/api/labels/lbl_nope/pdf', { session: viewer });
  assertError(missing, 404, 'LABEL.NOT_FOUND');
  assertError(await call('/api/labels/..%2Fwallet/pdf', { session: viewer }), 404, 'EDGE.ROUTE.NOT_FOUND');
}));

test('a saved sender survives a reload (this browser\'s localStorage: the deployment\'s own organization has no saved addresses) and fills the From address', async () => {
  {
    const { page, ship } = await openSignedIn(browser, { edge }, users.operator);
    await ship.fillAddress('From', SENDER);
    await ship.group('From').getByRole('button', { name: 'Save sender' }).click();
    await page.getByText('Sender saved in this browser.').waitFor();
    await page.reload();
    await page.getByLabel('Saved senders').selectOption({ index: 1 });
    assert.equal(await ship.group('From').getByLabel('Name', { exact: true }).inputValue(), SENDER.name);
    assert.equal(await ship.group('From').getByLabel('ZIP code', { exact: true }).inputValue(), SENDER.zip);
  }
});

test('no response, header or log line carries a key, a token or the session secret; every request has one JSON log line', async () => {
  // Every answer names its request, and that request has its log line
  // (the last ones may still be in flight: waited for, not guessed).
  assert.ok(answered.every(Boolean), `${answered.filter((id) => !id).length} of ${answered.length} answers without X-Request-Id`);
  const requestLines = () => edge.logs.filter((l) => l.startsWith('{"request_id":')).map((l) => JSON.parse(l));
  // A forwarded answer carries the service's id, which its line names too.
  const ids = (lines) => lines.flatMap((l) => [l.request_id, l.upstream_request_id].filter(Boolean));
  const missing = () => { const have = new Set(ids(requestLines())); return answered.filter((id) => !have.has(id)); };
  await until(() => `the log lines of ${missing().join(', ')}`, () => missing().length === 0);
  const parsed = requestLines();
  const logged = ids(parsed);
  for (const id of answered) assert.equal(logged.filter((l) => l === id).length, 1, `one log line for ${id}`);
  assert.ok(parsed.length >= 80, `${parsed.length} request log lines`);
  const secrets = [keys.live, keys.sandbox, nextKey, sessionSecret, WEBHOOK_SECRET, WEBHOOK_SECRET_NEXT, ...Object.values(users).map((u) => u.token)];
  const hexes = [keys.live, keys.sandbox, nextKey].map((k) => k.slice(9));
  for (const text of [...seen, ...edge.logs]) {
    for (const s of [...secrets, ...hexes]) assert.ok(!text.includes(s), `a secret leaked in: ${text.slice(0, 200)}`);
  }
  for (const line of parsed) {
    for (const f of ['request_id', 'method', 'route', 'principal', 'status', 'total_ms']) assert.ok(f in line, `${f} in ${JSON.stringify(line)}`);
  }
  const viewerRefusal = parsed.find((l) => l.role === 'viewer' && l.status === 403 && l.route === '/v1/labels');
  assert.ok(viewerRefusal, 'the viewer refusal is logged');
  assert.equal(viewerRefusal.upstream_status, null, 'and it never reached upstream');
  assert.equal(viewerRefusal.error, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.ok(parsed.some((l) => l.principal === `widget:${SHOP}` && l.answered_from === 'cached'));
  assert.ok(parsed.some((l) => l.principal === 'user:admin1' && l.upstream_status === 200 && l.upstream_ms !== null));
});
