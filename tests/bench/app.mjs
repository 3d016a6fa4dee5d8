// The dashboard's cost to a user: its first load's size (wasm, JS, CSS, HTML;
// raw, gzip -9, brotli 11) and, in headless Chromium on loopback against the
// real Worker (workerd) and simulator, the time from navigation to an
// interactive ship form, a fresh page's first quote, and from clicking "Get
// rates" to the rates table.
//   cargo build --profile native -p sim && scripts/build-app && scripts/build-edge && node tests/bench/app.mjs
import path from 'node:path';
import { firstLoad, sum } from '../support/sizes.mjs';
import { ROOT, startStack } from '../support/stack.mjs';
import { launch } from '../support/browser.mjs';
import { App, ShipPage } from '../support/pages.mjs';

const LOADS = Number(process.env.BENCH_LOADS || 9);
const QUOTES = Number(process.env.BENCH_QUOTES || 25);
const kb = (n) => (n / 1024).toFixed(1);
const ms = (n) => n.toFixed(1);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// 1. Transfer size of everything the first load fetches.
const sizes = firstLoad(path.join(ROOT, 'dist')).map((f) => ({ ...f, name: f.file.replace(/-[0-9a-f]{16}(?=[._])/, '') }));
const total = sum(sizes);

// 2. Timings against the real stack.
const stack = await startStack();
const browser = await launch();
let cookies;
{
  const context = await browser.newContext();
  const page = await context.newPage();
  await new App(page, stack).signIn(stack.users.operator);
  cookies = await context.cookies();
  await context.close();
}

// Navigation → the ship form's submit button in the DOM (Leptos attaches
// handlers before inserting, so present = interactive). Each load in a fresh
// context: empty HTTP cache, the session cookie only.
const interactive = [];
for (let i = 0; i < LOADS; i++) {
  const context = await browser.newContext();
  await context.addCookies(cookies);
  const page = await context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('form.ship-form button[type="submit"]')) {
        window.__interactive = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(stack.edge.url + '/ship');
  await page.waitForFunction(() => window.__interactive !== undefined, null, { timeout: 15000 });
  interactive.push(await page.evaluate(() => window.__interactive));
  await context.close();
}

// One "Get rates" click, timed on the page's clock: the click, the rates
// response's end (resource timing) and the new quote's rows in the table
// (MutationObserver).
const timeQuote = (page) => page.evaluate(() => new Promise((resolve) => {
  const before = new Set([...document.querySelectorAll('tbody tr[data-rate-id]')].map((tr) => tr.dataset.rateId));
  const seen = performance.getEntriesByType('resource').length;
  const obs = new MutationObserver(() => {
    const rows = [...document.querySelectorAll('tbody tr[data-rate-id]')];
    if (rows.length && rows.every((tr) => !before.has(tr.dataset.rateId))) {
      const rendered = performance.now();
      obs.disconnect();
      // The resource entry is queued after the response ends; give it a task.
      setTimeout(() => {
        const entry = performance.getEntriesByType('resource').slice(seen).filter((e) => e.name.endsWith('/api/v1/rates')).pop();
        resolve({ click, responseEnd: entry.responseEnd, rendered });
      }, 0);
    }
  });
  obs.observe(document.body, { childList: true, subtree: true });
  const click = performance.now();
  document.querySelector('form.ship-form button[type="submit"]').click();
}));

// A merchant's first quote on a fresh page (cold cache): the form filled as
// a user fills it, then "Get rates" → the table. It includes both address
// checks, and whatever of the page's code is still on its way.
const firstQuote = [];
for (let i = 0; i < LOADS; i++) {
  const context = await browser.newContext();
  await context.addCookies(cookies);
  const page = await context.newPage();
  await page.goto(stack.edge.url + '/ship');
  await new ShipPage(page).fillAll();
  const q = await timeQuote(page);
  firstQuote.push(q.rendered - q.click);
  await context.close();
}

// Quotes on a page that has quoted once (both addresses checked): "Get
// rates" → response → table rendered.
const context = await browser.newContext();
await context.addCookies(cookies);
const page = await context.newPage();
await page.goto(stack.edge.url + '/ship');
const ship = new ShipPage(page);
await ship.fillAll();
await ship.getRates(); // validates both addresses once; later clicks only quote
let arrivals = 0;
page.on('response', (r) => { if (r.url().endsWith('/api/v1/rates')) arrivals++; });
const quotes = [];
for (let i = 0; i < QUOTES; i++) quotes.push(await timeQuote(page));
await context.close();
await browser.close();
await stack.stop();
if (arrivals !== QUOTES) throw new Error(`expected ${QUOTES} rate responses, saw ${arrivals}`);

const network = quotes.map((q) => q.responseEnd - q.click);
const render = quotes.map((q) => q.rendered - q.responseEnd);
const whole = quotes.map((q) => q.rendered - q.click);

console.log('| artifact | raw KiB | gzip KiB | brotli KiB |\n|---|---|---|---|');
for (const s of sizes) console.log(`| ${s.name} | ${kb(s.raw)} | ${kb(s.gzip)} | ${kb(s.br)} |`);
console.log(`| **initial transfer** | ${kb(total.raw)} | ${kb(total.gzip)} | ${kb(total.br)} |`);
console.log('');
console.log('| measure | runs | median ms | p90 ms | min ms | max ms | target |\n|---|---|---|---|---|---|---|');
const row = (name, xs, target) => console.log(`| ${name} | ${xs.length} | ${ms(median(xs))} | ${ms(pct(xs, 0.9))} | ${ms(Math.min(...xs))} | ${ms(Math.max(...xs))} | ${target} |`);
row('navigation → interactive ship form (cold cache)', interactive, '< 1000');
row('first quote on a fresh page: click "Get rates" → rates table (both address checks)', firstQuote, '');
row('click "Get rates" → response complete', network, '');
row('response complete → rates table rendered', render, '< 50');
row('click "Get rates" → rates table rendered', whole, '');
