// Where a Worker's CPU goes under load: V8's sampling profiler on it (through
// Miniflare's inspector proxy) while wrk drives 16 connections. Prints the
// time per request charged to the runtime call each sample happened under
// (`console.log`, `fetch`, ...; else "own wasm code"), then self time by
// function, with Rust names from the name section worker-build keeps.
// CHAINS=N also prints the N heaviest call stacks; TOTAL=N the N functions
// with the most time on the stack (themselves and what they call).
//   scripts/build-edge && cargo build --profile native -p sim && node tests/bench/profile-edge.mjs [ours|bare-rs] [wallet|rates]
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { RATES_WRK, bareRsWorker, benchMiniflare, benchBindings, benchmarkKey, ourWorker, signIn, signedInWrk } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const worker = process.argv[2] || 'ours';
const which = process.argv[3] || 'wallet';
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const keys = newKeys();
const sim = await startSim({ keys });
const key = await benchmarkKey(sim);
const users = newUsers();
const INSPECTOR = 9339;
const mf = benchMiniflare([
  { ...ourWorker(benchBindings(sim, key, users)), unsafeInspectorProxy: worker === 'ours' },
  { ...bareRsWorker({ UPSTREAM: sim.url, KEY: key }), unsafeInspectorProxy: worker === 'bare-rs' },
], { inspectorPort: INSPECTOR });
const base = (await mf.ready).toString().replace(/\/$/, '');

// Signed in on our Worker; the bare one ignores the cookie.
const cookie = await signIn(base, 'ours.bench', users.operator.token);

const ws = new WebSocket(`ws://127.0.0.1:${INSPECTOR}/${worker}`);
await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
let next = 1;
const pending = new Map();
ws.on('message', (data) => {
  const msg = JSON.parse(data);
  if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); }
});
const send = (method, params = {}) => new Promise((resolve) => {
  const id = next++;
  pending.set(id, resolve);
  ws.send(JSON.stringify({ id, method, params }));
});

const tmp = mkdtempSync(path.join(tmpdir(), 'edge-profile-'));
const lua = path.join(tmp, 'ours.lua');
// Signed in for ours; the bare Worker ignores the cookie and the origin.
const lines = signedInWrk(`${worker}.bench`, cookie);
if (which === 'rates') lines.push(...RATES_WRK);
writeFileSync(lua, lines.join('\n') + '\n');
const url = `${base}/api/v1/${which === 'rates' ? 'rates' : 'wallet'}`;

try {
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 100 });
  await send('Profiler.start');
  const { stdout } = await promisify(execFile)('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '-s', lua, url]);
  const { result } = await send('Profiler.stop');
  console.log(stdout.split('\n').filter((l) => /Requests\/sec|Non-2xx/.test(l)).join('\n'));
  const { nodes, samples, timeDeltas } = result.profile;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of nodes) for (const c of n.children || []) parent.set(c, n.id);
  // Time per profile node (one pass over the samples); everything below derives from it.
  const perNode = new Map();
  samples.forEach((id, i) => perNode.set(id, (perNode.get(id) || 0) + (timeDeltas[i] || 0)));
  let total = 0;
  const self = new Map();
  for (const [id, t] of perNode) {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber}:${f.columnNumber}` : ''}`.trim();
    self.set(name, (self.get(name) || 0) + t);
    total += t;
  }
  const requests = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]) * SECONDS;
  if (process.env.CHAINS) {
    for (const [id, t] of [...perNode].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.CHAINS))) {
      const chain = [];
      for (let x = id; x; x = parent.get(x)) { const f = byId.get(x).callFrame; chain.push(f.functionName || '(anon)'); }
      console.log(`${(100 * t / total).toFixed(1)}% ${chain.slice(0, 8).join(' < ')}`);
    }
  }
  if (process.env.TOTAL) {
    const inclusive = new Map();
    for (const [id, t] of perNode) {
      if (byId.get(id).callFrame.functionName === '(idle)') continue;
      const seen = new Set();
      for (let x = id; x; x = parent.get(x)) seen.add(byId.get(x).callFrame.functionName || '(anon)');
      for (const name of seen) inclusive.set(name, (inclusive.get(name) || 0) + t);
    }
    console.log('on the stack, per request (µs):');
    for (const [name, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOTAL))) {
      console.log(`${(t / requests).toFixed(1).padStart(7)}  ${name.replace(/::h[0-9a-f]{16}/g, '').slice(0, 150)}`);
    }
  }
  // Each busy sample charged to the platform call it happened under (the
  // nearest `__wbg_*` import on its stack), else to wasm or the leaf itself.
  const category = new Map();
  for (const [id, t] of perNode) {
    let label = null;
    for (let x = id; x && !label; x = parent.get(x)) {
      const m = /^__wbg_(.+?)_[0-9a-f]{16}$/.exec(byId.get(x).callFrame.functionName);
      if (m) label = `js ${m[1]}`;
    }
    const leaf = byId.get(id).callFrame;
    label ||= /\.wasm/.test(leaf.url) ? 'wasm (own code)' : (leaf.functionName || '(anonymous)');
    category.set(label, (category.get(label) || 0) + t);
  }
  console.log(`per request (µs), ${Math.round(requests)} requests:`);
  for (const [label, t] of [...category].sort((x, y) => y[1] - x[1]).slice(0, 25)) {
    console.log(`${(t / requests).toFixed(1).padStart(7)}  ${label}`);
  }
  const idle = self.get('(idle)') || 0;
  console.log(`profiled ${(total / 1e6).toFixed(2)} s, idle ${(100 * idle / total).toFixed(1)}%; busy time by function (self):`);
  for (const [name, t] of [...self].filter(([n]) => n !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 45)) {
    console.log(`${(100 * t / (total - idle)).toFixed(1).padStart(5)}%  ${name}`);
  }
} finally {
  ws.close();
  await mf.dispose();
  await sim.stop();
}
