// The batch screens in headless Chromium, through the real Worker and
// simulator: parsing and checking 5,000 rows in the browser, frame times
// while the 5,000-row table scrolls, the page's memory with 5,000 rows, and
// the transfers (the dashboard's first load, the batch screens' chunks).
// Run after scripts/build-app, scripts/build-edge and
// `cargo build --profile native -p sim`:  node tests/bench/batches.mjs
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startStack } from '../support/stack.mjs';
import { RAISED, TEMPLATE, Batches, batchesOn, csv, templateRows } from '../support/batches.mjs';
import { chunks, firstLoad, sum } from '../support/sizes.mjs';

const RUNS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const kib = (n) => (n / 1024).toFixed(1);
const out = [];
const row = (what, value) => out.push(`| ${what} | ${value} |`);

/** JS heap, wasm memory and DOM nodes of the page. */
async function memory(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name) => metrics.find((m) => m.name === name)?.value ?? 0;
  const wasm = await page.evaluate(() => window.__wasm?.memory?.buffer.byteLength ?? 0);
  return `JS heap ${(metric('JSHeapUsedSize') / 1048576).toFixed(1)} MiB, wasm memory ${(wasm / 1048576).toFixed(1)} MiB, ${metric('Nodes')} DOM nodes`;
}

const stack = await startStack();
const s = await batchesOn(stack, { limits: RAISED });
// As tests/support/browser.mjs, with frames no longer held to the display's
// 60 Hz: the time between two frames is then the time a frame takes.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-frame-rate-limit', '--disable-gpu-vsync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The wasm's exports, to read its memory.
  await context.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; }));
  const page = await context.newPage();
  const b = new Batches(page, s);
  await b.signIn(s.users.operator);
  await b.newBatch();
  const file = csv(TEMPLATE, templateRows(5000));

  // Parse, map and check 5,000 rows: the app's own measure (performance.now
  // around the one pass in wasm) and the wall time from the file to the summary.
  const inApp = [];
  const wall = [];
  for (let i = 0; i < RUNS; i++) {
    const started = Date.now();
    await b.upload(`orders-${i}.csv`, file);
    await b.summary().getByText(`orders-${i}`, { exact: false }).waitFor({ state: 'detached' }).catch(() => {});
    await page.waitForFunction((n) => document.querySelector('[data-testid="rows-summary"]')?.textContent.includes('Every row is ready') && window.__runs !== n, i);
    wall.push(Date.now() - started);
    inApp.push(Number(/checked in (\d+) ms/.exec(await b.summary().innerText())[1]));
    await page.evaluate((n) => { window.__runs = n; }, i);
  }
  row('parse and check 5,000 rows in wasm (median of 5; the app\'s own performance.now)', `${median(inApp)} ms (runs: ${inApp.join(', ')})`);
  row('file chosen → summary on screen (median of 5)', `${median(wall)} ms`);
  row('import page with 5,000 rows', await memory(page));

  // The job's page with its 5,000 rows, scrolled frame by frame.
  await b.fillSender();
  await b.plan();
  await page.getByRole('button', { name: 'All (5000)' }).or(page.getByRole('button', { name: 'All (5,000)' })).waitFor();
  await page.locator('[data-testid="rows-viewport"] tr[data-index="0"]').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="rows-viewport"] tbody tr').length > 10);
  const frames = await page.evaluate(async () => {
    const el = document.querySelector('[data-testid="rows-viewport"]');
    const times = [];
    let last = performance.now();
    // 600 frames: down the 5,000 rows at 400 px a frame, then back up.
    for (let i = 0; i < 600; i++) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
      el.scrollTop += i < 300 ? 400 : -400;
    }
    return times.slice(1);
  });
  row('frame time scrolling the 5,000-row table (600 frames of 400 px, frame rate unlimited)', `p50 ${pct(frames, 0.5).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`);
  row('job page with 5,000 rows', await memory(page));
  await context.close();
} finally {
  await browser.close();
  await stack.stop();
}
const dist = path.join(ROOT, 'dist');
const first = sum(firstLoad(dist)).br;
const { files, splits } = chunks(dist);
const batches = files.filter((f) => splits.batches.includes(f.file)).reduce((t, f) => t + f.br, 0);
row('dashboard first load (dist/index.html: wasm, js, css, html; brotli 11)', `${kib(first)} KiB = ${(first / 1000).toFixed(1)} KB`);
row('batch screens\' chunks (fetched when a batch page is first opened)', `${kib(batches)} KiB = ${(batches / 1000).toFixed(1)} KB`);
console.log('| measure | value |\n|---|---|');
console.log(out.join('\n'));
