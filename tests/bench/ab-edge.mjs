// A/B of two builds of our Worker in one workerd, alternating wrk runs
// (medians), e.g. before and after a change to the Worker:
//   cp -a edge/build /tmp/edge-a; <change>; scripts/build-edge; node tests/bench/ab-edge.mjs /tmp/edge-a edge/build [wallet|rates]
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RATES_WRK, benchMiniflare, benchBindings, benchmarkKey, ourWorker, signIn } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const [a, b, which = 'wallet'] = process.argv.slice(2);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const REPS = Number(process.env.BENCH_REPS || 3);
const sim = await startSim({ keys: newKeys() });
const key = await benchmarkKey(sim);
const users = newUsers();
const bindings = benchBindings(sim, key, users);
/**
 * Each build gets the Durable Objects it exports: a build from before a
 * class was added or renamed (the purchase records were `IdempotencyLedger`)
 * is compared as it was deployed.
 */
function variant(name, dir) {
  const worker = ourWorker(bindings);
  const source = readFileSync(path.resolve(dir, 'index.js'), 'utf8');
  const durableObjects = Object.fromEntries(Object.entries(worker.durableObjects).filter(([, o]) => source.includes(o.className)));
  if (!durableObjects.IDEMPOTENCY && source.includes('IdempotencyLedger')) durableObjects.IDEMPOTENCY = { className: 'IdempotencyLedger', useSQLite: true };
  return { ...worker, durableObjects, name, routes: [`${name}.bench/*`], scriptPath: path.resolve(dir, 'index.js'), modulesRoot: path.resolve(dir) };
}
const mf = benchMiniflare([variant('a', a), variant('b', b)]);
const base = (await mf.ready).toString().replace(/\/$/, '');

const tmp = mkdtempSync(path.join(tmpdir(), 'edge-ab-'));
const scripts = {};
for (const name of ['a', 'b']) {
  const host = `${name}.bench`;
  const lines = [`wrk.headers["Host"] = "${host}"`, `wrk.headers["Cookie"] = "${await signIn(base, host, users.operator.token)}"`, `wrk.headers["Origin"] = "http://${host}"`];
  if (which === 'rates') lines.push(...RATES_WRK);
  scripts[name] = path.join(tmp, `${name}.lua`);
  writeFileSync(scripts[name], lines.join('\n') + '\n');
}
const url = `${base}/api/v1/${which === 'rates' ? 'rates' : 'wallet'}`;
const runs = { a: [], b: [] };
try {
  for (let i = 0; i < REPS; i++) {
    for (const name of ['a', 'b']) {
      const { stdout } = await promisify(execFile)('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '-s', scripts[name], url]);
      if (/Non-2xx/.test(stdout)) throw new Error(`non-2xx answers from ${name}:\n${stdout}`);
      runs[name].push(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]));
    }
  }
} finally {
  await mf.dispose();
  await sim.stop();
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`${which}, 16 connections, ${SECONDS} s × ${REPS}: a ${runs.a.map(Math.round).join('/')} (median ${Math.round(median(runs.a))}), b ${runs.b.map(Math.round).join('/')} (median ${Math.round(median(runs.b))}) req/s: b/a = ${(median(runs.b) / median(runs.a)).toFixed(3)}`);
