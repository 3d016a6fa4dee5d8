// Batch jobs through the Worker's job API: an organization's operator on a
// stack (`jobsOn`), the rows and calls a job test makes, and waiting on a
// job the way a merchant's screen does: on the job's own reports. A wait is
// bounded by the time the job says is left (its `eta_seconds`, which counts
// a rates window or a Retry-After it is waiting out) plus a slack for the
// machine, never by a fixed guess: on a slow or busy machine the job
// reports more time left, and the wait follows it.
import assert from 'node:assert/strict';
import { csvRecords } from './csv.mjs';
import { orgStack } from './orgs.mjs';

/** The simulator's clock moves a minute while one of the job's batches is processing (20 labels per simulated second). */
export const advanceWhileProcessing = (s) => async (job) => {
  if (job.chunks.some((c) => c.state === 'processing')) await s.sim.control('POST', '/__sim/clock/advance', { seconds: 60 });
};

/**
 * Polls `GET /api/jobs/{id}` (with `s.json`) until `done(job)`. The deadline
 * is `slack` ms past the job's latest own estimate of its end; `tick(job)`
 * runs between polls (e.g. `advanceWhileProcessing(s)`).
 */
export async function untilJob(s, id, done, { slack = 30000, every = 250, tick } = {}) {
  let deadline = Date.now() + slack;
  for (;;) {
    const job = await s.json(`/api/jobs/${id}`);
    if (done(job)) return job;
    if (job.eta_seconds != null) deadline = Math.max(deadline, Date.now() + job.eta_seconds * 1000 + slack);
    if (Date.now() > deadline) {
      const seen = { state: job.state, counts: job.counts, eta_seconds: job.eta_seconds, problem: job.problem, chunks: job.chunks };
      throw new Error(`job ${id} did not get there within its own estimate plus ${slack} ms: ${JSON.stringify(seen)}`);
    }
    if (tick) await tick(job);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * An organization of `stack` whose keys have `limits` (else the table's),
 * its account's wallet funded for every test's labels, and the job API as
 * its operator: `api(path, init)`, `json(path, init)` (asserts a 2xx),
 * `account()` (the simulator's record of the account), `signIn()` again
 * (after a restart of the Workers).
 */
export async function jobsOn(stack, { limits } = {}) {
  const s = await orgStack(stack, { limits, wallet: { balance_cents: 100_000_000, card: 'ok', auto_reload: null } });
  s.signIn = async () => { s.operator = await s.edge.session(s.users.operator); };
  await s.signIn();
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
  return s;
}

export const address = (name, street1, zip = '11201', state = 'NY') => ({ name, street1, city: 'Brooklyn', state, zip, country: 'US' });
export const FROM = address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA');

/** `n` distinct shipments (the street number differs); `undeliverable` rows fail in processing. */
export function rows(n, { undeliverable = [] } = {}) {
  return Array.from({ length: n }, (_, i) => ({
    reference: `#${String(i + 1).padStart(5, '0')}`,
    from_address: FROM,
    to_address: address(`Customer ${i + 1}`, `${i + 1} ${undeliverable.includes(i) ? 'UNDELIVERABLE ' : ''}Elm St`),
    parcel: { weight_oz: 10 + (i % 7), length: 10, width: 8, height: 4 },
  }));
}

export const buyAsQuoted = { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 1000000000 };

export function createJob(s, body) {
  return s.json('/api/jobs', { method: 'POST', body: JSON.stringify({ rule: { rule: 'cheapest' }, approval: buyAsQuoted, ...body }) });
}

export const act = (s, id, action, body) => s.json(`/api/jobs/${id}/${action}`, { method: 'POST', body: body && JSON.stringify(body) });

/** Every row of a job, page by page. */
export async function allRows(s, id) {
  const out = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await s.json(`/api/jobs/${id}/rows?offset=${offset}&limit=1000`);
    out.push(...page.rows);
    if (out.length >= page.total) return out;
  }
}

export const processing = (job) => job.chunks.some((c) => c.state === 'processing');

/**
 * With the simulator's clock frozen and a batch processing: one simulated
 * second in which its next 20 labels are made, then one in which every
 * carrier fails the next 20.
 */
export async function twentyMadeTwentyFailed(sim) {
  await sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
  await sim.control('PUT', '/__sim/faults', { carrier_errors: ['Pacific Post', 'Atlas Freight', 'Comet Express', 'Harbor Parcel'] });
  await sim.control('POST', '/__sim/clock/advance', { seconds: 1 });
  await sim.control('PUT', '/__sim/faults', {});
}

/** The page count of a PDF, from its page tree (the merged file is written uncompressed at object level). */
export function pdfPages(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  assert.ok(text.startsWith('%PDF-'), 'a PDF');
  assert.ok(text.trimEnd().endsWith('%%EOF'), 'a whole PDF');
  return (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

/**
 * A job of `n` rows at raised limits (`s` from `jobsOn`), `undeliverable`
 * of them failing in processing, run to the end: every row ends bought or
 * explained, the wallet pays exactly the bought rows, no 429 reaches it,
 * no rate is sent stale, the results CSV is the simulator's labels row for
 * row, and the labels print 100 to a file in row order. The test command
 * runs it on a few hundred rows; tests/bench/jobs-scale.mjs on 5,000.
 */
export async function jobToTheEnd(s, n, undeliverable) {
  const before = await s.account();
  const created = await createJob(s, { name: 'orders.csv', rows: rows(n, { undeliverable }) });
  assert.equal(created.state, 'planned');
  assert.equal(created.counts.total, n);
  assert.equal(created.estimate.distinct_shipments, n);
  assert.equal((await s.account()).balance_cents, before.balance_cents, 'nothing is spent before the start');
  await act(s, created.id, 'start');
  const job = await untilJob(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { every: 1000, tick: advanceWhileProcessing(s) });
  assert.equal(job.state, 'completed', JSON.stringify(job.problem));
  assert.equal(job.counts.bought + job.counts.failed, n);
  assert.equal(job.counts.failed, undeliverable.length);
  assert.equal(job.stats.rate_limited, 0, 'no 429 reached the job');
  assert.equal(job.stats.batches_refused, 0, 'no batch was refused');
  const all = await allRows(s, created.id);
  assert.deepEqual(all.map((r) => r.index), Array.from({ length: n }, (_, i) => i), 'every row once');
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
  assert.equal(after.live_labels - before.live_labels, n - undeliverable.length);

  // The results CSV, row for row against the simulator's labels.
  const res = await s.api(`/api/jobs/${created.id}/results.csv`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition'), /attachment; filename="job_[0-9a-f]+-results.csv"/);
  const records = csvRecords(await res.text());
  assert.equal(records.length, n);
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
  const parts = Math.ceil(bought.length / 100);
  const part1 = await s.api(`/api/jobs/${created.id}/labels.pdf?part=1`);
  assert.equal(part1.status, 200);
  assert.equal(part1.headers.get('content-type'), 'application/pdf');
  assert.equal(pdfPages(await part1.arrayBuffer()), Math.min(100, bought.length));
  const last = await s.api(`/api/jobs/${created.id}/labels.pdf?part=${parts}`);
  assert.equal(pdfPages(await last.arrayBuffer()), bought.length - 100 * (parts - 1));
  const none = await s.api(`/api/jobs/${created.id}/labels.pdf?part=${parts + 1}`);
  assert.equal((await none.json()).error.code, 'EDGE.JOB.NO_LABELS');
  return job;
}
