// Batch jobs through the real Worker in workerd and the real simulator:
// 5,000 rows bought at raised limits, exactly charged; 150 rows paced at the
// real 100/min with workerd restarted mid-job and an interactive quote
// answered; a creation whose answer is lost stops the job for good; retry
// buys only the failed rows; cancel stops before the next chunk; and the
// labels come as merged PDFs of 100 pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RAISED_LIMITS as RAISED, keysWithLimits, newKeys, newUsers, startEdge, startSim } from './support/stack.mjs';
import { csvRecords } from './support/csv.mjs';
import { advanceWhileProcessing, untilJob as until } from './support/jobs.mjs';

const LIVE = 'acct_demo';
/** What a job leaves of each rates window at the real 100/min and the default share of 0.6. */
const RESERVE = 40;

/**
 * The simulator and our Worker; with `limits`, the Worker's keys are made
 * with those per-endpoint limits. `persist` keeps workerd's state on disk
 * so `restart()` is the same deployment started again.
 */
async function jobStack({ limits, persist = false, edgeVars = {} } = {}) {
  const simKeys = newKeys();
  const users = newUsers();
  const sim = await startSim({ keys: simKeys });
  const keys = limits ? await keysWithLimits(sim, limits) : simKeys;
  // Enough for every test's labels; a test that wants a short wallet sets its own.
  await sim.control('PUT', `/__sim/accounts/${LIVE}/wallet`, { balance_cents: 100_000_000, card: 'ok', auto_reload: null });
  // A restart is the same deployment: the same secrets (an organization's keys stay sealed with its MASTER_KEYS).
  const options = { upstream: sim.url, keys, users, vars: edgeVars, persist, sessionSecret: randomBytes(32).toString('hex'), masterKeys: `k1:${randomBytes(32).toString('hex')}` };
  const s = { sim, keys, users, edge: await startEdge(options) };
  s.operator = await s.edge.session(users.operator);
  s.api = (p, init = {}) => fetch(s.edge.url + p, {
    ...init,
    headers: { cookie: s.operator.cookie, origin: s.operator.origin, 'content-type': 'application/json', ...init.headers },
  });
  s.json = async (p, init) => {
    const res = await s.api(p, init);
    const body = await res.json();
    assert.ok(res.ok, `${p} → ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  s.restart = async () => {
    await s.edge.stop();
    s.edge = await startEdge(options);
    s.operator = await s.edge.session(users.operator);
  };
  s.account = () => sim.control('GET', `/__sim/accounts/${LIVE}`);
  // One quote straight to the simulator with the live key: what it says is left of the key's rates window.
  s.window = async () => {
    const res = await fetch(`${sim.url}/v1/rates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from_address: FROM, to_address: address('Counter', '1 Window St'), parcel: { weight_oz: 8, length: 6, width: 6, height: 6 } }),
    });
    assert.equal(res.status, 200, await res.text());
    return { remaining: Number(res.headers.get('x-ratelimit-remaining')), reset: Number(res.headers.get('x-ratelimit-reset')) };
  };
  s.stop = async () => { await s.edge.stop(); await sim.stop(); };
  return s;
}

const address = (name, street1, zip = '11201', state = 'NY') => ({ name, street1, city: 'Brooklyn', state, zip, country: 'US' });
const FROM = address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA');

/** `n` distinct shipments (the street number differs); `undeliverable` rows fail in processing. */
function rows(n, { undeliverable = [] } = {}) {
  return Array.from({ length: n }, (_, i) => ({
    reference: `#${String(i + 1).padStart(5, '0')}`,
    from_address: FROM,
    to_address: address(`Customer ${i + 1}`, `${i + 1} ${undeliverable.includes(i) ? 'UNDELIVERABLE ' : ''}Elm St`),
    parcel: { weight_oz: 10 + (i % 7), length: 10, width: 8, height: 4 },
  }));
}

const buyAsQuoted = { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 1000000000 };

async function createJob(s, body) {
  return s.json('/api/jobs', { method: 'POST', body: JSON.stringify({ rule: { rule: 'cheapest' }, approval: buyAsQuoted, ...body }) });
}

const act = (s, id, action, body) => s.json(`/api/jobs/${id}/${action}`, { method: 'POST', body: body && JSON.stringify(body) });

/** Every row of a job, page by page. */
async function allRows(s, id) {
  const out = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await s.json(`/api/jobs/${id}/rows?offset=${offset}&limit=1000`);
    out.push(...page.rows);
    if (out.length >= page.total) return out;
  }
}

const processing = (job) => job.chunks.some((c) => c.state === 'processing');

/** The page count of a PDF, from its page tree (the merged file is written uncompressed at object level). */
function pdfPages(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  assert.ok(text.startsWith('%PDF-'), 'a PDF');
  assert.ok(text.trimEnd().endsWith('%%EOF'), 'a whole PDF');
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

test('5,000 rows at raised limits: every row ends bought or explained, charged exactly, no 429, no stale rate sent', { timeout: 600000 }, async () => {
  const s = await jobStack({ limits: RAISED });
  try {
    const undeliverable = Array.from({ length: 20 }, (_, i) => i * 250 + 7);
    const before = await s.account();
    const created = await createJob(s, { name: 'orders.csv', rows: rows(5000, { undeliverable }) });
    assert.equal(created.state, 'planned');
    assert.equal(created.counts.total, 5000);
    assert.equal(created.estimate.distinct_shipments, 5000);
    assert.equal((await s.account()).balance_cents, before.balance_cents, 'nothing is spent before the start');
    await act(s, created.id, 'start');
    const job = await until(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { every: 1000, tick: advanceWhileProcessing(s) });
    assert.equal(job.state, 'completed', JSON.stringify(job.problem));
    assert.equal(job.counts.bought + job.counts.failed, 5000);
    assert.equal(job.counts.failed, 20);
    assert.equal(job.stats.rate_limited, 0, 'no 429 reached the job');
    assert.equal(job.stats.batches_refused, 0, 'no batch was refused');
    const all = await allRows(s, created.id);
    for (const row of all.filter((r) => r.state === 'failed')) {
      assert.ok(undeliverable.includes(row.index), `row ${row.index} failed: ${JSON.stringify(row.error)}`);
      assert.equal(row.error.code, 'LABEL.ADDRESS.UNDELIVERABLE');
      assert.ok(row.error.suggestion);
    }
    assert.ok(!all.some((r) => r.error?.code === 'RATE.EXPIRED'), 'no rate was sent stale');
    const after = await s.account();
    const bought = all.filter((r) => r.state === 'bought');
    const boughtCents = bought.reduce((sum, r) => sum + r.quote.rate_cents, 0);
    assert.equal(job.cost.bought_cents, boughtCents);
    assert.equal(job.cost.charged_cents - job.cost.refunded_cents, boughtCents);
    assert.equal(before.balance_cents - after.balance_cents, boughtCents, 'the wallet paid exactly the bought rows (refunds included)');
    assert.equal(after.live_labels - before.live_labels, 4980);

    // The results CSV, row for row against the simulator's labels.
    const res = await s.api(`/api/jobs/${created.id}/results.csv`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-disposition'), /attachment; filename="job_[0-9a-f]+-results.csv"/);
    const records = csvRecords(await res.text());
    assert.equal(records.length, 5000);
    for (const [i, record] of records.entries()) {
      const row = all[i];
      assert.equal(record.reference, row.reference);
      if (row.state === 'bought') {
        const label = await (await fetch(`${s.sim.url}/v1/labels/${record.label_id}`, { headers: { authorization: `Bearer ${s.keys.live}` } })).json();
        assert.equal(label.tracking_number, record.tracking_number, `row ${i}`);
        assert.equal(label.carrier, record.carrier);
        assert.equal(String(label.rate_cents), record.rate_cents);
      } else {
        assert.equal(record.error_code, 'LABEL.ADDRESS.UNDELIVERABLE');
        assert.equal(record.label_id, '');
      }
    }

    // Printing: 100 labels a file, in row order; the last part holds the rest.
    const part1 = await s.api(`/api/jobs/${created.id}/labels.pdf?part=1`);
    assert.equal(part1.status, 200);
    assert.equal(part1.headers.get('content-type'), 'application/pdf');
    assert.equal(pdfPages(await part1.arrayBuffer()), 100);
    const last = await s.api(`/api/jobs/${created.id}/labels.pdf?part=50`);
    assert.equal(pdfPages(await last.arrayBuffer()), 80);
    const none = await s.api(`/api/jobs/${created.id}/labels.pdf?part=51`);
    assert.equal((await none.json()).error.code, 'EDGE.JOB.NO_LABELS');
  } finally {
    await s.stop();
  }
});

test('150 rows at the real 100/min: no 429, the job keeps its share, a shopper-facing quote still works, and a workerd restart mid-job buys nothing twice', { timeout: 400000 }, async () => {
  const persist = mkdtempSync(path.join(tmpdir(), 'parcel-jobs-'));
  const s = await jobStack({ persist });
  try {
    const before = await s.account();
    // The simulator's own count for the key: what is left of this window,
    // read with one quote. A window with less than 30 s left is waited out
    // (on its reset), so the job's first part fits in one window.
    let window = await s.window();
    if (window.reset - Date.now() / 1000 < 30) {
      await new Promise((r) => setTimeout(r, (window.reset - Date.now() / 1000) * 1000 + 50));
      window = await s.window();
    }
    const created = await createJob(s, { rows: rows(150) });
    assert.equal(created.estimate.rates_per_minute, 100);
    assert.equal(created.estimate.chunks, 1);
    await act(s, created.id, 'start');
    // The job (its limit probe included) takes what the window has above the
    // reserve of 40 left to others, and not one more; then it waits.
    const part = window.remaining - RESERVE;
    const waiting = await until(s, created.id, (j) => j.stats.quote_calls >= part || Date.now() / 1000 >= window.reset);
    const left = await s.window();
    assert.equal(left.reset, window.reset, 'the first window is still the same one');
    assert.equal(waiting.stats.quote_calls, part, `the job took ${waiting.stats.quote_calls} of the window's ${window.remaining}`);
    assert.equal(left.remaining + 1, RESERVE, 'the reserve is left whole');
    // An interactive quote while the job waits: the reserve is there for it.
    const quote = await s.api('/api/v1/rates', { method: 'POST', body: JSON.stringify({ from_address: FROM, to_address: address('Walk-in', '9 Oak St'), parcel: { weight_oz: 12, length: 6, width: 6, height: 6 } }) });
    assert.equal(quote.status, 200, await quote.clone().text());
    assert.ok(Number(quote.headers.get('x-ratelimit-remaining')) >= 30, `remaining ${quote.headers.get('x-ratelimit-remaining')}`);
    // workerd goes down and comes back on the same state.
    await s.restart();
    const job = await until(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { every: 1000 });
    assert.equal(job.state, 'completed', JSON.stringify(job.problem));
    assert.equal(job.counts.bought, 150);
    assert.equal(job.stats.rate_limited, 0, 'zero upstream 429s');
    const minutes = (job.stats.last_quote_at - job.stats.first_quote_at) / 60;
    const share = 100 * 0.6;
    const rate = job.stats.quote_calls / Math.max(minutes, 1 / 60);
    assert.ok(rate >= 0.95 * share, `quoted ${job.stats.quote_calls} in ${minutes.toFixed(2)} min: ${rate.toFixed(1)}/min against a share of ${share}/min`);
    console.log(`# pace: ${job.stats.quote_calls} quotes in ${(minutes * 60).toFixed(0)} s = ${rate.toFixed(1)}/min (share ${share}/min, ratio ${(rate / share).toFixed(2)})`);
    // One chunk, created once: the simulator's wallet and labels agree with the job.
    assert.equal(job.chunks.length, 1);
    const after = await s.account();
    assert.equal(before.balance_cents - after.balance_cents, job.cost.bought_cents);
    assert.equal(after.live_labels - before.live_labels, 150);
  } finally {
    await s.stop();
    rmSync(persist, { recursive: true, force: true });
  }
});

test('a batch creation whose answer is lost stops the job, shows what is known, and is never sent again', { timeout: 120000 }, async () => {
  const s = await jobStack({ limits: RAISED, edgeVars: { UPSTREAM_TIMEOUT_MS: '1500' } });
  try {
    await s.sim.control('PUT', '/__sim/faults', { latency_ms: 2500, latency_endpoints: ['POST /v1/batches'] });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(5) });
    await act(s, created.id, 'start');
    const job = await until(s, created.id, (j) => j.state === 'stopped' && j.problem?.wallet_after_cents != null);
    const p = job.problem;
    assert.equal(p.problem, 'outcome_unknown');
    assert.equal(p.chunk, 1);
    assert.match(p.request_id, /^req_job_/);
    assert.equal(p.error.code, 'EDGE.UPSTREAM.TIMEOUT');
    assert.equal(p.wallet_before_cents, before.balance_cents);
    // The creation did happen upstream: the wallet after says so.
    assert.equal(p.wallet_after_cents, before.balance_cents - p.total_cents);
    assert.equal(job.chunks[0].state, 'outcome_unknown');
    // Nothing more is sent, however long it waits.
    await s.sim.control('PUT', '/__sim/faults', {});
    await new Promise((r) => setTimeout(r, 3000));
    const still = await s.json(`/api/jobs/${created.id}`);
    assert.equal(still.state, 'stopped');
    assert.equal((await s.account()).balance_cents, before.balance_cents - p.total_cents, 'charged once');
    // Released by the merchant: the rows are kept apart with the explanation; the job ends.
    const released = await act(s, created.id, 'release');
    assert.equal(released.counts.released, 5);
    assert.equal(released.counts.failed, 0);
    const done = await until(s, created.id, (j) => j.state === 'completed');
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
    const again = await until(s, created.id, (j) => j.state === 'completed' && j.counts.bought === 1, { tick: advanceWhileProcessing(s) });
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
    await s.stop();
  }
});

test('review first: approve, then retry re-quotes only the rows that failed, asks again, buys them, and never touches a bought one', { timeout: 120000 }, async () => {
  const s = await jobStack({ limits: RAISED });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(40), approval: { approval: 'review_first' } });
    await act(s, created.id, 'start');
    const review = await until(s, created.id, (j) => j.state === 'awaiting_approval');
    assert.equal(review.counts.quoted, 40);
    assert.ok(review.cost.quoted_cents > 0);
    assert.equal((await s.account()).balance_cents, before.balance_cents, 'nothing bought before approval');
    await act(s, created.id, 'approve');
    await until(s, created.id, processing);
    // The first 20 labels are made; then every carrier fails for the next 20.
    await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
    await s.sim.control('PUT', '/__sim/faults', { carrier_errors: ['Pacific Post', 'Atlas Freight', 'Comet Express', 'Harbor Parcel'] });
    await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
    await s.sim.control('PUT', '/__sim/faults', {});
    const first = await until(s, created.id, (j) => j.state === 'completed');
    assert.deepEqual([first.counts.bought, first.counts.failed], [20, 20]);
    const boughtBefore = (await allRows(s, created.id)).filter((r) => r.state === 'bought').map((r) => [r.index, r.label_id]);
    const retried = await act(s, created.id, 'retry');
    assert.equal(retried.counts.pending, 20);
    // Review first holds for retries too: re-quoted, then approved, then bought.
    const again = await until(s, created.id, (j) => j.state === 'awaiting_approval');
    assert.equal(again.counts.quoted, 20);
    assert.equal((await s.account()).live_labels - before.live_labels, 20, 'nothing bought before the new approval');
    await act(s, created.id, 'approve');
    const done = await until(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
    assert.equal(done.counts.bought, 40);
    assert.equal(done.chunks.length, 2);
    assert.equal(done.chunks[1].rows, 20, 'the retry chunk holds only the failed rows');
    const after = await allRows(s, created.id);
    for (const [index, label] of boughtBefore) assert.equal(after[index].label_id, label, `row ${index} untouched`);
    const account = await s.account();
    assert.equal(account.live_labels - before.live_labels, 40);
    assert.equal(before.balance_cents - account.balance_cents, done.cost.bought_cents);
  } finally {
    await s.stop();
  }
});

test('a short wallet pauses the job before the next chunk, saying how much is needed; cancel then stops there', { timeout: 120000 }, async () => {
  const s = await jobStack({ limits: RAISED, edgeVars: { BATCH_MAX_CHUNK_ROWS: '5' } });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    // Creations answer late, so the test can empty the wallet behind the first one.
    await s.sim.control('PUT', '/__sim/faults', { latency_ms: 1500, latency_endpoints: ['POST /v1/batches'] });
    const before = await s.account();
    const created = await createJob(s, { rows: rows(12) });
    assert.equal(created.estimate.chunks, 3);
    await act(s, created.id, 'start');
    await until(s, created.id, (j) => j.chunks[0]?.state === 'creating', { every: 50 });
    await s.sim.control('PUT', `/__sim/accounts/${LIVE}/wallet`, { balance_cents: 0, card: 'ok', auto_reload: null });
    const paused = await until(s, created.id, (j) => j.state === 'paused');
    assert.equal(paused.problem.problem, 'needs_funds');
    assert.equal(paused.problem.chunk, 2);
    assert.equal(paused.problem.balance_cents, 0);
    assert.equal(paused.problem.needed_cents, paused.chunks[1].total_cents);
    assert.ok(paused.problem.needed_cents > 0);
    const cancelled = await act(s, created.id, 'cancel');
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.counts.skipped, 7);
    // The paid chunk is still bought and its labels made.
    const done = await until(s, created.id, (j) => j.counts.bought === 5, { tick: advanceWhileProcessing(s) });
    assert.equal(done.chunks.length, 1, 'no chunk after the cancel');
    const account = await s.account();
    assert.equal(account.live_labels - before.live_labels, 5);
  } finally {
    await s.stop();
  }
});

test('labels print 100 to a file, each fetched once and kept by the PDF Worker; a retry\'s labels make new files, never stale ones', { timeout: 180000 }, async () => {
  const s = await jobStack({ limits: RAISED });
  try {
    await s.sim.control('POST', '/__sim/clock/freeze', { frozen: true });
    const created = await createJob(s, { rows: rows(130) });
    await act(s, created.id, 'start');
    await until(s, created.id, processing);
    // The first 20 labels are made; every carrier fails for the next 20; then the rest are made.
    await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
    await s.sim.control('PUT', '/__sim/faults', { carrier_errors: ['Pacific Post', 'Atlas Freight', 'Comet Express', 'Harbor Parcel'] });
    await s.sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
    await s.sim.control('PUT', '/__sim/faults', {});
    const first = await until(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
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
    const done = await until(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
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
    await s.stop();
  }
});

test('jobs are listed by mode, watched by viewers, and refused to viewers to run; a 5,001-row job is refused with its count', { timeout: 60000 }, async () => {
  const s = await jobStack({ limits: RAISED });
  try {
    const created = await createJob(s, { name: 'small.csv', rows: rows(3) });
    const list = await s.json('/api/jobs');
    assert.equal(list.jobs[0].id, created.id);
    assert.equal(list.jobs[0].created_by, s.users.operator.name);
    assert.equal(list.jobs[0].mode, 'live');
    const viewer = await s.edge.session(s.users.viewer);
    const asViewer = (p, init = {}) => fetch(s.edge.url + p, { ...init, headers: { cookie: viewer.cookie, origin: viewer.origin, 'content-type': 'application/json' } });
    assert.equal((await asViewer(`/api/jobs/${created.id}`)).status, 200);
    const refused = await (await asViewer(`/api/jobs/${created.id}/start`, { method: 'POST' })).json();
    assert.equal(refused.error.code, 'AUTH.KEY.INSUFFICIENT_SCOPE');
    assert.equal(refused.error.required_scope, 'batches:write');
    const big = await s.api('/api/jobs', { method: 'POST', body: JSON.stringify({ rule: { rule: 'cheapest' }, approval: buyAsQuoted, rows: rows(5001) }) });
    const e = (await big.json()).error;
    assert.equal(big.status, 422);
    assert.equal(e.code, 'BATCH.SIZE.EXCEEDED');
    assert.match(e.message, /5001 rows/);
    const bad = rows(2);
    bad[1].to_address.country = 'USA';
    const badRes = await s.api('/api/jobs', { method: 'POST', body: JSON.stringify({ rule: { rule: 'cheapest' }, approval: buyAsQuoted, rows: bad }) });
    assert.equal((await badRes.json()).error.field, 'rows[1].to_address.country');
    const unknown = await s.api('/api/jobs/job_000000000000000000000000');
    assert.equal((await unknown.json()).error.code, 'EDGE.JOB.NOT_FOUND');
  } finally {
    await s.stop();
  }
});
