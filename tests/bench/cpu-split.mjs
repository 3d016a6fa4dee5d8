// Where the CPU of a forwarded call goes, by process and by workerd
// thread: bare-duties, duties-reading, bare-rs-log and ours (as in
// edge.mjs) driven in turn by wrk (16 connections) while /proc is read
// before and after, printed as CPU µs per request for workerd, its
// busiest thread, the simulator, this process (which reads workerd's logs)
// and wrk. When workerd's busiest thread is near 100%, its µs per request
// is what bounds the throughput.
// PERF=DIR also records workerd with `perf record -g` during each run
// (DIR/<way>.data, for `perf report --sort dso,sym`).
//   scripts/build-edge && cargo build --profile native -p sim && node tests/bench/cpu-split.mjs [rates|wallet]
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RATES_WRK, TICK_US, bareRsWorker, cpuTicks, descendants, dutiesWorker, benchMiniflare, benchBindings, benchmarkKey, ourWorker, signIn, signedInWrk, workerdPids } from './miniflare.mjs';
import { newKeys, newUsers, startSim } from '../support/stack.mjs';

const which = process.argv[2] || 'rates';
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const REPS = Number(process.env.BENCH_REPS || 3);
const sim = await startSim({ keys: newKeys() });
const key = await benchmarkKey(sim);
const users = newUsers();
const mf = benchMiniflare([
  ourWorker(benchBindings(sim, key, users)),
  dutiesWorker({ UPSTREAM: sim.url, KEY: key }),
  dutiesWorker({ UPSTREAM: sim.url, KEY: key }, { reading: true }),
  bareRsWorker({ UPSTREAM: sim.url, KEY: key, LOG: '1' }, 'bare-rs-log'),
]);
const base = (await mf.ready).toString().replace(/\/$/, '');
const cookie = await signIn(base, 'ours.bench', users.operator.token);
const tmp = mkdtempSync(path.join(tmpdir(), 'cpu-split-'));

const workerd = workerdPids();
const simPid = descendants(process.pid).find((p) => readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sim') ?? '';
function snapshot() {
  const s = { node: cpuTicks(process.pid), workerd: 0, threads: {} };
  for (const p of workerd) {
    s.workerd += cpuTicks(p);
    for (const t of readdirSync(`/proc/${p}/task`)) s.threads[`${p}/${t}`] = cpuTicks(`${p}/task/${t}`);
  }
  if (simPid) s.sim = cpuTicks(simPid);
  return s;
}

const ways = {
  'bare-duties': ['wrk.headers["Host"] = "bare-duties.bench"'],
  'duties-reading': ['wrk.headers["Host"] = "duties-reading.bench"'],
  'bare-rs-log': ['wrk.headers["Host"] = "bare-rs-log.bench"'],
  ours: signedInWrk('ours.bench', cookie),
};
const url = `${base}/api/v1/${which}`;
const rows = [];
try {
  for (let i = 0; i < REPS; i++) {
    for (const [way, headers] of Object.entries(ways)) {
      const file = path.join(tmp, `${way}.lua`);
      writeFileSync(file, [...headers, ...(which === 'rates' ? RATES_WRK : [])].join('\n') + '\n');
      const before = snapshot();
      // PERF=DIR: perf records workerd meanwhile (DIR/<way>.data).
      const perf = process.env.PERF ? `perf record -q -g -o ${process.env.PERF}/${way}.data -p ${workerd.join(',')} -- sleep ${SECONDS - 1} 2>/dev/null & ` : '';
      const { stdout } = await promisify(execFile)('bash', ['-c', `${perf}wrk -t2 -c16 -d${SECONDS}s -s ${file} ${url}; wait; cat /proc/$$/stat`]);
      const after = snapshot();
      if (/Non-2xx/.test(stdout)) throw new Error(`non-2xx answers from ${way}:\n${stdout}`);
      const n = Number(/(\d+) requests in/.exec(stdout)[1]);
      const wrkTicks = (() => { const f = stdout.trim().split('\n').pop().split(') ')[1].split(' '); return Number(f[13]) + Number(f[14]); })();
      const per = (d) => ((d * TICK_US) / n).toFixed(0);
      const busiest = Object.keys(after.threads).map((t) => after.threads[t] - (before.threads[t] ?? 0)).sort((a, b) => b - a);
      rows.push({ way, rps: (n / SECONDS).toFixed(0), workerd: per(after.workerd - before.workerd), thread1: per(busiest[0]), thread2: per(busiest[1] ?? 0), sim: simPid ? per(after.sim - before.sim) : '?', node: per(after.node - before.node), wrk: per(wrkTicks), threadBusy: ((busiest[0] * TICK_US) / (SECONDS * 1e6) * 100).toFixed(0) + '%' });
    }
  }
} finally {
  await mf.dispose();
  await sim.stop();
}
console.log(`POST|GET /v1/${which}, 16 connections, ${SECONDS} s runs, CPU µs per request:`);
console.log('| way | req/s | workerd | its busiest thread (busy) | next thread | simulator | node (logs) | wrk |');
for (const r of rows) console.log(`| ${r.way} | ${r.rps} | ${r.workerd} | ${r.thread1} (${r.threadBusy}) | ${r.thread2} | ${r.sim} | ${r.node} | ${r.wrk} |`);
