// A/B of two builds of our Worker in one workerd, alternating wrk runs
// (medians of the throughput at 16 connections, of workerd's CPU per request
// in those runs and of one connection's p50), e.g. before and after a change to the Worker:
//   cp -a edge/build /tmp/edge-a; <change>; scripts/build-edge; node tests/bench/ab-edge.mjs /tmp/edge-a edge/build [wallet|rates|labels|webhook]
// `webhook`: one signed label.created delivery, again and again (each a
// write to the inbox object, stored once and counted). `labels`: a purchase
// of a rate each build quoted itself (so its isolate holds the offer, as for
// a person on the Ship page), each with an Idempotency-Key of its own and
// the reference the Ship page sends; both builds share the ledger Worker
// of this checkout, so the difference is the main Worker's.
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RATES_REQUEST, RATES_WRK, TICK_US, benchMiniflare, benchBindings, benchmarkKey, ourWorker, postTo, purchaseWrk, signIn, signedInWrk, workerdTicks } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const [a, b, which = 'wallet'] = process.argv.slice(2);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const REPS = Number(process.env.BENCH_REPS || 3);
const sim = await startSim({ keys: newKeys() });
const key = await benchmarkKey(sim);
// Every purchase of the run is paid for ($10 billion).
if (which === 'labels') await sim.control('PUT', '/__sim/accounts/acct_demo/wallet', { balance_cents: 1_000_000_000_000, card: 'ok', auto_reload: null });
const users = newUsers();
const SECRET = 'whsec_' + 'c'.repeat(32);
const bindings = { ...benchBindings(sim, key, users), WEBHOOK_SECRET: SECRET };
const DELIVERY = JSON.stringify({ event: 'label.created', data: {
  id: 'lbl_ab', tracking_number: '1ZAB', label_url: 'https://labels.example/x.pdf', carrier: 'ups',
  service: 'ground', rate_cents: 812, sandbox: false, wallet_balance_after_cents: 10000,
} });
/**
 * Each build gets the Durable Objects it exports, or binds in another
 * Worker: a build from before a class was added, renamed (the purchase
 * records were `IdempotencyLedger`) or moved to the ledger Worker is
 * compared as it was deployed.
 */
function variant(name, dir) {
  const worker = ourWorker(bindings);
  const source = readFileSync(path.resolve(dir, 'index.js'), 'utf8');
  const durableObjects = Object.fromEntries(Object.entries(worker.durableObjects)
    .map(([binding, o]) => [binding, source.includes(o.className) ? { className: o.className, useSQLite: true } : o])
    .filter(([, o]) => o.scriptName || source.includes(o.className)));
  if (!durableObjects.IDEMPOTENCY && source.includes('IdempotencyLedger')) durableObjects.IDEMPOTENCY = { className: 'IdempotencyLedger', useSQLite: true };
  return { ...worker, durableObjects, name, routes: [`${name}.bench/*`], scriptPath: path.resolve(dir, 'index.js'), modulesRoot: path.resolve(dir) };
}
const mf = benchMiniflare([variant('a', a), variant('b', b)]);
const base = (await mf.ready).toString().replace(/\/$/, '');

const tmp = mkdtempSync(path.join(tmpdir(), 'edge-ab-'));
const scripts = {};
const purchases = {};
for (const name of ['a', 'b']) {
  const host = `${name}.bench`;
  const cookie = await signIn(base, host, users.operator.token);
  const lines = signedInWrk(host, cookie);
  if (which === 'rates') lines.push(...RATES_WRK);
  if (which === 'labels') {
    // The cheapest rate of a quote through this build, well inside its 15 minutes.
    const quote = await postTo(base, host, '/api/v1/rates', RATES_REQUEST, { cookie });
    if (quote.status !== 200) throw new Error(`the quote failed: ${quote.status} ${quote.text}`);
    const rateId = JSON.parse(quote.text).rates.sort((x, y) => x.rate_cents - y.rate_cents)[0].id;
    lines.push('wrk.headers["Parcel-Reference"] = "SO-1042"');
    purchases[name] = rateId;
  }
  if (which === 'webhook') {
    const signature = 'sha256=' + createHmac('sha256', SECRET).update(DELIVERY).digest('hex');
    lines.push('wrk.method = "POST"', `wrk.body = '${DELIVERY}'`, 'wrk.headers["Content-Type"] = "application/json"', `wrk.headers["svc-signature"] = "${signature}"`);
  }
  scripts[name] = path.join(tmp, `${name}.lua`);
  writeFileSync(scripts[name], lines.join('\n') + '\n');
}
// A purchase run's script is written anew for each run: its keys are new
// purchases, never replays of an earlier run's.
let written = 0;
function script(name) {
  if (!purchases[name]) return scripts[name];
  const file = path.join(tmp, `${name}-${++written}.lua`);
  writeFileSync(file, readFileSync(scripts[name], 'utf8') + purchaseWrk(purchases[name]).join('\n') + '\n');
  return file;
}
const url = which === 'webhook' ? `${base}/hooks/v1/label-created` : `${base}/api/v1/${['rates', 'labels'].includes(which) ? which : 'wallet'}`;
const runs = { a: [], b: [] };
// workerd's CPU per request (every thread) over each run at 16 connections:
// a run slowed by something outside workerd (the simulator, wrk, the machine)
// moves the throughput, much less this.
const cpu = { a: [], b: [] };
const ticksSoFar = workerdTicks();
// One connection's p50 (wrk --latency), each build in turn, beside the throughput at 16.
const p50 = { a: [], b: [] };
const ms = (value, unit) => Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
try {
  for (let i = 0; i < REPS; i++) {
    for (const name of ['a', 'b']) {
      const before = ticksSoFar();
      const { stdout } = await promisify(execFile)('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '-s', script(name), url]);
      const ticks = ticksSoFar() - before;
      if (/Non-2xx/.test(stdout)) throw new Error(`non-2xx answers from ${name}:\n${stdout}`);
      runs[name].push(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]));
      cpu[name].push((ticks * TICK_US) / Number(/(\d+) requests in/.exec(stdout)[1]));
      const one = (await promisify(execFile)('wrk', ['-t1', '-c1', '--latency', `-d${SECONDS}s`, '-s', script(name), url])).stdout;
      const [, value, unit] = /^\s+50%\s+([\d.]+)(us|ms|s)$/m.exec(one);
      p50[name].push(ms(value, unit));
    }
  }
} finally {
  await mf.dispose();
  await sim.stop();
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`${which}, 16 connections, ${SECONDS} s × ${REPS}: a ${runs.a.map(Math.round).join('/')} (median ${Math.round(median(runs.a))}), b ${runs.b.map(Math.round).join('/')} (median ${Math.round(median(runs.b))}) req/s: b/a = ${(median(runs.b) / median(runs.a)).toFixed(3)}`);
console.log(`${which}, workerd CPU µs per request at 16 connections: a ${cpu.a.map(Math.round).join('/')} (median ${Math.round(median(cpu.a))}), b ${cpu.b.map(Math.round).join('/')} (median ${Math.round(median(cpu.b))}): b/a = ${(median(cpu.b) / median(cpu.a)).toFixed(3)}`);
console.log(`${which}, 1 connection, p50 ms: a ${p50.a.map((x) => x.toFixed(2)).join('/')} (median ${median(p50.a).toFixed(2)}), b ${p50.b.map((x) => x.toFixed(2)).join('/')} (median ${median(p50.b).toFixed(2)}): b − a = ${(median(p50.b) - median(p50.a)).toFixed(2)} ms`);
