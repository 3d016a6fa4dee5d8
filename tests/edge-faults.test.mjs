// What the Workers do when something underneath them goes wrong, through
// the real Workers in workerd and the real simulator, as organizations'
// members: a stack of this file's own, because each test here stops and
// restarts the Workers on their stored state (edited while they are down,
// for what no endpoint can do), restarts them with other settings, or
// slows, breaks or stops the simulator, which on the shared stack is every
// test file's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RAISED_LIMITS as RAISED, startStack } from './support/stack.mjs';
import { Person, assertError, newOrgLink, orgStack } from './support/orgs.mjs';
import { act, advanceWhileProcessing, allRows, createJob, jobsOn, pdfPages, processing, rows, twentyMadeTwentyFailed, untilJob } from './support/jobs.mjs';
import { filesWithTable, sqlite } from './support/sqlite.mjs';
import { until } from './support/wait.mjs';

const PASSWORD = 'correct horse battery staple';
/** The Durable Objects' SQLite files, edited while the Workers are down. */
const persist = mkdtempSync(path.join(tmpdir(), 'parcel-faults-'));
let stack, org, operator;
before(async () => {
  // A short upstream timeout, so a slow upstream is met in seconds.
  stack = await startStack({ persist, edgeVars: { UPSTREAM_TIMEOUT_MS: '2000' } });
  org = await orgStack(stack);
  operator = await stack.edge.session(org.users.operator);
});
after(async () => {
  await stack?.stop();
  rmSync(persist, { recursive: true, force: true });
});

const person = () => new Person(stack.edge.url);
/** The simulator's clock running and no fault: what each test here leaves for the next. */
const thaw = async () => {
  await stack.sim.control('POST', '/__sim/clock/freeze', { frozen: false });
  await stack.sim.control('PUT', '/__sim/faults', {});
};
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** A call as the organization's operator, from the dashboard's own origin. */
const api = (p, init = {}) => fetch(stack.edge.url + p, {
  ...init,
  headers: { cookie: operator.cookie, origin: operator.origin, ...init.headers },
});
const post = (body, headers = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const json = (body, headers = {}) => post(JSON.stringify(body), headers);
const address = (name, street1, zip, state) => ({ name, street1, city: 'X', state, zip, country: 'US' });
const shipment = {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};
const account = () => org.account();
const liveBalance = async () => (await account()).balance_cents;

/** `res` is `status` with the v1 envelope of `code`; returns the error. */
async function envelope(res, status, code) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error.code, code, JSON.stringify(body));
  for (const f of ['message', 'suggestion', 'docs_url', 'request_id']) assert.ok(body.error[f], `${f} in ${JSON.stringify(body)}`);
  assert.equal(res.headers.get('x-request-id'), body.error.request_id);
  return body.error;
}

async function quote() {
  return (await (await api('/api/v1/rates', post(JSON.stringify(shipment)))).json()).rates[0].id;
}

/** One purchase intent: its key and its rate, as the app sends it on every retry. */
const buy = (key, rate) => api('/api/v1/labels', post(JSON.stringify({ rate_id: rate }), { 'idempotency-key': key }));

test('an invitation a day past its expiry is refused as expired, and listed so', async () => {
  const admin = person();
  const link = await newOrgLink(stack.sessionSecret, stack.edge.url);
  const made = await admin.createOrg(link.token, { orgName: 'Aging Co', name: 'Ada Admin', email: email('admin'), password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  // A day past its expiry (moved there in the organization's stored row,
  // with the Workers stopped: no endpoint can age an invitation), a link is
  // refused as expired.
  const aging = await admin.invite('viewer', 1);
  assert.equal(aging.status, 201, aging.text);
  await stack.edge.stop();
  const [orgFile] = filesWithTable(persist, 'invites').filter((f) => sqlite(f, 'SELECT id FROM invites WHERE id = ?', [aging.json.invite.id]).length);
  assert.ok(orgFile, 'the organization object holds the invitation');
  sqlite(orgFile, 'UPDATE invites SET expires_at = ? WHERE id = ?', [Math.floor(Date.now() / 1000) - 86400, aging.json.invite.id]);
  await stack.edge.restart();
  assertError(await person().preview(aging.json.token), 410, 'EDGE.INVITE.EXPIRED');
  assertError(await person().accept(aging.json.token, { email: email('late'), password: PASSWORD }), 410, 'EDGE.INVITE.EXPIRED');
  assert.equal((await admin.call('GET', '/api/org/invites')).json.invites.find((i) => i.id === aging.json.invite.id).state, 'expired');
});

test('a purchase whose record cannot be read is refused, and nothing is bought again', async () => {
  const key = randomUUID();
  const rate = await quote();
  const first = await buy(key, rate);
  assert.equal(first.status, 201);
  const label = await first.json();
  const bought = await account();
  // The deployment stops; its stored record is damaged (or written by a newer build).
  await stack.edge.stop();
  const [file] = filesWithTable(persist, 'entry').filter((f) => sqlite(f, 'SELECT json FROM entry')[0]?.[0].includes(label.id));
  assert.ok(file, 'the record of the purchase is on disk');
  sqlite(file, "UPDATE entry SET json = '{\"v\":99,\"state\":\"done\"}'");
  await stack.edge.restart();
  operator = await stack.edge.session(org.users.operator);
  // The retry of the same intent: refused, with what to do, and no purchase upstream.
  const e = await envelope(await buy(key, rate), 503, 'EDGE.IDEMPOTENCY.RECORD_UNREADABLE');
  assert.equal(e.outcome_unknown, true, 'the app must keep the key');
  assert.match(e.message, /not sent/);
  assert.match(e.suggestion, /same Idempotency-Key/);
  const after = await account();
  assert.equal(after.balance_cents, bought.balance_cents, 'the wallet is unchanged');
  assert.equal(after.live_labels, bought.live_labels, 'no second label');
});

test('a record written in the previous shape (no version) is still replayed', async () => {
  const key = randomUUID();
  const rate = await quote();
  const first = await buy(key, rate);
  assert.equal(first.status, 201);
  const label = await first.json();
  await stack.edge.stop();
  const [file] = filesWithTable(persist, 'entry').filter((f) => sqlite(f, 'SELECT json FROM entry')[0]?.[0].includes(label.id));
  const [[stored]] = sqlite(file, 'SELECT json FROM entry');
  const current = JSON.parse(stored);
  assert.equal(current.v, 2, 'records are written with their version');
  // The shape the first builds wrote: the entry itself, without `v`.
  const { v, ...previous } = current;
  sqlite(file, 'UPDATE entry SET json = ?', [JSON.stringify(previous)]);
  await stack.edge.restart();
  operator = await stack.edge.session(org.users.operator);
  const before = await account();
  const again = await buy(key, rate);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal((await again.json()).id, label.id);
  assert.equal((await account()).balance_cents, before.balance_cents);
});

test('a short job at raised limits, with the Workers restarted while its batch processes: bought once, no 429, one chunk, the wallet and labels agree', { timeout: 120000 }, async () => {
  const s = await jobsOn(stack, { limits: RAISED });
  try {
    // The simulator's clock stands still, so the batch stays processing
    // (20 labels a simulated second) until the test moves it.
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(30) });
    assert.equal(created.estimate.chunks, 1);
    await act(s, created.id, 'start');
    await untilJob(s, created.id, processing);
    // workerd goes down and comes back on the same state.
    await stack.edge.restart();
    await s.signIn();
    const job = await untilJob(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { tick: advanceWhileProcessing(s) });
    assert.equal(job.state, 'completed', JSON.stringify(job.problem));
    assert.equal(job.counts.bought, 30);
    assert.equal(job.stats.rate_limited, 0, 'zero upstream 429s');
    // One chunk, created once: the simulator's wallet and labels agree with the job.
    assert.equal(job.chunks.length, 1);
    const after = await s.account();
    assert.equal(before.balance_cents - after.balance_cents, job.cost.bought_cents);
    assert.equal(after.live_labels - before.live_labels, 30);
  } finally {
    await thaw();
  }
});

test('a batch creation whose answer is lost stops the job, shows what is known, and is never sent again', { timeout: 120000 }, async () => {
  const s = await jobsOn(stack, { limits: RAISED });
  try {
    // Creations answer after the Workers' 2 s timeout: the outcome is unknown, yet they take.
    await s.sim.control('PUT', '/__sim/faults', { latency_ms: 3000, latency_endpoints: ['POST /v1/batches'] });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(5) });
    await act(s, created.id, 'start');
    const job = await untilJob(s, created.id, (j) => j.state === 'stopped' && j.problem?.wallet_after_cents != null);
    const p = job.problem;
    assert.equal(p.problem, 'outcome_unknown');
    assert.equal(p.chunk, 1);
    assert.match(p.request_id, /^req_job_/);
    assert.equal(p.error.code, 'EDGE.UPSTREAM.TIMEOUT');
    assert.equal(p.wallet_before_cents, before.balance_cents);
    // The creation did happen upstream: the wallet after says so.
    assert.equal(p.wallet_after_cents, before.balance_cents - p.total_cents);
    assert.equal(job.chunks[0].state, 'outcome_unknown');
    // Nothing more is sent, however long it waits. An absence window: a
    // stopped job sets no alarm (the engine's has_work), so no signal says
    // "nothing was sent"; 3 s is many of the alarms a job with work sets
    // (at once, or on its plan's wait). The engine's native tests prove it
    // in virtual time.
    await s.sim.control('PUT', '/__sim/faults', {});
    await new Promise((r) => setTimeout(r, 3000));
    const still = await s.json(`/api/jobs/${created.id}`);
    assert.equal(still.state, 'stopped');
    assert.equal((await s.account()).balance_cents, before.balance_cents - p.total_cents, 'charged once');
    // Released by the merchant: the rows are kept apart with the explanation; the job ends.
    const released = await act(s, created.id, 'release');
    assert.equal(released.counts.released, 5);
    assert.equal(released.counts.failed, 0);
    const done = await untilJob(s, created.id, (j) => j.state === 'completed');
    assert.equal(done.chunks.length, 1);
    assert.equal((await s.account()).balance_cents, before.balance_cents - p.total_cents);
    const labels = (await s.account()).live_labels;

    // The bulk retry never takes released rows: the lost batch did take, so
    // retrying them would buy them twice.
    const bulk = await s.api(`/api/jobs/${created.id}/retry`, { method: 'POST' });
    assert.equal(bulk.status, 409);
    assert.equal((await bulk.json()).error.code, 'EDGE.JOB.ACTION_REFUSED');
    const unacknowledged = await s.api(`/api/jobs/${created.id}/retry-released`, { method: 'POST', body: JSON.stringify({ rows: [2], acknowledged: false }) });
    assert.equal(unacknowledged.status, 409);
    assert.match((await unacknowledged.json()).error.message, /may already have been bought/);
    // A refused action changes nothing: the job is as it was, nothing more charged.
    assert.equal((await s.json(`/api/jobs/${created.id}`)).state, 'completed');
    const refused = await s.account();
    assert.equal(refused.balance_cents, before.balance_cents - p.total_cents, 'charged once for those rows');
    assert.equal(refused.live_labels, labels, 'no label bought for them');

    // Named and acknowledged: exactly that row is bought, in a chunk of its own.
    const retried = await act(s, created.id, 'retry-released', { rows: [2], acknowledged: true });
    assert.equal(retried.counts.released, 4);
    const again = await untilJob(s, created.id, (j) => j.state === 'completed' && j.counts.bought === 1, { tick: advanceWhileProcessing(s) });
    assert.equal(again.chunks.length, 2);
    assert.equal(again.chunks[1].rows, 1);
    const rowsNow = await allRows(s, created.id);
    assert.equal(rowsNow[2].state, 'bought');
    assert.ok(rowsNow[2].label_id);
    assert.deepEqual(rowsNow.filter((r) => r.state === 'released').map((r) => r.index), [0, 1, 3, 4]);
    const after = await s.account();
    assert.equal(after.live_labels, labels + 1, 'one label: that row');
    assert.equal(before.balance_cents - after.balance_cents, p.total_cents + again.cost.bought_cents, 'the lost chunk once, plus that row');
  } finally {
    await thaw();
  }
});

test('review first: approve, then retry re-quotes only the rows that failed, asks again, buys them, and never touches a bought one', { timeout: 120000 }, async () => {
  const s = await jobsOn(stack, { limits: RAISED });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(40), approval: { approval: 'review_first' } });
    await act(s, created.id, 'start');
    const review = await untilJob(s, created.id, (j) => j.state === 'awaiting_approval');
    assert.equal(review.counts.quoted, 40);
    assert.ok(review.cost.quoted_cents > 0);
    assert.equal((await s.account()).balance_cents, before.balance_cents, 'nothing bought before approval');
    await act(s, created.id, 'approve');
    await untilJob(s, created.id, processing);
    // The first 20 labels are made; then every carrier fails for the next 20.
    await twentyMadeTwentyFailed(s.sim);
    const first = await untilJob(s, created.id, (j) => j.state === 'completed');
    assert.deepEqual([first.counts.bought, first.counts.failed], [20, 20]);
    const boughtBefore = (await allRows(s, created.id)).filter((r) => r.state === 'bought').map((r) => [r.index, r.label_id]);
    const retried = await act(s, created.id, 'retry');
    assert.equal(retried.counts.pending, 20);
    // Review first holds for retries too: re-quoted, then approved, then bought.
    const again = await untilJob(s, created.id, (j) => j.state === 'awaiting_approval');
    assert.equal(again.counts.quoted, 20);
    assert.equal((await s.account()).live_labels - before.live_labels, 20, 'nothing bought before the new approval');
    await act(s, created.id, 'approve');
    const done = await untilJob(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
    assert.equal(done.counts.bought, 40);
    assert.equal(done.chunks.length, 2);
    assert.equal(done.chunks[1].rows, 20, 'the retry chunk holds only the failed rows');
    const after = await allRows(s, created.id);
    for (const [index, label] of boughtBefore) assert.equal(after[index].label_id, label, `row ${index} untouched`);
    const account = await s.account();
    assert.equal(account.live_labels - before.live_labels, 40);
    assert.equal(before.balance_cents - account.balance_cents, done.cost.bought_cents);
  } finally {
    await thaw();
  }
});

test('a short wallet pauses the job before the next chunk, saying how much is needed; cancel then stops there', { timeout: 120000 }, async () => {
  // The Workers restarted with chunks of at most 5 rows, so 12 rows are three chunks.
  await stack.edge.restart({ vars: { BATCH_MAX_CHUNK_ROWS: '5' } });
  const s = await jobsOn(stack, { limits: RAISED });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    // Creations answer late, so the test can empty the wallet behind the first one.
    await s.sim.control('PUT', '/__sim/faults', { latency_ms: 1500, latency_endpoints: ['POST /v1/batches'] });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(12) });
    assert.equal(created.estimate.chunks, 3);
    await act(s, created.id, 'start');
    await untilJob(s, created.id, (j) => j.chunks[0]?.state === 'creating', { every: 50 });
    await s.sim.control('PUT', `/__sim/accounts/${s.accountId}/wallet`, { balance_cents: 0, card: 'ok', auto_reload: null });
    const paused = await untilJob(s, created.id, (j) => j.state === 'paused');
    assert.equal(paused.problem.problem, 'needs_funds');
    assert.equal(paused.problem.chunk, 2);
    assert.equal(paused.problem.balance_cents, 0);
    assert.equal(paused.problem.needed_cents, paused.chunks[1].total_cents);
    assert.ok(paused.problem.needed_cents > 0);
    const cancelled = await act(s, created.id, 'cancel');
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.counts.skipped, 7);
    // The paid chunk is still bought and its labels made.
    const done = await untilJob(s, created.id, (j) => j.counts.bought === 5, { tick: advanceWhileProcessing(s) });
    assert.equal(done.chunks.length, 1, 'no chunk after the cancel');
    const account = await s.account();
    assert.equal(account.live_labels - before.live_labels, 5);
  } finally {
    await thaw();
    await stack.edge.restart({ vars: { BATCH_MAX_CHUNK_ROWS: '' } });
  }
});

test('a ship-from with a three-letter country is a configuration error naming the setting', async () => {
  const shipFrom = { ...shipment.from_address, country: 'USA' };
  // The deployment restarted with the bad setting, then with none again.
  await stack.edge.restart({ vars: { WIDGET_ORIGINS: 'http://127.0.0.1:9', WIDGET_SHIP_FROM: JSON.stringify(shipFrom) } });
  try {
    for (const p of ['/widget/', '/api/session']) {
      const e = await envelope(await fetch(stack.edge.url + p), 503, 'EDGE.CONFIG.INVALID');
      assert.match(e.message, /WIDGET_SHIP_FROM/);
      assert.match(e.message, /country/);
      assert.doesNotMatch(e.message, /Market St/, 'the value itself stays out of the answer');
    }
  } finally {
    await stack.edge.restart({ vars: { WIDGET_ORIGINS: '', WIDGET_SHIP_FROM: '' } });
  }
});

test('a slow upstream: a late purchase says its outcome is unknown, and its retry never buys again', async () => {
  const quote = await (await api('/api/v1/rates', json(shipment))).json();
  const rate = quote.rates[0];
  const before = await liveBalance();
  await stack.sim.control('PUT', '/__sim/faults', { latency_ms: 3000 });
  try {
    const read = await envelope(await api('/api/v1/wallet'), 504, 'EDGE.UPSTREAM.TIMEOUT');
    assert.match(read.message, /within 2 s; nothing was changed/);
    const key = randomUUID();
    const buy = () => api('/api/v1/labels', json({ rate_id: rate.id }, { 'idempotency-key': key }));
    const started = Date.now();
    const e = await envelope(await buy(), 504, 'EDGE.UPSTREAM.TIMEOUT');
    assert.ok(Date.now() - started < 2900, 'answered at the timeout, not when upstream finished');
    assert.match(e.message, /outcome of this request is unknown/);
    const retry = await buy();
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    await envelope(retry, 504, 'EDGE.UPSTREAM.TIMEOUT');
  } finally {
    await stack.sim.control('PUT', '/__sim/faults', {});
  }
  // The slow purchase completes upstream on its own time; then it is charged once.
  await until('the slow purchase to be charged', async () => (await liveBalance()) !== before);
  assert.equal(await liveBalance(), before - rate.rate_cents, 'the purchase happened once, and only once');
});

// The last two stop the simulator for good.
test('labels print 100 to a file, each fetched once and kept by the PDF Worker; a retry\'s labels make new files, never stale ones', { timeout: 180000 }, async () => {
  const s = await jobsOn(stack, { limits: RAISED });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    const created = await createJob(s, { rows: rows(130) });
    await act(s, created.id, 'start');
    await untilJob(s, created.id, processing);
    // The first 20 labels are made; every carrier fails for the next 20; then the rest are made.
    await twentyMadeTwentyFailed(s.sim);
    const first = await untilJob(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
    assert.deepEqual([first.counts.bought, first.counts.failed], [110, 20]);
    const pdf = async (query) => {
      const res = await s.api(`/api/jobs/${created.id}/labels.pdf?${query}`);
      assert.equal(res.status, 200, `${query} → ${res.status} ${res.status === 200 ? '' : await res.text()}`);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      return Buffer.from(await res.arrayBuffer());
    };
    assert.equal(pdfPages(await pdf('part=1')), 100);
    assert.equal(pdfPages(await pdf('part=2')), 10);

    // The retry buys the 20 failed rows: they come before the last 20 of
    // part 1, which move into part 2.
    await act(s, created.id, 'retry');
    const done = await untilJob(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
    assert.equal(done.counts.bought, 130);
    const part1 = await pdf('part=1');
    const part2 = await pdf('part=2');
    assert.equal(pdfPages(part1), 100);
    assert.equal(pdfPages(part2), 30, 'part 2 is merged again with its new labels, not served from before');

    // Kept: with the service gone, both files still download, the same bytes,
    // and a chunk's file is merged from the labels already fetched.
    await s.sim.stop();
    assert.deepEqual(await pdf('part=1'), part1);
    assert.deepEqual(await pdf('part=2'), part2);
    assert.equal(pdfPages(await pdf('chunk=1&part=1')), 100);
    const none = await s.api(`/api/jobs/${created.id}/labels.pdf?part=3`);
    assert.equal((await none.json()).error.code, 'EDGE.JOB.NO_LABELS');
  } finally {
    await thaw().catch(() => {});
  }
});

test('with the upstream down, reads say nothing changed and purchases say the outcome is unknown', async () => {
  await stack.sim.stop();
  const read = await envelope(await api('/api/v1/wallet'), 502, 'EDGE.UPSTREAM.UNREACHABLE');
  assert.match(read.message, /nothing was changed/);
  const buy = await envelope(await api('/api/v1/labels', json({ rate_id: 'rate_x' }, { 'idempotency-key': randomUUID() })), 502, 'EDGE.UPSTREAM.UNREACHABLE');
  assert.match(buy.message, /outcome of this request is unknown/);
  assert.match(buy.suggestion, /before trying again/);
});
