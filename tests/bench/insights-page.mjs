// The Insights page's time to its 30-day chart, with the done-when's ledger:
// 20,000 labels of four carriers over 90 days, bought on the simulator and
// announced by its signed events (tests/support/ledger-seed.mjs), in
// Chromium in front of the real Worker in workerd. Measured from the click
// on "Insights" in the menu to the chart's 30 bars in the page:
//   cold: a fresh browser context each time (the page's pack fetched: its
//     chunk files in one, scripts/app-packs.mjs);
//   cold, one file at a time: the same with the pack's request refused, so
//     the loader fetches each chunk file on its own (as before packs);
//   warm: the same context, leaving for Ship and coming back.
// Also the `/api/insights?period=30d` answer alone at the Worker, from the
// page, for comparison; and the CSV export of every label, read part by
// part with Node's fetch: when its headers, first part and last byte came.
// At this scale it also checks what tests/app-insights.test.mjs checks on a
// few hundred labels: the 30 days' totals and the whole export (streamed,
// no length, every label once) equal the simulator's sums to the cent.
//   scripts/build-edge && scripts/build-app && cargo build --profile native -p sim \
//     && node tests/bench/insights-page.mjs     (BENCH_LABELS=20000 BENCH_ROUNDS=10)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startStack } from '../support/stack.mjs';
import { launch } from '../support/browser.mjs';
import { App } from '../support/pages.mjs';
import { buyOnSim, untilLedgerHolds } from '../support/ledger-seed.mjs';

const LABELS = Number(process.env.BENCH_LABELS || 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 10);
const SECRET = `whsec_${randomBytes(16).toString('hex')}`;

const stack = await startStack({ edgeSecrets: { WEBHOOK_SECRET: SECRET } });
const browser = await launch();
try {
  await stack.sim.control('PUT', '/__sim/accounts/acct_demo/webhook', { url: `${stack.edge.url}/hooks/v1/label-created`, secret: SECRET });
  const started = Date.now();
  await buyOnSim(stack, { count: LABELS, days: 90, now: Math.floor(Date.now() / 1000) });
  const viewer = await stack.edge.session(stack.users.viewer);
  const held = async () => (await (await fetch(`${stack.edge.url}/api/insights?period=90d`, { headers: { cookie: viewer.cookie } })).json()).totals.labels;
  await untilLedgerHolds(LABELS, held, 600_000);
  const seeding = (Date.now() - started) / 1000;

  /** Clicks "Insights" and waits for the chart's 30 bars; returns ms. */
  const toChart = async (page) => {
    const t = performance.now();
    await new App(page, stack).nav('Insights');
    await page.waitForFunction(() => document.querySelectorAll('svg g.bar').length === 30, null, { timeout: 30000, polling: 'raf' });
    return performance.now() - t;
  };
  const cold = [], unpacked = [], warm = [], api = [], fetched = [], fetchedUnpacked = [];
  /** Where a cold open's time goes: the chunk files it fetched, and when the
   * last of them and the insights answer arrived (ms after the click). */
  const breakdown = (page, t0) => page.evaluate((t0) => {
    const after = performance.getEntriesByType('resource').filter((e) => e.startTime >= t0);
    const wasm = after.filter((e) => e.name.endsWith('.wasm') && e.responseEnd > 0);
    const data = after.find((e) => e.name.includes('/api/insights'));
    return { files: wasm.length, bytes: wasm.reduce((a, e) => a + e.encodedBodySize, 0), wasmEnd: Math.max(...wasm.map((e) => e.responseEnd)) - t0, dataStart: data ? data.startTime - t0 : NaN, dataEnd: data ? data.responseEnd - t0 : NaN };
  }, t0);
  for (let i = 0; i < ROUNDS; i++) {
    // The baseline, in the same run: the pack refused, each file on its own.
    {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.route('**/pack_*', (route) => route.abort('blockedbyclient'));
      const page = await context.newPage();
      await new App(page, stack).signIn(stack.users.viewer);
      const mark = await page.evaluate(() => performance.now());
      unpacked.push(await toChart(page));
      fetchedUnpacked.push(await breakdown(page, mark));
      await context.close();
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const app = new App(page, stack);
    await app.signIn(stack.users.viewer);
    const mark = await page.evaluate(() => performance.now());
    cold.push(await toChart(page));
    fetched.push(await breakdown(page, mark));
    await app.nav('Ship');
    await page.getByRole('heading', { level: 1 }).waitFor();
    warm.push(await toChart(page));
    api.push(await page.evaluate(async () => {
      const t = performance.now();
      await (await fetch('/api/insights?period=30d&tz=' + -new Date().getTimezoneOffset())).json();
      return performance.now() - t;
    }));
    await context.close();
  }
  // The export, read as it arrives (nothing else running meanwhile).
  const exports = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const res = await fetch(`${stack.edge.url}/api/ledger/export.csv`, { headers: { cookie: viewer.cookie } });
    const headers = performance.now() - t;
    let first = 0, bytes = 0;
    for await (const chunk of res.body) {
      if (bytes === 0) first = performance.now() - t;
      bytes += chunk.length;
    }
    exports.push({ headers, first, last: performance.now() - t, bytes });
  }
  // The test command's checks, at this scale.
  const insights = await (await fetch(`${stack.edge.url}/api/insights?period=30d`, { headers: { cookie: viewer.cookie } })).json();
  const month = await stack.sim.control('GET', `/__sim/accounts/acct_demo/label-sums?env=live&since=${insights.since}&until=${insights.until + 1}`);
  assert.equal(insights.totals.labels, month.all.labels);
  assert.equal(insights.totals.spend_cents, month.all.rate_cents);
  const whole = await fetch(`${stack.edge.url}/api/ledger/export.csv`, { headers: { cookie: viewer.cookie } });
  assert.equal(whole.headers.get('content-length'), null, 'streamed');
  const rows = (await whole.text()).trim().split('\n').slice(1).map((l) => l.split(','));
  const all = await stack.sim.control('GET', `/__sim/accounts/acct_demo/label-sums?env=live&since=0&until=${Math.floor(Date.now() / 1000) + 3600}`);
  assert.equal(new Set(rows.map((r) => r[10])).size, rows.length, 'no label twice');
  assert.equal(rows.length, LABELS);
  assert.equal(rows.length, all.all.labels);
  assert.equal(rows.reduce((t, r) => t + Math.round(Number(r[5]) * 100), 0), all.all.rate_cents);
  const checked = `checked: the 30 days hold ${insights.totals.labels} labels, ${insights.totals.spend_cents} cents, and the export every one of the ${rows.length} labels once, ${all.all.rate_cents} cents: the simulator's sums`;
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(0);
    return `${q(0.5)} | ${q(0.9)} | ${s[s.length - 1].toFixed(0)}`;
  };
  console.log(`${LABELS} labels seeded and in the ledger in ${seeding.toFixed(0)} s; ${ROUNDS} rounds, Chromium, desktop width; ${checked}.\n`);
  console.log('| to the 30-day chart (ms) | p50 | p90 | max |\n|---|---|---|---|');
  console.log(`| cold (fresh context: the page's pack fetched) | ${stats(cold)} |`);
  console.log(`| cold, the pack refused: one file at a time | ${stats(unpacked)} |`);
  console.log(`| warm (back from Ship) | ${stats(warm)} |`);
  console.log(`| GET /api/insights?period=30d alone, from the page | ${stats(api)} |`);
  console.log(`\n| the CSV export of ${LABELS} labels, ${exports[0].bytes} B (ms) | p50 | p90 | max |\n|---|---|---|---|`);
  for (const [key, what] of [['headers', 'headers'], ['first', 'first part'], ['last', 'last byte']]) console.log(`| ${what} | ${stats(exports.map((x) => x[key]))} |`);
  const p50 = (runs, key) => stats(runs.map((x) => x[key])).split(' | ')[0];
  for (const [what, runs] of [['A cold open', fetched], ['One file at a time, it', fetchedUnpacked]]) {
    console.log(`\n${what} fetches ${runs[0].files} wasm files (${runs[0].bytes} B as sent); after the click, the last arrives at (p50) ${p50(runs, 'wasmEnd')} ms, the insights request starts at ${p50(runs, 'dataStart')} ms and is answered at ${p50(runs, 'dataEnd')} ms.`);
  }
} finally {
  await browser.close();
  await stack.stop();
}
