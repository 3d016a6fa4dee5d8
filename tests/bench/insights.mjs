// Insights and the label history at scale: our Worker and the ledger Worker
// in one Miniflare, the ledger filled through the webhook endpoint (signed
// label.created deliveries of labels made over the last 89 days, four
// carriers), then each read timed at the Worker (loopback, sequential):
// insights (30 and 90 days) at 10,000 and 100,000 labels, history filters
// and searches at 100,000, and a CSV export.
//   scripts/build-edge && cargo build --profile native -p sim && node tests/bench/insights.mjs
// BENCH_SIZES=10000,100000 BENCH_READS=30 to change the defaults.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { benchMiniflare, benchBindings, benchmarkKey, ourWorker, signIn } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const SIZES = (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number);
const READS = Number(process.env.BENCH_READS || 30);
const SECRET = 'whsec_' + 'd'.repeat(32);
const CARRIERS = [['Pacific Post', 'Ground'], ['Atlas Freight', 'Economy'], ['Comet Express', 'Overnight'], ['Harbor Parcel', 'Standard']];
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);

const sim = await startSim({ keys: newKeys() });
const users = newUsers();
const bindings = { ...benchBindings(sim, await benchmarkKey(sim), users), WEBHOOK_SECRET: SECRET };
const mf = benchMiniflare([ourWorker(bindings)]);
const base = (await mf.ready).toString().replace(/\/$/, '');
const HOST = 'ours.bench';
const cookie = await signIn(base, HOST, users.viewer.token);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(method, path, { body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, agent, headers: { host: HOST, ...headers } }, (res) => {
      let size = 0;
      const chunks = [];
      res.on('data', (c) => { size += c.length; if (size < 1 << 20) chunks.push(c); });
      res.on('end', () => resolve({ status: res.statusCode, size, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let made = 0;
/** Delivers labels until the ledger holds `target`, 8 at a time. */
async function fill(target) {
  const started = Date.now();
  const next = async () => {
    while (made < target) {
      const i = made++;
      const [carrier, service] = CARRIERS[i % 4];
      const label = {
        id: `lbl_bench_${i}`, tracking_number: `94${String(1e9 + i * 7919).slice(-10)}`, label_url: 'https://labels.example/x.pdf',
        carrier, service, rate_cents: 500 + (i * 37) % 2500, sandbox: false, wallet_balance_after_cents: 0,
        created_at: now - 60 - Math.floor((i * 104729) % (89 * DAY)),
      };
      const body = JSON.stringify({ event: 'label.created', data: label });
      const signature = 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex');
      const res = await request('POST', '/hooks/v1/label-created', { body, headers: { 'content-type': 'application/json', 'svc-signature': signature } });
      if (res.status !== 200) throw new Error(`delivery ${i}: ${res.status} ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, next));
  return (Date.now() - started) / 1000;
}

async function timed(path) {
  const ms = [];
  let last;
  for (let i = 0; i < READS; i++) {
    const t = process.hrtime.bigint();
    last = await request('GET', path, { headers: { cookie, origin: `http://${HOST}` } });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (last.status !== 200) throw new Error(`${path}: ${last.status} ${last.text.slice(0, 300)}`);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length / 2)], p90: ms[Math.floor(ms.length * 0.9)], max: ms[ms.length - 1], last };
}

const rows = [];
const row = (size, what, r, note = '') => {
  rows.push(`| ${size.toLocaleString('en-US')} | ${what} | ${r.p50.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.max.toFixed(1)} | ${note} |`);
  console.error(rows[rows.length - 1]);
};
try {
  for (const size of SIZES) {
    const seconds = await fill(size);
    console.error(`filled to ${size} labels in ${seconds.toFixed(0)} s`);
    const i30 = await timed('/api/insights?period=30d');
    row(size, 'insights, 30 days by day', i30, `${JSON.parse(i30.last.text).totals.labels} labels summed`);
    const i90 = await timed('/api/insights?period=90d&group=week');
    row(size, 'insights, 90 days by week', i90, `${JSON.parse(i90.last.text).totals.labels} labels summed`);
    row(size, 'history, newest 50', await timed('/api/ledger/history'));
    row(size, 'history, one carrier', await timed('/api/ledger/history?carrier=Harbor%20Parcel'));
    const mid = now - 45 * DAY;
    row(size, 'history, one week 45 days ago', await timed(`/api/ledger/history?since=${mid}&until=${mid + 7 * DAY}`));
    row(size, 'history, voided (none)', await timed('/api/ledger/history?status=voided'));
    const hit = await timed(`/api/ledger/history?q=${String(1e9 + 4242 * 7919).slice(-10).slice(2, 8)}`);
    row(size, 'history, search: a tracking number', hit, `${JSON.parse(hit.last.text).rows.length} found`);
    row(size, 'history, search: no match', await timed('/api/ledger/history?q=zzzz'));
    const common = await timed('/api/ledger/history?q=940');
    row(size, 'history, search: "940"', common, `${JSON.parse(common.last.text).rows.length} on the page`);
    row(size, 'history, search: "94" (two characters: every label)', await timed('/api/ledger/history?q=94'));
    const first = JSON.parse((await request('GET', '/api/ledger/history?limit=200', { headers: { cookie, origin: `http://${HOST}` } })).text);
    row(size, 'history, the page after 200', await timed(`/api/ledger/history?limit=200&cursor=${encodeURIComponent(first.next)}`));
    const csv = await timed('/api/ledger/export.csv?carrier=Pacific%20Post');
    row(size, 'CSV export, one carrier', csv, `${csv.last.size.toLocaleString('en-US')} bytes`);
  }
} finally {
  await mf.dispose();
  await sim.stop();
}
console.log(`Ledger reads at the Worker (ms, ${READS} sequential reads each, loopback, one Miniflare):\n`);
console.log('| labels | read | p50 | p90 | max | note |\n|---|---|---|---|---|---|');
console.log(rows.join('\n'));
