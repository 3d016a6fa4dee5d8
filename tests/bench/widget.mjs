// The storefront widget's cost to a shopper: everything a shopper loads
// (raw, gzip -9, brotli 11), then, in headless Debian Chromium on loopback
// (the demo shop on its own origin, the real Worker in workerd, the real
// simulator), the time from the embed script running to an interactive
// address form, and from "Get rates" to the options shown.
//   cargo build --profile native -p sim && scripts/build-app && scripts/build-edge && node tests/bench/widget.mjs
//
// Embed → interactive, on the shop page's clock, each load in a fresh
// context (empty cache): from the embed script's arrival (its resource
// timing `responseEnd`; an async script runs as soon as it has arrived)
// to the widget's `ready` event at the shop's listener (the widget sends it
// after its first render, handlers attached: the form is usable).
// "Get rates" → options, on the widget frame's clock: the click, the
// `/api/v1/rates` resource timing `responseEnd`, and a MutationObserver's
// time when the new options are in the DOM. Each quote asks for another
// ZIP code, so none is the same request as another.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import path from 'node:path';
import { ROOT } from '../support/stack.mjs';
import { engines, startWidgetStack, widgetFrame, shopEvent, fillDestination } from '../support/widget.mjs';

const LOADS = Number(process.env.BENCH_LOADS || 15);
const QUOTES = Number(process.env.BENCH_QUOTES || 25);
const kb = (n) => (n / 1024).toFixed(1);
const ms = (n) => n.toFixed(1);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// 1. What a shopper loads: the embed script on the shop's page, then the widget page and its files.
const dist = path.join(ROOT, 'dist/widget');
const sizes = readdirSync(dist).filter((f) => /\.(wasm|js|css|html)$/.test(f)).map((f) => {
  const buf = readFileSync(path.join(dist, f));
  return {
    name: f.replace(/-[0-9a-f]{12,16}(?=[._])/, ''),
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    br: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
});
const total = sizes.reduce((t, s) => ({ raw: t.raw + s.raw, gzip: t.gzip + s.gzip, br: t.br + s.br }), { raw: 0, gzip: 0, br: 0 });

// 2. Timings against the real stack.
const stack = await startWidgetStack({ vars: { WIDGET_IP_PER_MINUTE: '1000' } });
const browser = await engines.chromium.launch();
const context = (ip) => browser.newContext({ extraHTTPHeaders: { 'cf-connecting-ip': ip } });

const interactive = [];
for (let i = 0; i < LOADS; i++) {
  const ctx = await context(`198.51.100.${i + 1}`);
  const page = await ctx.newPage();
  await page.goto(`${stack.shop.url}/?${stack.shop.query}`);
  const ready = await shopEvent({ page, engine: engines.chromium }, 'ready');
  const embed = await page.evaluate(() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('/widget/embed.js')).responseEnd);
  interactive.push(ready.at - embed);
  await ctx.close();
}

const ctx = await context('198.51.100.200');
const page = await ctx.newPage();
await page.goto(`${stack.shop.url}/?${stack.shop.query}`);
const frame = await widgetFrame({ page, engine: engines.chromium });
await fillDestination(frame, { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' });
const quotes = [];
for (let i = 0; i < QUOTES; i++) {
  await frame.locator('#to-zip').fill(String(10001 + i));
  quotes.push(await frame.evaluate(() => new Promise((resolve) => {
    const seen = performance.getEntriesByType('resource').length;
    let asked = false;
    const obs = new MutationObserver(() => {
      // Asking first (the old options go), then the new options.
      if (document.querySelector('.widget-asking')) { asked = true; return; }
      if (!asked || !document.querySelector('label.widget-option')) return;
      const shown = performance.now();
      obs.disconnect();
      // The resource entry is queued after the response ends; give it a task.
      setTimeout(() => {
        const entry = performance.getEntriesByType('resource').slice(seen).filter((e) => e.name.endsWith('/api/v1/rates')).pop();
        resolve({ click, responseEnd: entry.responseEnd, shown });
      }, 0);
    });
    obs.observe(document.body, { childList: true, subtree: true });
    const click = performance.now();
    document.querySelector('form.widget-form button[type="submit"]').click();
  })));
}
await ctx.close();
await browser.close();
await stack.stop();

const network = quotes.map((q) => q.responseEnd - q.click);
const render = quotes.map((q) => q.shown - q.responseEnd);
const whole = quotes.map((q) => q.shown - q.click);

console.log('| artifact | raw KiB | gzip KiB | brotli KiB |\n|---|---|---|---|');
for (const s of sizes) console.log(`| ${s.name} | ${kb(s.raw)} | ${kb(s.gzip)} | ${kb(s.br)} |`);
console.log(`| **everything a shopper loads** | ${kb(total.raw)} | ${kb(total.gzip)} | ${kb(total.br)} (${(total.br / 1000).toFixed(1)} KB) |`);
console.log('');
console.log('| measure | runs | median ms | p90 ms | min ms | max ms | target |\n|---|---|---|---|---|---|---|');
const row = (name, xs, target) => console.log(`| ${name} | ${xs.length} | ${ms(median(xs))} | ${ms(pct(xs, 0.9))} | ${ms(Math.min(...xs))} | ${ms(Math.max(...xs))} | ${target} |`);
row('embed script → interactive address form (cold cache)', interactive, '< 500');
row('click "Get rates" → response complete', network, '');
row('response complete → options shown', render, '< 100');
row('click "Get rates" → options shown', whole, '');
