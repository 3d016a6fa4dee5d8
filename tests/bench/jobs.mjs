// Batch jobs, measured through the real Worker in workerd and the simulator:
// - quoting throughput at the real 100/min, as a ratio to the job's share;
// - end-to-end time for N distinct rows against the floor N ÷ (limit × share)
//   plus processing, at the real limit and at raised ones;
// - workerd's CPU per row (its process's user+system time over the job);
// - a merged PDF of 100 labels: through the Worker (time, size; the first
//   download fetches and merges, the PDF Worker keeps the file for the next)
//   and natively (time, peak heap: pdf/examples/merge_pdfs.rs).
// Usage: node tests/bench/jobs.mjs [REAL_ROWS=120] [RAISED_ROWS=5000]
// (REAL_ROWS=0 skips the real limit's run; RAISED_ROWS must be at least 500)
// (after `cargo build --profile native -p sim` and `scripts/build-edge`).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SCOPES, RAISED_LIMITS, ROOT, keysWithLimits, newKeys, newUsers, startEdge, startSim } from '../support/stack.mjs';

const [REAL_ROWS = 120, RAISED_ROWS = 5000] = process.argv.slice(2).map(Number);
const SHARE = 0.6;
const LABELS_PER_SECOND = 20; // the simulator's processing pace (sim/README.md)

const address = (name, street1, zip = '11201', state = 'NY') => ({ name, street1, city: 'Brooklyn', state, zip, country: 'US' });
const FROM = address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA');
const rows = (n) => Array.from({ length: n }, (_, i) => ({
  reference: `#${i + 1}`, from_address: FROM, to_address: address(`Customer ${i + 1}`, `${i + 1} Elm St`),
  parcel: { weight_oz: 10 + (i % 7), length: 10, width: 8, height: 4 },
}));

/** workerd processes' CPU seconds (user + system) so far. */
function workerdCpu() {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workerd')) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(stat[11]) + Number(stat[12]);
    } catch { /* gone */ }
  }
  return ticks / 100;
}

async function stack(limits) {
  const sim = await startSim({ keys: newKeys() });
  const users = newUsers();
  // Keys at the table's limits, or raised ones (`/__sim/keys`).
  const keys = limits ? await keysWithLimits(sim, limits) : { live: (await sim.control('POST', '/__sim/keys', { env: 'live', scopes: ALL_SCOPES })).key, sandbox: (await sim.control('POST', '/__sim/keys', { env: 'sandbox', scopes: ALL_SCOPES })).key };
  await sim.control('PUT', '/__sim/accounts/acct_demo/wallet', { balance_cents: 100_000_000, card: 'ok', auto_reload: null });
  const edge = await startEdge({ upstream: sim.url, keys, users, sessionSecret: randomBytes(32).toString('hex') });
  const op = await edge.session(users.operator);
  const api = async (p, init = {}) => {
    const res = await fetch(edge.url + p, { ...init, headers: { cookie: op.cookie, origin: op.origin, 'content-type': 'application/json' } });
    if (!res.ok) throw new Error(`${p} → ${res.status} ${await res.text()}`);
    return res;
  };
  return { sim, edge, api, stop: async () => { await edge.stop(); await sim.stop(); } };
}

/** Runs a job of `n` rows to the end; moves the simulator's clock while a batch processes when `advance`. */
async function run(s, n, { advance }) {
  const job = await (await s.api('/api/jobs', { method: 'POST', body: JSON.stringify({ rule: { rule: 'cheapest' }, approval: { approval: 'buy_as_quoted', max_row_cents: 100000, max_total_cents: 1e9 }, rows: rows(n) }) })).json();
  const cpu0 = workerdCpu();
  const t0 = Date.now();
  await s.api(`/api/jobs/${job.id}/start`, { method: 'POST' });
  for (;;) {
    const j = await (await s.api(`/api/jobs/${job.id}`)).json();
    if (j.state === 'completed') return { job: j, seconds: (Date.now() - t0) / 1000, cpu: workerdCpu() - cpu0 };
    if (['paused', 'stopped'].includes(j.state)) throw new Error(`job ${j.state}: ${JSON.stringify(j.problem)}`);
    if (advance && j.chunks.some((c) => c.state === 'processing')) await s.sim.control('POST', '/__sim/clock/advance', { seconds: 60 });
    await new Promise((r) => setTimeout(r, 250));
  }
}

const out = [];
const say = (line) => { console.log(line); out.push(line); };

// 1. The real limit: 100 quotes a minute, the job's share 60.
if (REAL_ROWS > 0) {
  const s = await stack(null);
  try {
    const { job, seconds, cpu } = await run(s, REAL_ROWS, { advance: false });
    const quoteSpan = (job.stats.last_quote_at - job.stats.first_quote_at) || 1;
    const rate = job.stats.quote_calls / (quoteSpan / 60);
    const floor = (REAL_ROWS / (100 * SHARE)) * 60 + REAL_ROWS / LABELS_PER_SECOND;
    say(`real limit (100/min, share ${SHARE}): ${REAL_ROWS} rows, ${job.stats.quote_calls} quotes in ${quoteSpan} s = ${rate.toFixed(1)}/min, ${(rate / (100 * SHARE)).toFixed(2)} of the share; 429s ${job.stats.rate_limited}`);
    say(`  end to end ${seconds.toFixed(1)} s against a floor of ${floor.toFixed(1)} s (N ÷ (limit × share) + N ÷ ${LABELS_PER_SECOND}/s processing): ${(seconds / floor).toFixed(2)} × the floor`);
    say(`  workerd CPU ${(cpu * 1000 / REAL_ROWS).toFixed(2)} ms per row`);
  } finally {
    await s.stop();
  }
}

// 2. Raised limits: the Worker and the simulator are the only limit.
{
  const s = await stack(RAISED_LIMITS);
  try {
    const { job, seconds, cpu } = await run(s, RAISED_ROWS, { advance: true });
    const quoteSpan = (job.stats.last_quote_at - job.stats.first_quote_at) || 1;
    say(`raised limits (100,000/min): ${RAISED_ROWS} rows, ${job.stats.quote_calls} quotes in ${quoteSpan} s = ${(job.stats.quote_calls / quoteSpan).toFixed(0)}/s; end to end ${seconds.toFixed(1)} s (processing driven by the simulator's clock); ${job.chunks.length} chunk(s); 429s ${job.stats.rate_limited}`);
    say(`  workerd CPU ${(cpu * 1000 / RAISED_ROWS).toFixed(2)} ms per row (${cpu.toFixed(1)} s in all)`);
    // 3. A merged PDF of 100 labels through the Worker: 5 parts downloaded
    // for the first time (100 label fetches and the merge), then again (the
    // PDF Worker's kept file).
    let size = 0;
    const download = async (part) => {
      const t = performance.now();
      const res = await s.api(`/api/jobs/${job.id}/labels.pdf?part=${part}`);
      size = (await res.arrayBuffer()).byteLength;
      return performance.now() - t;
    };
    for (const when of ['first download', 'again (kept)']) {
      const times = [];
      for (let part = 1; part <= 5; part++) times.push(await download(part));
      times.sort((a, b) => a - b);
      say(`merged PDF of 100 labels through the Worker, ${when}: median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)}), ${size} bytes`);
    }
    // The same merge natively, with its peak heap.
    const label = path.join(tmpdir(), 'parcel-label.pdf');
    const any = job.id && (await (await s.api(`/api/jobs/${job.id}/rows?state=bought&limit=1`)).json()).rows[0];
    const pdf = await (await s.api(`/api/labels/${any.label_id}/pdf`)).arrayBuffer();
    writeFileSync(label, Buffer.from(pdf));
    const native = JSON.parse(execFileSync('cargo', ['run', '-q', '--release', '-p', 'pdf', '--example', 'merge_pdfs', '--', label, '100'], { cwd: ROOT }).toString());
    say(`merged PDF of 100 labels natively (pdf/examples/merge_pdfs.rs, median of 5): ${native.median_ms} ms, ${native.output_bytes} bytes out of ${native.input_bytes}, peak heap ${(native.peak_heap_bytes / 1024).toFixed(0)} KiB`);
  } finally {
    await s.stop();
  }
}
console.log('\n' + out.join('\n'));
