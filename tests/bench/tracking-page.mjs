// The shoppers' tracking page at the Worker locally: an organization of its
// own on a stack (the simulator and the four Workers in one workerd), a
// split order and a single one bought by batch jobs, then each page timed
// at the Worker (loopback, keep-alive, sequential; the first reads are a
// warm-up), with its bytes as sent, gzip and brotli.
//   scripts/build-edge && cargo build --profile native -p sim && node tests/bench/tracking-page.mjs
// BENCH_READS=500 to change the default.
import http from 'node:http';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { sharedStack, startShared } from '../support/stack.mjs';
import { act, address, advanceWhileProcessing, createJob, FROM, jobsOn, untilJob } from '../support/jobs.mjs';
import { until } from '../support/wait.mjs';

const READS = Number(process.env.BENCH_READS || 300);
const parcel = (oz) => ({ weight_oz: oz, length: 10, width: 8, height: 4 });
const order = (reference, oz) => ({ reference, from_address: FROM, to_address: address('Grace Hopper', '12 Elm St'), parcel: parcel(oz) });

// A stack of its own, seen as the test files see the shared one.
const own = await startShared();
process.env.PARCEL_STACK = JSON.stringify(own.coordinates);
const stack = await sharedStack();
const s = await jobsOn(stack);
const admin = await s.edge.session(s.users.admin);
await fetch(`${s.edge.url}/api/org/tracking`, {
  method: 'PUT',
  headers: { cookie: admin.cookie, origin: admin.origin, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Ada Shop', accent: '#0b6e4f', radius: 12, support_url: 'mailto:help@ada.example' }),
});
for (const rows of [[order('#B-1', 12), order('#B-2', 16)], [order('#B-1', 30)]]) {
  const created = await createJob(s, { name: 'bench.csv', rows });
  await act(s, created.id, 'start');
  await untilJob(s, created.id, (j) => j.state === 'completed', { every: 500, tick: advanceWhileProcessing(s) });
}
const shipments = await until('three shipments followed', async () => {
  const list = (await s.json('/api/shipments')).shipments;
  return list.length === 3 && list.every((x) => x.following === 'following' && x.link) && list;
}, 30_000, 250);
// A timeline to show: the single order's parcel scanned and read.
const single = shipments.find((x) => x.reference === '#B-2');
await s.sim.control('POST', `/__sim/labels/${single.label_id}/scan`);
await until('the scan on the page', async () => (await (await fetch(s.edge.url + single.link)).text()).includes('On its way'), 30_000, 500);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http.get(s.edge.url + path, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    }).on('error', reject);
  });
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const pages = [
  ['one shipment (link, scanned, timeline)', single.link],
  ['split order (lookup, 2 parcels)', `/track/${s.org.id}?ref=%23B-1&postcode=11201`],
  ['lookup missed (wrong postcode)', `/track/${s.org.id}?ref=%23B-1&postcode=99999`],
  ['lookup form', `/track/${s.org.id}`],
];
console.log(`| page | status | p50 ms | p95 ms | bytes | gzip | brotli |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const [name, path] of pages) {
  for (let i = 0; i < 20; i++) await get(path);
  const times = [];
  let last;
  // A missed lookup counts against its reference: measured last, few.
  const reads = name.startsWith('lookup missed') ? 5 : READS;
  for (let i = 0; i < reads; i++) {
    last = await get(path);
    times.push(last.ms);
  }
  times.sort((a, b) => a - b);
  const gzip = gzipSync(last.body, { level: 6 }).length;
  const brotli = brotliCompressSync(last.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }).length;
  console.log(`| ${name} | ${last.status} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} | ${last.body.length} | ${gzip} | ${brotli} |`);
}
agent.destroy();
await own.stop();
