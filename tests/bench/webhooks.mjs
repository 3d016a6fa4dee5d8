// Webhooks: (1) accepted label.created deliveries per second through workerd
// into the inbox, beside a bare JS Worker in the same workerd that only
// verifies the HMAC (the floor of any verifying receiver); (2) the time from
// a delivery reaching the Worker to its row in an open Webhooks page in
// headless Chromium.
//   scripts/build-app && scripts/build-edge && cargo build --profile native -p sim && node tests/bench/webhooks.mjs
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { benchMiniflare, ourWorker } from './miniflare.mjs';
import { newKeys, signInPage, startSim, startStack } from '../support/stack.mjs';
import { launch } from '../support/browser.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const BROWSER_EVENTS = Number(process.env.BENCH_EVENTS || 200);
const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const HOOK = '/hooks/v1/label-created';

const label = (id) => ({
  id, tracking_number: `1ZBENCH${id}`, label_url: 'https://labels.example/x.pdf', carrier: 'ups',
  service: 'ground', rate_cents: 812, sandbox: false, wallet_balance_after_cents: 10000,
});
function delivery(id) {
  const body = JSON.stringify({ event: 'label.created', data: label(id) });
  return { body, signature: 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex') };
}

const BARE = `export default {
  async fetch(request, env) {
    const body = await request.arrayBuffer();
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(env.SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, body));
    const hex = 'sha256=' + [...mac].map((b) => b.toString(16).padStart(2, '0')).join('');
    return hex === request.headers.get('svc-signature') ? new Response('{"received":true}') : new Response('{}', { status: 401 });
  },
};`;

const sim = await startSim({ keys: newKeys() });
const mf = benchMiniflare([
  ourWorker({ UPSTREAM_URL: sim.url, SVC_LIVE_KEY: newKeys().live, SESSION_SECRET: 'b'.repeat(64), WEBHOOK_SECRET: SECRET }),
  { name: 'bare', routes: ['bare.bench/*'], modules: true, script: BARE, compatibilityDate: '2026-04-01', bindings: { SECRET } },
]);
const base = new URL((await mf.ready).toString());

/** `connections` keep-alive clients posting distinct signed deliveries for SECONDS. */
async function load(host, connections, prefix) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let n = 0;
  let failed = 0;
  const end = Date.now() + SECONDS * 1000;
  const post = (d) => new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = http.request({
      host: base.hostname, port: base.port, path: HOOK, method: 'POST', agent,
      headers: { host, 'content-type': 'application/json', 'svc-signature': d.signature, 'content-length': Buffer.byteLength(d.body) },
    }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (res.statusCode !== 200) failed++;
        resolve();
      });
    });
    req.on('error', () => { failed++; resolve(); });
    req.end(d.body);
  });
  await Promise.all(Array.from({ length: connections }, async () => {
    while (Date.now() < end) await post(delivery(`lbl_${prefix}_${n++}`));
  }));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { rps: latencies.length / SECONDS, p50: q(0.5), p99: q(0.99), failed };
}

const f = (x) => x.toFixed(2);
console.log(`Deliveries on loopback, ${SECONDS} s per row, each a distinct signed label.created; workerd, the simulator and the load generator share the 2 cores.\n`);
console.log('| receiver | connections | accepted/s | p50 ms | p99 ms | not 200 |');
console.log('|---|---|---|---|---|---|');
let run = 0;
for (const connections of [1, 8]) {
  for (const [name, host] of [['bare (verify only)', 'bare.bench'], ['ours (verify + inbox)', 'ours.bench']]) {
    const r = await load(host, connections, `${run++}`);
    console.log(`| ${name} | ${connections} | ${Math.round(r.rps)} | ${f(r.p50)} | ${f(r.p99)} | ${r.failed} |`);
  }
}
await mf.dispose();
await sim.stop();

// (2) Receipt to row: the real stack (wrangler, the app's assets), one open page.
const stack = await startStack({ edgeSecrets: { WEBHOOK_SECRET: SECRET } });
const browser = await launch();
const page = await browser.newPage();
await signInPage(page, stack, stack.users.viewer);
await page.goto(stack.edge.url + '/webhooks');
await page.getByText('● Live').waitFor({ timeout: 15000 });
// The page notes when each row appears, on the same wall clock as this process.
await page.evaluate(() => {
  window.seen = {};
  new MutationObserver(() => {
    const at = performance.timeOrigin + performance.now();
    for (const row of document.querySelectorAll('tr[data-label-id]')) {
      window.seen[row.dataset.labelId] ??= at;
    }
  }).observe(document.body, { childList: true, subtree: true });
});
const sent = {};
for (let i = 0; i < BROWSER_EVENTS; i++) {
  const id = `lbl_page_${i}`;
  const d = delivery(id);
  sent[id] = performance.timeOrigin + performance.now();
  const res = await fetch(stack.edge.url + HOOK, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': d.signature }, body: d.body });
  if (res.status !== 200) throw new Error(`delivery ${id} → ${res.status}`);
  await new Promise((r) => setTimeout(r, 20));
}
await page.waitForFunction((n) => Object.keys(window.seen).length >= n, BROWSER_EVENTS, { timeout: 30000 });
const seen = await page.evaluate(() => window.seen);
const delays = Object.keys(sent).map((id) => seen[id] - sent[id]).sort((a, b) => a - b);
const q = (p) => delays[Math.min(delays.length - 1, Math.floor(p * delays.length))];
console.log(`\nReceipt to row in an open Webhooks page (headless Chromium, ${BROWSER_EVENTS} deliveries 20 ms apart, from the moment the delivery is sent to the Worker to the row in the DOM):\n`);
console.log('| p50 ms | p90 ms | p99 ms | max ms | target |');
console.log('|---|---|---|---|---|');
console.log(`| ${f(q(0.5))} | ${f(q(0.9))} | ${f(q(0.99))} | ${f(delays.at(-1))} | p99 < 1000 ms: ${q(0.99) < 1000 ? 'met' : 'missed'} |`);
await browser.close();
await stack.stop();
