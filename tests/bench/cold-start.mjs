// Cold start of two builds of our Worker, each alone in a fresh workerd
// (Miniflare), alternating A and B, N starts each: the start until workerd
// is ready, then the first request (a sign-in, `POST /api/session`), then
// the same request again (warm). Prints the medians. For a change to the
// Worker:
//   cp -a edge/build /tmp/edge-a; <change>; scripts/build-edge
//   node tests/bench/cold-start.mjs /tmp/edge-a edge/build [N=10]
// The PDF Worker is not started: a sign-in never calls it.
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { benchBindings, benchMiniflare, benchmarkKey, ourWorker } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const [a, b, n = '10'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: node tests/bench/cold-start.mjs DIR_A DIR_B [N]');
const STARTS = Number(n);
const sim = await startSim({ keys: newKeys() });
const key = await benchmarkKey(sim);
const users = newUsers();
const bindings = benchBindings(sim, key, users);

/** The build in `dir` as the only Worker, with the Durable Objects it exports. */
function worker(dir) {
  const ours = ourWorker(bindings);
  const source = readFileSync(path.resolve(dir, 'index.js'), 'utf8');
  const durableObjects = Object.fromEntries(Object.entries(ours.durableObjects).filter(([, o]) => source.includes(o.className)));
  return { ...ours, routes: undefined, durableObjects, scriptPath: path.resolve(dir, 'index.js'), modulesRoot: path.resolve(dir) };
}

async function signIn(base) {
  const t = performance.now();
  const res = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ token: users.operator.token }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`sign-in → ${res.status}`);
  return performance.now() - t;
}

async function start(dir) {
  const t = performance.now();
  const mf = benchMiniflare([worker(dir)]);
  const base = (await mf.ready).toString().replace(/\/$/, '');
  const ready = performance.now() - t;
  try {
    const first = await signIn(base);
    const warm = await signIn(base);
    return { ready, first, warm };
  } finally {
    await mf.dispose();
  }
}

const runs = { a: [], b: [] };
try {
  for (let i = 0; i < STARTS; i++) {
    runs.a.push(await start(a));
    runs.b.push(await start(b));
  }
} finally {
  await sim.stop();
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const kib = (bytes) => (bytes / 1024).toFixed(1);
console.log(`| build | wasm KiB raw / gzip | workerd ready (ms) | first request (ms) | ready + first (ms) | warm request (ms) |`);
console.log(`|---|---|---|---|---|---|`);
for (const [name, dir] of [['a', a], ['b', b]]) {
  const wasm = path.resolve(dir, 'index_bg.wasm');
  const size = `${kib(statSync(wasm).size)} / ${kib(gzipSync(readFileSync(wasm), { level: 9 }).length)}`;
  const r = runs[name];
  const cell = (f) => median(r.map(f)).toFixed(1);
  console.log(`| ${name}: ${dir} | ${size} | ${cell((x) => x.ready)} | ${cell((x) => x.first)} | ${cell((x) => x.ready + x.first)} | ${cell((x) => x.warm)} |`);
}
console.log(`(median of ${STARTS} starts each, alternating)`);
