// What the one JSON log line per request costs a Worker in this workerd: a JS
// pass-through writing 0, 1 or 10 copies of our log line per request, wrk at
// 16 connections, alternating runs, medians.
//   cargo build --profile native -p sim && node tests/bench/log-cost.mjs
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchMiniflare, benchmarkKey } from './miniflare.mjs';
import { newKeys, startSim } from '../support/stack.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS || 6);
const REPS = Number(process.env.BENCH_REPS || 3);
const sim = await startSim({ keys: newKeys() });
const key = await benchmarkKey(sim);
// The shape and size of our Worker's line (domain/src/log.rs).
const LINE = JSON.stringify({ request_id: 'req_edge_0123456789abcdef01234567', method: 'GET', route: '/v1/wallet', principal: 'user:operator1', role: 'operator', status: 200, upstream_status: 200, upstream_request_id: 'req_0123456789abcdef', upstream_ms: 1, total_ms: 1, answered_from: null, error: null });
const worker = (lines) => ({
  name: `log${lines}`,
  routes: [`log${lines}.bench/*`],
  modules: true,
  compatibilityDate: '2026-04-01',
  bindings: { UPSTREAM: sim.url, KEY: key },
  script: `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const headers = new Headers({ authorization: 'Bearer ' + env.KEY, accept: 'application/json' });
    const answer = await fetch(env.UPSTREAM + url.pathname.replace(/^\\/api/, ''), { headers });
    for (let i = 0; i < ${lines}; i++) console.log(${JSON.stringify(LINE)});
    return answer;
  },
};`,
});
const counts = [0, 1, 10];
const mf = benchMiniflare(counts.map(worker));
const base = (await mf.ready).toString().replace(/\/$/, '');
const tmp = mkdtempSync(path.join(tmpdir(), 'log-cost-'));
const runs = Object.fromEntries(counts.map((n) => [n, []]));
try {
  for (let i = 0; i < REPS; i++) {
    for (const n of counts) {
      const file = path.join(tmp, `log${n}.lua`);
      writeFileSync(file, `wrk.headers["Host"] = "log${n}.bench"\n`);
      const { stdout } = await promisify(execFile)('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '-s', file, `${base}/api/v1/wallet`]);
      runs[n].push(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1]));
    }
  }
} finally {
  await mf.dispose();
  await sim.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`GET /v1/wallet through a JS pass-through, 16 connections, ${SECONDS} s × ${REPS} alternating runs (medians):\n`);
console.log('| log lines per request | req/s | of 0 lines |\n|---|---|---|');
for (const n of counts) console.log(`| ${n} | ${Math.round(median(runs[n]))} | ${((median(runs[n]) / median(runs[0])) * 100).toFixed(0)}% |`);
