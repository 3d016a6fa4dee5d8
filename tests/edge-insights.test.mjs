// Insights and the label history through the real Worker in workerd: labels
// bought through the dashboard (their quotes seen by the Worker) and on the
// simulator on earlier days (announced by their signed events), a void
// confirmed by the carrier; the sums, choices, filters, pages and CSV the
// ledger Worker's object answers, checked against the simulator's own. As
// an organization's operator on the shared stack (its own simulator
// account, its webhook at its own URL).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { keysWithLimits, RAISED_LIMITS, sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { advanceWhileProcessing, untilJob } from './support/jobs.mjs';
import { until } from './support/wait.mjs';

const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const DAY = 86_400;

const address = (name, street1, zip, state, city) => ({ name, street1, city, state, zip, country: 'US' });
const FROM = address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA', 'San Francisco');
const request = (name, weight) => ({
  from_address: FROM,
  to_address: address(name, '12 Elm St', '11201', 'NY', 'Brooklyn'),
  parcel: { weight_oz: weight, length: 10, width: 8, height: 4 },
});

const shared = await sharedStack();
let stack, operator;
before(async () => {
  // Enough for the dearest rates of the tests' live labels.
  stack = await orgStack(shared, { wallet: { balance_cents: 1_000_000, card: 'ok', auto_reload: null } });
  operator = await stack.edge.session(stack.users.operator);
  await stack.webhookSecret(SECRET);
});

function call(path, init = {}) {
  return fetch(stack.edge.url + path, {
    ...init,
    headers: { cookie: operator.cookie, origin: operator.origin, 'content-type': 'application/json', ...init.headers },
  });
}
async function json(path) {
  const res = await call(path);
  assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
  return res.json();
}
/** Quotes and buys through the Worker, as the Ship page does; `pick` chooses among the rates. */
async function buyHere(name, weight, pick) {
  const quote = await (await call('/api/v1/rates', { method: 'POST', body: JSON.stringify(request(name, weight)) })).json();
  const chosen = pick(quote.rates);
  const res = await call('/api/v1/labels', { method: 'POST', headers: { 'idempotency-key': randomUUID() }, body: JSON.stringify({ rate_id: chosen.id }) });
  assert.equal(res.status, 201, await res.clone().text());
  return { label: await res.json(), rates: quote.rates, chosen };
}

/** Buys on the simulator directly (another integration), at simulated time `at`. */
async function buyOnSim(at, name, pick) {
  await stack.sim.control('POST', '/__sim/clock/set', { now: at });
  const auth = { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' };
  const quote = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(request(name, 30)) })).json();
  const res = await fetch(`${stack.sim.url}/v1/labels`, { method: 'POST', headers: auth, body: JSON.stringify({ rate_id: pick(quote.rates).id }) });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
}

const cheapest = (rates) => [...rates].sort((a, b) => a.rate_cents - b.rate_cents || a.carbon_grams - b.carbon_grams)[0];
const greenest = (rates) => [...rates].sort((a, b) => a.carbon_grams - b.carbon_grams || a.rate_cents - b.rate_cents)[0];
const dearest = (rates) => [...rates].sort((a, b) => b.rate_cents - a.rate_cents)[0];

const inLedger = async (ids) => {
  const page = await json(`/api/ledger/history?limit=200`);
  return ids.every((id) => page.rows.some((r) => r.id === id)) && page;
};

test('insights sum the period per day and carrier to the cent of the simulator, and price the choices against the rates it offered', async () => {
  const now = Math.floor(Date.now() / 1000);
  // Earlier days, bought elsewhere: known to the Worker only by their events.
  const elsewhere = [
    await buyOnSim(now - 20 * DAY, 'Old Order One', (r) => r[0]),
    await buyOnSim(now - 20 * DAY + 60, 'Old Order Two', (r) => r[r.length - 1]),
    await buyOnSim(now - 45 * DAY, 'Older Order', (r) => r[1]),
  ];
  await stack.sim.control('POST', '/__sim/clock/set', { now });
  // Today, through the dashboard: three different choices.
  const here = [
    await buyHere('Grace Hopper', 20, dearest),
    await buyHere('Alan Turing', 40, greenest),
    await buyHere('Edsger Dijkstra', 60, cheapest),
  ];
  const ids = [...elsewhere, ...here.map((h) => h.label)].map((l) => l.id);
  await until('every label in the ledger', () => inLedger(ids));

  const insights = await json('/api/insights?period=30d&group=day&tz=0');
  assert.equal(insights.sandbox, false);
  assert.equal(insights.period, '30d');
  const sums = await stack.sim.control('GET', `/__sim/accounts/${stack.accountId}/label-sums?env=live&since=${insights.since}&until=${insights.until + 1}`);
  assert.equal(insights.totals.labels, sums.all.labels);
  assert.equal(insights.totals.spend_cents, sums.all.rate_cents);
  // The label of 45 days ago is outside the 30 days, inside the 90.
  assert.equal(insights.totals.labels, 5);
  const ninety = await json('/api/insights?period=90d');
  assert.equal(ninety.totals.labels, 6);
  for (const c of insights.carriers) {
    assert.equal(c.spend_cents, sums[c.carrier].rate_cents, c.carrier);
    assert.equal(c.labels, sums[c.carrier].labels, c.carrier);
  }
  // Buckets: two days (20 days ago, today), and the bars add up to the totals.
  const days = [...new Set(insights.buckets.map((b) => b.start))];
  assert.equal(days.length, 2);
  assert.equal(insights.buckets.reduce((s, b) => s + b.spend_cents, 0), insights.totals.spend_cents);
  for (const b of insights.buckets) assert.equal(b.start % DAY, 0, 'UTC midnight');
  // Carbon is known for the labels bought here only (v1's Label has none).
  assert.equal(insights.totals.carbon_labels, 3);
  assert.equal(insights.totals.carbon_grams, here.reduce((s, h) => s + h.chosen.carbon_grams, 0));
  // What the choices cost, from the rates the simulator offered for each.
  const sum = (f) => here.reduce((s, h) => s + f(h), 0);
  assert.deepEqual(insights.choices, {
    labels: 3,
    chosen_cents: sum((h) => h.chosen.rate_cents),
    chosen_carbon_grams: sum((h) => h.chosen.carbon_grams),
    cheapest_cents: sum((h) => cheapest(h.rates).rate_cents),
    cheapest_carbon_grams: sum((h) => cheapest(h.rates).carbon_grams),
    greenest_cents: sum((h) => greenest(h.rates).rate_cents),
    greenest_carbon_grams: sum((h) => greenest(h.rates).carbon_grams),
  });
  // In New York's day (UTC−5) the buckets start at 05:00Z.
  const ny = await json('/api/insights?period=30d&tz=-300');
  for (const b of ny.buckets) assert.equal(b.start % DAY, 5 * 3600);
  assert.equal(ny.totals.spend_cents + 0, ny.buckets.reduce((s, b) => s + b.spend_cents, 0));
});

test('a void through the dashboard is pending until the carrier confirms, then refunded in insights and the history', async () => {
  const { label } = await buyHere('Void Me', 25, cheapest);
  await until('the label in the ledger', () => inLedger([label.id]));
  const voided = await call(`/api/v1/labels/${label.id}`, { method: 'DELETE' });
  assert.equal(voided.status, 200, await voided.clone().text());
  const requested = await until('the void recorded', async () => {
    const page = await json('/api/ledger/history?status=void_requested');
    return page.rows.find((r) => r.id === label.id);
  });
  assert.equal(requested.refund_cents, 0);
  await stack.sim.control('POST', '/__sim/clock/advance', { seconds: 301 });
  // The Labels page reads the label: the Worker sees the confirmation.
  assert.equal((await json(`/api/v1/labels/${label.id}`)).void_status, 'voided');
  const row = await until('the refund recorded', async () => {
    const page = await json('/api/ledger/history?status=voided');
    return page.rows.find((r) => r.id === label.id);
  });
  assert.equal(row.refund_cents, label.rate_cents);
  const insights = await json('/api/insights?period=7d');
  const sums = await stack.sim.control('GET', `/__sim/accounts/${stack.accountId}/label-sums?env=live&since=${insights.since}&until=${insights.until + 400}`);
  assert.equal(insights.totals.refunded_cents, sums.all.refunded_cents);
  assert.equal(insights.totals.voided, 1);
});

test('the history filters, searches and pages without repeats, and the export is the same labels as CSV', async () => {
  const all = await json('/api/ledger/history?limit=200');
  assert.ok(all.rows.length >= 7, `${all.rows.length} labels`);
  // Newest first.
  for (let i = 1; i < all.rows.length; i++) assert.ok(all.rows[i - 1].at >= all.rows[i].at);
  // Pages of two, followed by their cursors, give every label once.
  const seen = [];
  for (let cursor = null, n = 0; n < 20; n++) {
    const page = await json(`/api/ledger/history?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen.push(...page.rows.map((r) => r.id));
    if (!page.next) break;
    cursor = page.next;
  }
  assert.deepEqual(seen, all.rows.map((r) => r.id));
  // By carrier; by search on the recipient the quote named, and on a tracking number.
  const carrier = all.rows[0].carrier;
  const byCarrier = await json(`/api/ledger/history?carrier=${encodeURIComponent(carrier)}`);
  assert.deepEqual(byCarrier.rows.map((r) => r.id), all.rows.filter((r) => r.carrier === carrier).map((r) => r.id));
  const grace = await json('/api/ledger/history?q=GRACE');
  assert.deepEqual(grace.rows.map((r) => r.recipient), ['Grace Hopper']);
  const tracking = all.rows[3].tracking_number;
  assert.deepEqual((await json(`/api/ledger/history?q=${tracking.slice(2, 9)}`)).rows.map((r) => r.id), [all.rows[3].id]);
  // A period: the label of 45 days ago only.
  const now = Math.floor(Date.now() / 1000);
  const old = await json(`/api/ledger/history?since=${now - 50 * DAY}&until=${now - 40 * DAY}`);
  assert.equal(old.rows.length, 1);
  assert.equal(old.rows[0].bought_by, null);

  const res = await call('/api/ledger/export.csv');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/csv/);
  assert.match(res.headers.get('content-disposition'), /attachment/);
  const lines = (await res.text()).trim().split(/\r?\n/);
  assert.equal(lines[0], 'date,reference,carrier,service,tracking_number,price,refund,carbon_grams,bought_by,batch,label_id,status');
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[10]), all.rows.map((r) => r.id));
  const first = lines[1].split(',');
  assert.equal(first[5], (all.rows[0].price_cents / 100).toFixed(2));
  assert.equal(first[0], new Date(all.rows[0].at * 1000).toISOString().replace('.000', ''));
});

test("a batch job's labels carry the job, each row's reference and recipient, the carbon of the rate it bought and what its quote offered", async () => {
  const rows = Array.from({ length: 4 }, (_, i) => ({
    reference: `#A${i + 1}`,
    from_address: FROM,
    to_address: address(`Customer ${i + 1}`, `${i + 1} Oak St`, '11201', 'NY', 'Brooklyn'),
    parcel: { weight_oz: 12 + i, length: 10, width: 8, height: 4 },
  }));
  const s = { sim: stack.sim, json };
  const choicesBefore = (await json('/api/insights?period=7d')).choices;
  const created = await (await call('/api/jobs', { method: 'POST', body: JSON.stringify({
    rule: { rule: 'lowest_carbon' }, approval: { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 10000000 }, rows,
  }) })).json();
  assert.ok(created.id, JSON.stringify(created));
  await call(`/api/jobs/${created.id}/start`, { method: 'POST' });
  await untilJob(s, created.id, (j) => j.state === 'completed', { tick: advanceWhileProcessing(s) });
  const jobRows = (await json(`/api/jobs/${created.id}/rows?offset=0&limit=10`)).rows;
  const ledger = await until('the job labels in the ledger', async () => {
    const page = await json(`/api/ledger/history?limit=200`);
    const mine = page.rows.filter((r) => r.job === created.id);
    return mine.length === 4 && mine;
  });
  for (const row of jobRows) {
    const entry = ledger.find((r) => r.id === row.label_id);
    assert.ok(entry, `row ${row.reference} in the ledger`);
    assert.equal(entry.reference, row.reference);
    assert.equal(entry.recipient, row.to_address.name);
    assert.equal(entry.carbon_grams, row.quote.carbon_grams);
    assert.equal(entry.price_cents, row.quote.rate_cents);
    assert.equal(entry.bought_by, stack.users.operator.name);
    assert.equal(entry.tracking_number, row.tracking_number);
  }
  // What the choices cost counts the job's labels too, priced against the
  // rates the simulator offers for each row (its prices depend only on the
  // shipment): the job chose the lowest-carbon rate, so "chosen" is it.
  const auth = { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' };
  const want = { labels: 0, chosen_cents: 0, chosen_carbon_grams: 0, cheapest_cents: 0, cheapest_carbon_grams: 0, greenest_cents: 0, greenest_carbon_grams: 0 };
  for (const row of rows) {
    const { from_address, to_address, parcel } = row;
    const rates = (await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify({ from_address, to_address, parcel }) })).json()).rates;
    const [c, g] = [cheapest(rates), greenest(rates)];
    want.labels += 1;
    want.chosen_cents += g.rate_cents; want.chosen_carbon_grams += g.carbon_grams;
    want.cheapest_cents += c.rate_cents; want.cheapest_carbon_grams += c.carbon_grams;
    want.greenest_cents += g.rate_cents; want.greenest_carbon_grams += g.carbon_grams;
  }
  const choicesAfter = (await json('/api/insights?period=7d')).choices;
  for (const [k, v] of Object.entries(want)) assert.equal(choicesAfter[k] - choicesBefore[k], v, k);
  // Found by its reference, and exported with its batch.
  assert.deepEqual((await json('/api/ledger/history?q=%23a3')).rows.map((r) => r.reference), ['#A3']);
  const csv = await (await call('/api/ledger/export.csv?q=%23a')).text();
  const lines = csv.trim().split(/\r?\n/).slice(1);
  assert.equal(lines.length, 4);
  for (const line of lines) assert.equal(line.split(',')[9], created.id);
});

test('the history and export read the other mode with ?mode=, and say which labels their webhook announced', async () => {
  // A sandbox label, bought elsewhere and announced by its signed event.
  const auth = { authorization: `Bearer ${stack.keys.sandbox}`, 'content-type': 'application/json' };
  const quote = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(request('Sandy Box', 12)) })).json();
  const bought = await fetch(`${stack.sim.url}/v1/labels`, { method: 'POST', headers: auth, body: JSON.stringify({ rate_id: quote.rates[0].id }) });
  assert.equal(bought.status, 201, await bought.clone().text());
  const sandboxed = await bought.json();
  // Found by its tracking number: the event says nothing of its recipient.
  const q = `q=${sandboxed.tracking_number}`;
  const page = await until('the sandbox label in the sandbox history', async () => {
    const p = await json(`/api/ledger/history?mode=sandbox&${q}`);
    return p.rows.length > 0 && p;
  });
  assert.deepEqual(page.rows.map((r) => r.id), [sandboxed.id]);
  assert.equal(page.rows[0].deliveries, 1, 'announced once');
  // The session's mode (live) does not show it, nor does mode=live.
  assert.equal((await json(`/api/ledger/history?${q}`)).rows.length, 0);
  assert.equal((await json(`/api/ledger/history?mode=live&${q}`)).rows.length, 0);
  const csv = await (await call(`/api/ledger/export.csv?mode=sandbox&${q}`)).text();
  assert.deepEqual(csv.trim().split(/\r?\n/).slice(1).map((l) => l.split(',')[10]), [sandboxed.id]);
});

test('insights and history stay whole JSON while a burst of deliveries lands in the same object', async () => {
  // Seen once: a 200 with an empty body while 64 deliveries were landing.
  // A day of its own, ahead, so its labels are these 64 only.
  const at = Math.floor(Date.now() / 1000) + 10 * DAY;
  await stack.sim.control('POST', '/__sim/clock/set', { now: at });
  // Another integration's key, whose per-minute limits allow the burst.
  const { live } = await keysWithLimits(stack.sim, { ...RAISED_LIMITS, 'POST /v1/labels': 100000 }, stack.accountId);
  const auth = { authorization: `Bearer ${live}`, 'content-type': 'application/json' };
  const buys = Array.from({ length: 64 }, async (_, i) => {
    const quote = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(request(`Burst ${i}`, 5 + i)) })).json();
    const res = await fetch(`${stack.sim.url}/v1/labels`, { method: 'POST', headers: auth, body: JSON.stringify({ rate_id: quote.rates[0].id }) });
    assert.equal(res.status, 201);
  });
  let reads = 0;
  const bad = [];
  let done = false;
  const reader = async (path) => {
    while (!done) {
      const res = await call(path);
      const text = await res.text();
      reads++;
      if (res.status === 200) {
        try { JSON.parse(text); } catch { bad.push(`${path}: 200 with ${JSON.stringify(text.slice(0, 80))}`); }
      } else {
        // Anything else must be the envelope, saying what to do next.
        const error = JSON.parse(text).error;
        assert.ok(error?.code && error.suggestion, `${path}: ${res.status} ${text}`);
      }
    }
  };
  const burst = `/api/ledger/history?since=${at}&limit=200`;
  const readers = [reader('/api/insights?period=7d'), reader(burst), reader('/api/insights?period=90d')];
  try {
    await Promise.all(buys);
    await until('the burst in the ledger', async () => (await json(burst)).rows.length === 64, 60000);
  } finally {
    done = true;
    await Promise.allSettled(readers);
  }
  await Promise.all(readers);
  await stack.sim.control('POST', '/__sim/clock/set', { now: Math.floor(Date.now() / 1000) });
  assert.deepEqual(bad, [], `${bad.length} of ${reads} reads`);
});

test('bad queries get 422 in the envelope naming the parameter; signed-out callers get nothing', async () => {
  for (const [path, field] of [
    ['/api/insights?period=1y', 'period'],
    ['/api/insights?tz=900', 'tz'],
    ['/api/ledger/history?limit=1000', 'limit'],
    ['/api/ledger/history?status=lost', 'status'],
    ['/api/ledger/history?cursor=nonsense', 'cursor'],
    ['/api/ledger/history?mode=prod', 'mode'],
    ['/api/ledger/export.csv?mode=prod', 'mode'],
    ['/api/ledger/export.csv?since=20&until=10', 'until'],
  ]) {
    const res = await call(path);
    assert.equal(res.status, 422, path);
    const { error } = await res.json();
    assert.equal(error.code, 'VALIDATION.FIELD.INVALID', path);
    assert.equal(error.field, field, path);
    assert.ok(error.request_id && error.suggestion && error.docs_url, path);
    assert.equal(res.headers.get('x-request-id'), error.request_id);
  }
  for (const path of ['/api/insights', '/api/ledger/history', '/api/ledger/export.csv']) {
    const res = await fetch(stack.edge.url + path);
    assert.equal(res.status, 401, path);
  }
});

test('a purchase whose quote the Worker does not hold is in the ledger with its buyer, and what the choices cost leaves it out', async () => {
  const before = await json('/api/insights?period=7d');
  // Quoted elsewhere (another isolate, or before a restart), bought here.
  const auth = { authorization: `Bearer ${stack.keys.live}`, 'content-type': 'application/json' };
  const quote = await (await fetch(`${stack.sim.url}/v1/rates`, { method: 'POST', headers: auth, body: JSON.stringify(request('Unseen Quote', 18)) })).json();
  const res = await call('/api/v1/labels', { method: 'POST', headers: { 'idempotency-key': randomUUID() }, body: JSON.stringify({ rate_id: cheapest(quote.rates).id }) });
  assert.equal(res.status, 201, await res.clone().text());
  const label = await res.json();
  const row = (await until('the label in the ledger', () => inLedger([label.id]))).rows.find((r) => r.id === label.id);
  assert.equal(row.bought_by, stack.users.operator.name);
  assert.equal(row.price_cents, label.rate_cents);
  // Offer not known: no carbon, no recipient, not among the choices.
  assert.equal(row.carbon_grams, null);
  assert.equal(row.recipient, null);
  const after = await json('/api/insights?period=7d');
  assert.equal(after.totals.labels, before.totals.labels + 1);
  assert.equal(after.totals.carbon_labels, before.totals.carbon_labels);
  assert.deepEqual(after.choices, before.choices);
});
