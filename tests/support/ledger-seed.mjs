// Fills the label ledger the way production does: labels bought on the
// simulator by another integration of the same account, over the last
// `days` days of simulated time, each announced to the Worker by the
// simulator's own signed `label.created` delivery (its dispatcher, 64 at a
// time, retried on its schedule). Nothing is written into storage by hand.
import { keysWithLimits, RAISED_LIMITS } from './stack.mjs';
import { until } from './wait.mjs';

const DAY = 86_400;
const CITIES = [['Brooklyn', 'NY', '11201'], ['Austin', 'TX', '73301'], ['Denver', 'CO', '80202'], ['Seattle', 'WA', '98101']];

/**
 * Buys `count` labels on `stack.sim` for `account` (the simulator's demo
 * account unless named) spread evenly over the `days` calendar days up to
 * `now` (seconds; today is the last), rate i % offered, so every carrier
 * and several weights appear; `concurrency` purchases at once. The
 * account's webhook must already point at the Worker. Leaves the
 * simulator's clock at `now`. Returns the labels' ids.
 */
export async function buyOnSim(stack, { count, days, now, account = 'acct_demo', concurrency = 8 }) {
  // Another integration's key: its own limits, so part 8's per-minute
  // limits do not pace a seeding of thousands.
  const { live } = await keysWithLimits(stack.sim, { ...RAISED_LIMITS, 'POST /v1/labels': 100000 }, account);
  await stack.sim.control('PUT', `/__sim/accounts/${account}/wallet`, { balance_cents: count * 10_000, card: 'ok', auto_reload: null });
  const headers = { authorization: `Bearer ${live}`, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(stack.sim.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path} → ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const ids = [];
  for (let day = days - 1; day >= 0; day--) {
    // This day's share, a minute before `now`'s time of day: the clock is
    // the simulator's one clock, so a day's purchases run together.
    const first = Math.floor(((days - 1 - day) * count) / days);
    const last = Math.floor(((days - day) * count) / days);
    await stack.sim.control('POST', '/__sim/clock/set', { now: now - day * DAY - 60 });
    let next = first;
    const worker = async () => {
      while (next < last) {
        const i = next++;
        const [city, state, zip] = CITIES[i % CITIES.length];
        const quote = await post('/v1/rates', {
          from_address: { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
          to_address: { name: `Customer ${i}`, street1: `${1 + (i % 900)} Elm St`, city, state, zip, country: 'US' },
          parcel: { weight_oz: 4 + (i % 60), length: 10, width: 8, height: 4 },
        });
        ids.push((await post('/v1/labels', { rate_id: quote.rates[i % quote.rates.length].id })).id);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  await stack.sim.control('POST', '/__sim/clock/set', { now });
  return ids;
}

/**
 * Waits until `count()` (the Worker's own answer: how many labels the
 * ledger holds for the period) reaches `want`, polling every 250 ms, for at
 * most `ms`; returns the last count. Fails with both numbers.
 */
export async function untilLedgerHolds(want, count, ms) {
  let have;
  await until(() => `the ledger to hold ${want} labels (it holds ${have})`, async () => (have = await count()) >= want, ms, 250);
  return have;
}
