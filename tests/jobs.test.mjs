// Batch jobs through the real Worker in workerd and the real simulator, as
// an organization's operator on the shared stack: a few hundred rows bought
// at raised limits, every row ending bought or explained exactly once,
// charged exactly, the results CSV the simulator's labels and the labels
// merged as PDFs of 100 (tests/bench/jobs-scale.mjs runs the same on 5,000
// rows); jobs listed by mode, watched by viewers, refused to them to run.
// (A restart mid-job, a lost creation, a retry, a short wallet and printing
// with the service gone: tests/edge-faults.test.mjs. Pacing at the real
// limits is proven in virtual time by the engine's native tests.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RAISED_LIMITS as RAISED, sharedStack } from './support/stack.mjs';
import { buyAsQuoted, createJob, jobToTheEnd, jobsOn, rows } from './support/jobs.mjs';

const shared = await sharedStack();

test('300 rows at raised limits: every row ends bought or explained once, charged exactly, no 429, no stale rate sent', { timeout: 300000 }, async () => {
  const s = await jobsOn(shared, { limits: RAISED });
  await jobToTheEnd(s, 300, [7, 107, 207]);
});

test('jobs are listed by mode, watched by viewers, and refused to viewers to run; a 5,001-row job is refused with its count', { timeout: 60000 }, async () => {
  const s = await jobsOn(shared, { limits: RAISED });
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
});
