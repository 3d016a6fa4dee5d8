// One workerd (Miniflare) for the benchmarks, Workers routed by Host, and
// our Worker as wrangler.toml describes it (tests/support/workers.mjs, the
// definition the tests start too).
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { ALL_SCOPES, ROOT, usersSecret } from '../support/stack.mjs';
import { workerOptions } from '../support/workers.mjs';

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

/** The wrk script lines of a request signed in with `cookie`, sent from the own page of the Worker at Host `host`. */
export function signedInWrk(host, cookie) {
  return [`wrk.headers["Host"] = "${host}"`, `wrk.headers["Cookie"] = "${cookie}"`, `wrk.headers["Origin"] = "http://${host}"`];
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

/**
 * One workerd with `workers`, and the Workers they bind (our Worker's
 * ACCOUNTS and PDF services and INBOX's class are the other three's).
 */
export function benchMiniflare(workers, options = {}) {
  const bound = new Set(workers.flatMap((w) => [
    ...Object.values(w.serviceBindings ?? {}).map((s) => s.name),
    ...Object.values(w.durableObjects ?? {}).map((d) => d.scriptName),
  ]));
  const others = [
    workerOptions('accounts', { SESSION_SECRET: 'b'.repeat(64), MASTER_KEYS: `k1:${'c'.repeat(64)}` }),
    workerOptions('ledger'),
    workerOptions('pdf'),
  ].filter((w) => bound.has(w.name));
  return new Miniflare({
    ...options,
    host: '127.0.0.1',
    port: 0,
    // Our Worker writes one log line per request, as in production; drained
    // here. BENCH_STDERR=1 shows workerd's errors (a Worker that fails to start).
    handleRuntimeStdio(stdout, stderr) { stdout.resume(); if (process.env.BENCH_STDERR) stderr.pipe(process.stderr); else stderr.resume(); },
    workers: [...workers, ...others],
  });
}

/** Our built Worker at Host `ours.bench`, with `bindings` as its vars and secrets. */
export function ourWorker(bindings) {
  return { ...workerOptions('main', bindings), name: 'ours', routes: ['ours.bench/*'] };
}

// The bare JS pass-through of edge.mjs plus what every forwarded call must
// do that no Worker can skip: one JSON log line, an upstream timeout, and an answer rebuilt
// with the security headers and only the passed upstream headers. The floor
// for any Worker that does the job, in JS (no wasm, no checks of its own).
// `reading`: the request's body and the answer's read whole instead of
// streamed through, as a Worker that looks at both (ours, for a person's
// quote: its body checked, what it offered held) must.
const duties = (reading) => `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const started = Date.now();
    const headers = new Headers({ authorization: 'Bearer ' + env.KEY, accept: 'application/json' });
    const type = request.headers.get('content-type');
    if (type) headers.set('content-type', type);
    const answer = await fetch(env.UPSTREAM + url.pathname.replace(/^\\/api/, '') + url.search,
      { method: request.method, headers, body: ${reading ? 'request.body && await request.arrayBuffer()' : 'request.body'}, signal: AbortSignal.timeout(10000) });
    const out = new Headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'strict-transport-security': 'max-age=63072000; includeSubDomains' });
    for (const name of ['content-type', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
      const value = answer.headers.get(name);
      if (value !== null) out.set(name, value);
    }
    console.log(JSON.stringify({ request_id: 'req_edge_' + crypto.randomUUID(), method: request.method, route: url.pathname, principal: 'user:operator1', role: 'operator', status: answer.status, upstream_status: answer.status, upstream_request_id: out.get('x-request-id'), upstream_ms: Date.now() - started, total_ms: Date.now() - started }));
    return new Response(${reading ? 'await answer.arrayBuffer()' : 'answer.body'}, { status: answer.status, headers: out });
  },
};`;

/** That Worker (bare-duties, or duties-reading) at Host `<name>.bench`; `bindings` name UPSTREAM and KEY. */
export function dutiesWorker(bindings, { reading = false } = {}) {
  const name = reading ? 'duties-reading' : 'bare-duties';
  return { name, routes: [`${name}.bench/*`], modules: true, script: duties(reading), compatibilityDate: '2026-04-01', bindings };
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

/** CPU time (user and system) of process or thread `pid` so far, in clock ticks (USER_HZ 100). */
export function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
/** µs per clock tick. */
export const TICK_US = 1e6 / 100;

/** The processes started under `pid`, however deep. */
export function descendants(pid) {
  const children = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid); } catch { return false; }
  });
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** The workerd processes this benchmark started. */
export function workerdPids() {
  return descendants(process.pid).filter((p) => readFileSync(`/proc/${p}/comm`, 'utf8').includes('workerd'));
}

/**
 * A reader of the CPU ticks the workerd processes running now (every
 * thread) have used so far: its difference over a run, times TICK_US, over
 * the run's requests is workerd's CPU per request.
 */
export function workerdTicks() {
  const pids = workerdPids();
  return () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
}
