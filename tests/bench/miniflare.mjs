// One workerd (Miniflare) for the benchmarks, Workers routed by Host, and
// our Worker as wrangler.toml describes it (the same Durable Objects).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { ALL_SCOPES, ROOT, usersSecret } from '../support/stack.mjs';

/** A key with every scope and no limits, so every row measures full round trips. */
export async function benchmarkKey(sim) {
  return (await sim.control('POST', '/__sim/keys', { env: 'live', account: 'acct_demo', scopes: ALL_SCOPES, unlimited: true })).key;
}

/** The rates request every edge benchmark sends. */
export const RATES_REQUEST = {
  from_address: { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
  to_address: { name: 'Grace Hopper', street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201', country: 'US' },
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
};

/** Its wrk script lines. */
export const RATES_WRK = [
  'wrk.method = "POST"',
  `wrk.body = '${JSON.stringify(RATES_REQUEST)}'`,
  'wrk.headers["Content-Type"] = "application/json"',
];

/**
 * The wrk script lines of a purchase of `rateId`: each request a new
 * purchase, with an `Idempotency-Key` of its own (run, thread, count).
 */
export function purchaseWrk(rateId) {
  return [
    'wrk.method = "POST"',
    `wrk.body = '${JSON.stringify({ rate_id: rateId })}'`,
    'wrk.headers["Content-Type"] = "application/json"',
    `local run, threads, n = "${randomUUID()}", 0, 0`,
    'function setup(thread) threads = threads + 1; thread:set("tid", threads) end',
    'function request() n = n + 1; wrk.headers["Idempotency-Key"] = run .. "-" .. tid .. "-" .. n; return wrk.format() end',
  ];
}

/** Our Worker's settings for the edge benchmarks: the simulator, the key and users to sign in. */
export function benchBindings(sim, key, users) {
  return { UPSTREAM_URL: sim.url, SVC_LIVE_KEY: key, USERS: usersSecret(users), SESSION_SECRET: 'b'.repeat(64) };
}

/**
 * POSTs `body` as JSON to `path` of the Worker at Host `host`, as its own
 * page would; resolves to the answer (status, headers, text). node:http,
 * because fetch will not send another Host.
 */
export function postTo(base, host, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, {
      method: 'POST',
      headers: { host, origin: `http://${host}`, 'content-type': 'application/json', ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Signs in with `token` on the Worker at Host `host`; resolves to the `name=value` session cookie. */
export async function signIn(base, host, token) {
  const res = await postTo(base, host, '/api/session', { token });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return res.headers['set-cookie'][0].split(';')[0];
}

/** The ledger Worker (ledger/build): its inbox object is what our Worker's `INBOX` binds. */
const LEDGER = {
  name: 'ledger',
  modules: true,
  scriptPath: path.join(ROOT, 'ledger/build/index.js'),
  modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
  compatibilityDate: '2026-04-01',
  durableObjects: { INBOX: { className: 'WebhookInbox', useSQLite: true } },
};

export function benchMiniflare(workers, options = {}) {
  const bindsLedger = workers.some((w) => Object.values(w.durableObjects ?? {}).some((d) => d.scriptName === LEDGER.name));
  if (bindsLedger) workers = [...workers, LEDGER];
  return new Miniflare({
    ...options,
    host: '127.0.0.1',
    port: 0,
    // Our Worker writes one log line per request, as in production; drained
    // here. BENCH_STDERR=1 shows workerd's errors (a Worker that fails to start).
    handleRuntimeStdio(stdout, stderr) { stdout.resume(); if (process.env.BENCH_STDERR) stderr.pipe(process.stderr); else stderr.resume(); },
    workers,
  });
}

/** Our built Worker at Host `ours.bench`, with `bindings` as its vars and secrets. */
export function ourWorker(bindings) {
  return {
    name: 'ours',
    routes: ['ours.bench/*'],
    modules: true,
    scriptPath: path.join(ROOT, 'edge/build/index.js'),
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    bindings,
    durableObjects: {
      IDEMPOTENCY: { className: 'PurchaseRecords', useSQLite: true },
      JOBS: { className: 'BatchJob', useSQLite: true },
      CONTROL: { className: 'EdgeControl', useSQLite: true },
      INBOX: { className: 'WebhookInbox', scriptName: LEDGER.name, useSQLite: true },
    },
  };
}

/** The bare Rust pass-through (tests/bench/bare-worker) at Host `<name>.bench`. */
export function bareRsWorker(bindings, name = 'bare-rs') {
  return {
    name,
    routes: [`${name}.bench/*`],
    modules: true,
    scriptPath: path.join(ROOT, 'tests/bench/bare-worker/build/index.js'),
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    bindings,
  };
}
