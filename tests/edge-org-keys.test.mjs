// Each organization's own v1 keys through the three Workers in workerd, in
// front of the real simulator (where each organization's keys belong to an
// account of its own): an admin enters keys, each checked first and then
// shown only by its last four; forwarded calls, labels, idempotency keys
// and batch jobs run with the session's organization's key and never reach
// the other's; the persisted objects and the log hold no plaintext key;
// after the master key is rotated every organization still works. A stack
// of this file's own: its Workers restart with other master keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SCOPES, newKeys, newUsers, startEdge, startSim } from './support/stack.mjs';
import { Person, assertError, newOrgLink, turnLiveOn } from './support/orgs.mjs';
import { untilJob } from './support/jobs.mjs';
import { until } from './support/wait.mjs';

const PASSWORD = 'correct horse battery staple';
/** Live labels from $30 go in the audit log (the simulator quotes ground below it, overnight above). */
const AUDIT_PURCHASE_CENTS = 3000;
const secret = () => randomBytes(32).toString('hex');
let sim, edge, options, persist, deploymentKeys;
const simKeys = {};

before(async () => {
  deploymentKeys = newKeys();
  sim = await startSim({ keys: deploymentKeys });
  persist = mkdtempSync(path.join(tmpdir(), 'parcel-org-keys-'));
  options = {
    upstream: sim.url, keys: deploymentKeys, users: newUsers(), persist,
    sessionSecret: secret(), masterKeys: `k1:${secret()}`,
    vars: { AUDIT_PURCHASE_CENTS: String(AUDIT_PURCHASE_CENTS) },
  };
  edge = await startEdge(options);
});
after(async () => {
  await edge?.stop();
  await sim?.stop();
  if (persist) rmSync(persist, { recursive: true, force: true });
});

const person = () => new Person(edge.url);

/** A key of the simulator's `account`, remembered for the at-rest scans. */
async function simKey(account, env, scopes = ALL_SCOPES) {
  const { key } = await sim.control('POST', '/__sim/keys', { env, scopes, account });
  simKeys[key] = account;
  return key;
}
const calls = async (key) => (await sim.control('GET', `/__sim/keys/${key}`)).calls;

async function newOrg(name) {
  const link = await newOrgLink(options.sessionSecret, edge.url);
  const admin = person();
  admin.email = `admin.${randomBytes(4).toString('hex')}@example.com`;
  const res = await admin.createOrg(link.token, { orgName: name, name: `${name} Admin`, email: admin.email, password: PASSWORD });
  assert.equal(res.status, 200, res.text);
  admin.org = res.json.org;
  return admin;
}

const setKey = (who, key, slot = 'current') => who.call('PUT', '/api/org/keys', { action: 'set', slot, key });

const address = (name, street1, zip, state) => ({ name, street1, city: 'Brooklyn', state, zip, country: 'US' });
const shipment = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};

/** Buys `rateId` (or the cheapest of a new quote) in the session's mode with `idempotencyKey`. */
async function buy(who, idempotencyKey, rateId) {
  if (!rateId) {
    const quote = await who.call('POST', '/api/v1/rates', shipment);
    assert.equal(quote.status, 200, quote.text);
    rateId = quote.json.rates[0].id;
  }
  const label = await who.call('POST', '/api/v1/labels', { rate_id: rateId }, { 'idempotency-key': idempotencyKey });
  return { status: label.status, replayed: label.headers.get('idempotent-replayed'), json: label.json, rateId };
}

let acme, beta, acmeSandbox, acmeLive;

test('an admin enters the organization\'s keys: each is checked first, its scopes recorded, and only its last four shown after', async () => {
  acme = await newOrg('Acme');
  assert.deepEqual((await acme.call('GET', '/api/org/keys')).json, { keys: [], live: false });
  // No keys yet: a forwarded call says so instead of using anyone else's.
  assertError(await acme.call('GET', '/api/v1/wallet'), 409, 'EDGE.MODE.UNAVAILABLE');

  const malformed = assertError(await setKey(acme, 'svc_test_not-a-key'), 422, 'EDGE.KEY.MALFORMED');
  assert.equal(malformed.field, 'key');
  const unknown = `svc_test_${randomBytes(16).toString('hex')}`;
  const refused = assertError(await setKey(acme, unknown), 422, 'EDGE.KEY.REFUSED');
  assert.match(refused.message, /AUTH\.KEY\.INVALID/);
  assert.ok(!refused.message.includes(unknown), 'the refusal shows the key redacted only');
  const revoked = await simKey('acct_acme', 'sandbox');
  await sim.control('POST', `/__sim/keys/${revoked}/revoke`);
  assert.match(assertError(await setKey(acme, revoked), 422, 'EDGE.KEY.REFUSED').message, /AUTH\.KEY\.REVOKED/);
  assert.deepEqual((await acme.call('GET', '/api/org/keys')).json, { keys: [], live: false }, 'nothing refused was stored; live mode starts off');

  // A live key with two scopes: the check learns exactly those.
  acmeLive = await simKey('acct_acme', 'live', ['rates:read', 'addresses:read']);
  const live = await setKey(acme, acmeLive);
  assert.equal(live.status, 200, live.text);
  assert.deepEqual(live.json.keys.map((k) => [k.mode, k.slot, k.redacted, k.scopes]),
    [['live', 'current', `svc_live_…${acmeLive.slice(-4)}`, ['rates:read', 'addresses:read']]]);
  acmeSandbox = await simKey('acct_acme', 'sandbox');
  const both = await setKey(acme, acmeSandbox);
  assert.equal(both.status, 200, both.text);
  const sandbox = both.json.keys.find((k) => k.mode === 'sandbox');
  assert.deepEqual(sandbox.scopes, ALL_SCOPES);
  assert.equal(sandbox.set_by, `Acme Admin <${acme.email}>`);
  for (const res of [live, both, await acme.call('GET', '/api/org/keys'), await acme.call('GET', '/api/keys'), await acme.call('GET', '/api/org/audit')]) {
    for (const key of [acmeLive, acmeSandbox]) assert.ok(!res.text.includes(key.slice(9)), 'no answer carries a key');
  }
  const audit = (await acme.call('GET', '/api/org/audit')).json.entries.filter((e) => e.action === 'key_set');
  assert.equal(audit.length, 2);
  assert.match(audit[0].detail, /^sandbox key \(current\) set to svc_test_…/);

  // A new organization stays in sandbox until its admin turns live on:
  // until then its sessions have no live mode to switch to.
  const session = (await acme.call('GET', '/api/session')).json;
  assert.equal(session.mode, 'sandbox');
  assert.deepEqual(session.modes, ['sandbox']);
  assertError(await acme.call('PUT', '/api/session/mode', { mode: 'live' }), 409, 'EDGE.MODE.UNAVAILABLE');
  const on = await acme.call('PUT', '/api/org/keys', { action: 'live', on: true });
  assert.equal(on.status, 200, on.text);
  assert.equal(on.json.live, true);
  const turned = (await acme.call('GET', '/api/org/audit')).json.entries.find((e) => e.action === 'live_mode_changed');
  assert.equal(turned.actor, `Acme Admin <${acme.email}>`);
  assert.deepEqual((await acme.call('GET', '/api/session')).json.modes, ['live', 'sandbox']);
  // The session works with both keys: live is bounded by the live key's
  // two scopes, sandbox has all.
  assert.equal((await acme.call('PUT', '/api/session/mode', { mode: 'live' })).status, 200);
  assertError(await acme.call('GET', '/api/v1/wallet'), 403, 'AUTH.KEY.INSUFFICIENT_SCOPE');
  assert.equal((await acme.call('PUT', '/api/session/mode', { mode: 'sandbox' })).status, 200);
  const before = await calls(acmeSandbox);
  const wallet = await acme.call('GET', '/api/v1/wallet');
  assert.equal(wallet.status, 200, wallet.text);
  assert.equal(wallet.json.sandbox, true);
  assert.equal(await calls(acmeSandbox), before + 1, 'the call went upstream with the organization\'s own key');

  // Only admins change keys.
  const invited = await acme.invite('operator');
  const operator = person();
  assert.equal((await operator.accept(invited.json.token, { email: `op.${randomBytes(3).toString('hex')}@example.com`, password: PASSWORD })).status, 200);
  assertError(await setKey(operator, acmeSandbox), 403, 'EDGE.ROLE.FORBIDDEN');
  assertError(await operator.call('GET', '/api/org/keys'), 403, 'EDGE.ROLE.FORBIDDEN');
});

test('the rotation in the app: a next key is checked, verified, activated, then made the only one', async () => {
  const next = await simKey('acct_acme', 'sandbox');
  const added = await setKey(acme, next, 'next');
  assert.equal(added.status, 200, added.text);
  assert.deepEqual(added.json.keys.filter((k) => k.mode === 'sandbox').map((k) => k.slot), ['current', 'next']);
  const verified = await acme.call('POST', '/api/keys/sandbox/verify');
  assert.equal(verified.json.ok, true, verified.text);
  assert.equal((await acme.call('POST', '/api/keys/sandbox/activate')).status, 200);
  const before = await calls(next);
  assert.equal((await acme.call('GET', '/api/v1/wallet')).status, 200);
  assert.equal(await calls(next), before + 1, 'the activated next key makes the calls');
  const promoted = await acme.call('PUT', '/api/org/keys', { action: 'promote', mode: 'sandbox' });
  assert.equal(promoted.status, 200, promoted.text);
  assert.deepEqual(promoted.json.keys.filter((k) => k.mode === 'sandbox').map((k) => [k.slot, k.redacted]), [['current', `svc_test_…${next.slice(-4)}`]]);
  assertError(await acme.call('PUT', '/api/org/keys', { action: 'promote', mode: 'sandbox' }), 409, 'EDGE.KEY.NO_NEXT');
  const old = await calls(acmeSandbox);
  assert.equal((await acme.call('GET', '/api/v1/wallet')).status, 200);
  assert.equal(await calls(acmeSandbox), old, 'the old key is no longer used');
  acmeSandbox = next;
  // A rotation abandoned: the next key is forgotten, the current one stays.
  await setKey(acme, await simKey('acct_acme', 'sandbox'), 'next');
  const discarded = await acme.call('PUT', '/api/org/keys', { action: 'discard_next', mode: 'sandbox' });
  assert.deepEqual(discarded.json.keys.filter((k) => k.mode === 'sandbox').map((k) => k.slot), ['current']);
});

test('two organizations: labels, idempotency keys and jobs stay with their own; the simulator sees no call with the other\'s key', async () => {
  beta = await newOrg('Beta');
  const betaSandbox = await simKey('acct_beta', 'sandbox');
  assert.equal((await setKey(beta, betaSandbox)).status, 200);
  const deploymentCalls = await calls(deploymentKeys.sandbox);

  const idem = randomUUID();
  const a = await buy(acme, idem);
  assert.equal(a.status, 201, JSON.stringify(a.json));
  // The ledger follows Acme's label with Acme's key (one tracker
  // registration, off the purchase path; the next read is an hour away):
  // counted before what follows.
  await until(`Acme's label ${a.json.id} followed`, async () => {
    const r = await acme.call('GET', '/api/shipments?mode=sandbox');
    assert.equal(r.status, 200, r.text);
    return r.json.shipments.some((x) => x.label_id === a.json.id && x.tracker_id);
  });
  const acmeCalls = await calls(acmeSandbox);

  // Beta's session on Acme's label: the service finds no such label for
  // Beta's account, and the answer says nothing of Acme.
  for (const route of [`/api/v1/labels/${a.json.id}`, `/api/labels/${a.json.id}/pdf`]) {
    const res = await beta.call('GET', route);
    assert.equal(res.status, 404, `${route}: ${res.text}`);
    assert.ok(!res.text.includes('Acme') && !res.text.includes(acme.org.id), res.text);
  }
  assertError(await beta.call('DELETE', `/api/v1/labels/${a.json.id}`, undefined, { 'idempotency-key': randomUUID() }), 404, 'LABEL.NOT_FOUND');
  // The same Idempotency-Key in Beta is Beta's own purchase, not Acme's replay.
  const b = await buy(beta, idem);
  assert.equal(b.status, 201, JSON.stringify(b.json));
  assert.equal(b.replayed, null);
  assert.notEqual(b.json.id, a.json.id);
  const replay = await buy(acme, idem, a.rateId);
  assert.equal(replay.replayed, 'true');
  assert.equal(replay.json.id, a.json.id, 'Acme\'s replay is still Acme\'s label');

  // A batch job of Beta's runs with Beta's key.
  const betaBefore = await calls(betaSandbox);
  const job = await beta.call('POST', '/api/jobs', {
    name: 'beta.csv', rule: { rule: 'cheapest' },
    approval: { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 10000000 },
    rows: [1, 2].map((n) => ({ reference: `#${n}`, from_address: shipment.from_address, to_address: address(`Customer ${n}`, `${n} Elm St`, '11201', 'NY'), parcel: shipment.parcel })),
  });
  assert.equal(job.status, 201, job.text);
  assert.equal(job.json.mode, 'sandbox');
  assert.equal((await beta.call('POST', `/api/jobs/${job.json.id}/start`)).status, 200);
  const s = { json: async (p) => { const r = await beta.call('GET', p); assert.equal(r.status, 200, r.text); return r.json; } };
  const done = await untilJob(s, job.json.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), {
    tick: async (j) => { if (j.chunks.some((c) => c.state === 'processing')) await sim.control('POST', '/__sim/clock/advance', { seconds: 60 }); },
  });
  assert.equal(done.state, 'completed', JSON.stringify(done.problem));
  assert.equal(done.counts.bought, 2);
  assert.ok(await calls(betaSandbox) > betaBefore, 'the job called with Beta\'s key');
  // Acme cannot see Beta's job, its rows or its results.
  for (const route of [`/api/jobs/${job.json.id}`, `/api/jobs/${job.json.id}/rows`, `/api/jobs/${job.json.id}/results.csv`]) {
    assertError(await acme.call('GET', route), 404, 'EDGE.JOB.NOT_FOUND');
  }
  assert.ok(!(await acme.call('GET', '/api/jobs')).json.jobs.some((j) => j.id === job.json.id));
  assert.ok((await beta.call('GET', '/api/jobs')).json.jobs.some((j) => j.id === job.json.id));
  // Beta's labels were bought on Beta's account: Acme's session cannot read them.
  const rows = (await s.json(`/api/jobs/${job.json.id}/rows`)).rows;
  assertError(await acme.call('GET', `/api/v1/labels/${rows[0].label_id}`), 404, 'LABEL.NOT_FOUND');

  assert.equal(await calls(acmeSandbox) - acmeCalls, 1, 'only Acme\'s own call since (its read of Beta\'s label; the replay is answered by the Worker) used its key');
  assert.equal(await calls(deploymentKeys.sandbox), deploymentCalls, 'no organization used the deployment\'s key');
});

test('the audit log names who committed money: a batch\'s approved total and a live label above the threshold; a removed operator\'s next read is refused', async () => {
  const betaLive = await simKey('acct_beta', 'live');
  assert.equal((await setKey(beta, betaLive)).status, 200);
  await turnLiveOn(beta);
  await sim.control('PUT', '/__sim/accounts/acct_beta/wallet', { balance_cents: 10_000_000, card: 'ok', auto_reload: null });
  const invite = await beta.invite('operator');
  assert.equal(invite.status, 201, invite.text);
  const op = person();
  const email = `op.${randomBytes(4).toString('hex')}@example.com`;
  assert.equal((await op.accept(invite.json.token, { email, password: PASSWORD, name: 'Olga Operator' })).status, 200);
  assert.equal((await op.call('GET', '/api/session')).json.mode, 'live');

  const quote = await op.call('POST', '/api/v1/rates', shipment);
  assert.equal(quote.status, 200, quote.text);
  const cheap = quote.json.rates.find((r) => r.rate_cents < AUDIT_PURCHASE_CENTS);
  const dear = quote.json.rates.find((r) => r.rate_cents >= AUDIT_PURCHASE_CENTS);
  assert.ok(cheap && dear, `the quote straddles the threshold: ${quote.json.rates.map((r) => r.rate_cents)}`);
  const small = await buy(op, randomUUID(), cheap.id);
  const large = await buy(op, randomUUID(), dear.id);
  assert.equal(small.status, 201, JSON.stringify(small.json));
  assert.equal(large.status, 201, JSON.stringify(large.json));

  const job = await op.call('POST', '/api/jobs', {
    name: 'approve-me.csv', rule: { rule: 'cheapest' }, approval: { approval: 'review_first' },
    rows: [1, 2].map((n) => ({ reference: `#${n}`, from_address: shipment.from_address, to_address: address(`Customer ${n}`, `${n} Elm St`, '11201', 'NY'), parcel: shipment.parcel })),
  });
  assert.equal(job.status, 201, job.text);
  assert.equal((await op.call('POST', `/api/jobs/${job.json.id}/start`)).status, 200);
  const s = { json: async (p) => { const r = await op.call('GET', p); assert.equal(r.status, 200, r.text); return r.json; } };
  const quoted = await untilJob(s, job.json.id, (j) => !['planned', 'quoting'].includes(j.state));
  assert.equal(quoted.state, 'awaiting_approval', JSON.stringify(quoted.problem));
  const approved = await op.call('POST', `/api/jobs/${job.json.id}/approve`);
  assert.equal(approved.status, 200, approved.text);

  const entries = (await beta.call('GET', '/api/org/audit')).json.entries;
  const money = entries.filter((e) => ['large_purchase', 'batch_approved'].includes(e.action));
  const dollars = (c) => `$${Math.floor(c / 100).toLocaleString('en-US')}.${String(c % 100).padStart(2, '0')}`;
  assert.deepEqual(money.map((e) => [e.action, e.actor]), [
    ['batch_approved', `Olga Operator <${email}>`],
    ['large_purchase', `Olga Operator <${email}>`],
  ], 'the cheap label and sandbox jobs are not entries; the dear label and the approval are, by who did them');
  assert.equal(money[0].detail, `approve-me.csv (${job.json.id}, live): approved ${dollars(quoted.cost.quoted_cents)} for 2 labels`);
  assert.ok(money[1].detail.startsWith(`${dollars(dear.rate_cents)} ${dear.carrier} ${dear.service} (${large.json.id}, tracking `), money[1].detail);
  assertError(await op.call('GET', '/api/org/audit'), 403, 'EDGE.ROLE.FORBIDDEN');

  // Reads may reuse a moment-old membership check, but a removal made
  // through this Worker counts from the very next request, read or write.
  assert.equal((await op.call('GET', '/api/v1/wallet')).status, 200);
  const account = (await beta.call('GET', '/api/org/members')).json.members.find((m) => m.email === email).account;
  assert.equal((await beta.call('DELETE', `/api/org/members/${account}`)).status, 200);
  assertError(await op.call('GET', '/api/v1/wallet'), 401, 'EDGE.SESSION.REQUIRED');
  assertError(await op.call('POST', '/api/v1/rates', shipment), 401, 'EDGE.SESSION.REQUIRED');
});

test('webhooks: each organization has its own URL and secret; a delivery lands only in its inbox, and the other\'s secret does not verify it', async () => {
  const secrets = {};
  const hook = {};
  for (const [name, who, account] of [['acme', acme, 'acct_acme'], ['beta', beta, 'acct_beta']]) {
    const view = await who.call('GET', '/api/org/webhook');
    assert.equal(view.status, 200, view.text);
    assert.deepEqual(view.json, { path: `/hooks/v1/label-created/${who.org.id}`, secrets: [] });
    hook[name] = edge.url + view.json.path;
    assert.equal(assertError(await who.call('PUT', '/api/org/webhook', { action: 'set', slot: 'current', secret: 'short' }), 422, 'VALIDATION.FIELD.INVALID').field, 'secret');
    secrets[name] = `whsec_${randomBytes(16).toString('hex')}`;
    simKeys[secrets[name]] = account; // scanned at rest with the keys
    const set = await who.call('PUT', '/api/org/webhook', { action: 'set', slot: 'current', secret: secrets[name] });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json.secrets.map((s) => [s.slot, s.redacted]), [['current', `…${secrets[name].slice(-4)}`]]);
    assert.ok(!set.text.includes(secrets[name]));
    await sim.control('PUT', `/__sim/accounts/${account}/webhook`, { url: hook[name], secret: secrets[name] });
  }
  // Acme buys; the service delivers to Acme's URL, signed with Acme's secret.
  const bought = await buy(acme, randomUUID());
  assert.equal(bought.status, 201, JSON.stringify(bought.json));
  const inbox = (who) => who.call('GET', `/api/webhooks/inbox?q=${bought.json.id}`);
  await until('the delivery in Acme\'s inbox', async () => (await inbox(acme)).json.accepted.some((e) => e.label.id === bought.json.id), 20_000);
  assert.deepEqual((await inbox(beta)).json.accepted, [], 'and never Beta\'s');
  // The same event signed with Beta's secret, to Acme's URL: refused.
  const body = JSON.stringify({ event: 'label.created', data: bought.json });
  const sign = (secret) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  const post = (url, secret) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': sign(secret) }, body });
  const forged = await post(hook.acme, secrets.beta);
  assert.equal(forged.status, 401);
  assert.equal((await forged.json()).error.code, 'WEBHOOK.SIGNATURE.INVALID');
  // An organization that does not exist answers as one without a secret.
  const unknown = await post(`${edge.url}/hooks/v1/label-created/org_${randomBytes(8).toString('hex')}`, secrets.acme);
  assert.equal(unknown.status, 503);
  assert.equal((await unknown.json()).error.code, 'WEBHOOK.SECRET.MISSING');
  const audit = (await acme.call('GET', '/api/org/audit')).json.entries.filter((e) => e.action === 'webhook_secret_set');
  assert.match(audit[0].detail, /^webhook secret \(current\) set to …/);
});

/** Every file under `dir`, read as bytes. */
function files(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => ({ f, bytes: readFileSync(f) }));
}

test('keys at rest: no persisted object or log line holds a key; after the master key is rotated every organization still works', { timeout: 180000 }, async () => {
  const keys = Object.keys(simKeys);
  assert.ok(keys.length >= 6);
  const scan = () => {
    for (const { f, bytes } of files(persist)) {
      for (const key of keys) assert.ok(!bytes.includes(key.slice(9)), `${f} holds a key`);
    }
    // Every line of every start of the Workers.
    for (const key of keys) assert.ok(!edge.logs.some((l) => l.includes(key.slice(9))), 'the log holds a key');
  };
  const sealedWith = (kid) => files(persist).some(({ bytes }) => bytes.includes(`"sealed":"${kid}.`));
  scan();
  assert.ok(sealedWith('k1'));

  // A second master key in front: what k1 sealed still opens, and is
  // sealed again with k2 as each organization is used.
  // The Workers restarted on their state with `masterKeys` (on the same port).
  let masterKeys = options.masterKeys;
  const restart = async (keys) => {
    masterKeys = keys;
    await edge.restart({ masterKeys });
  };
  await restart(`k2:${secret()},${masterKeys}`);
  for (const who of [acme, beta]) {
    const wallet = await who.call('GET', '/api/v1/wallet');
    assert.equal(wallet.status, 200, wallet.text);
  }
  assert.ok(sealedWith('k2'));
  // Then k1 is removed: both organizations, used since (so sealed again
  // with k2), still work: nothing they use is left under k1.
  await restart(masterKeys.split(',')[0]);
  for (const who of [acme, beta]) {
    const wallet = await who.call('GET', '/api/v1/wallet');
    assert.equal(wallet.status, 200, wallet.text);
  }
  // A master key missing for what was sealed is a setting to fix, said as such.
  await restart(`k3:${secret()}`);
  assertError(await acme.call('GET', '/api/v1/wallet'), 503, 'EDGE.ORG.UNAVAILABLE');
  // Its log line is written while the answer is on its way: wait for it (bounded).
  const said = /EDGE\.CONFIG\.INVALID: The Worker setting MASTER_KEYS is invalid/;
  await until('the accounts Worker to log what to fix (MASTER_KEYS)', () => edge.logs.some((l) => said.test(l)));
  scan();
});
