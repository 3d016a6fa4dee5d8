// What the Worker's widget quote cache saves on a replayed shopper
// workload: the same deterministic workload (seeded) is replayed against
// our Worker twice in one workerd (Miniflare), with the cache on and off,
// and the rates calls that reached the service are counted.
//
// The workload: SESSIONS shoppers over 30 minutes, each with their own
// address and client IP. A third are logged-in customers, whose widget
// quotes their address on every page view (setDestination); guests type it
// on some views. Each session views 1 to 8 pages (product pages of a
// 12-product catalogue by popularity, or the cart), 40 s apart on average;
// some shoppers change the cart's quantity, click "Get rates" twice or
// reload. The replay runs SPEEDUP times faster than real time, so the
// cache's lifetime is divided by the same factor (120 s at 60x = 2 s):
// each request meets the cache state it would have met in real time.
//   scripts/build-edge && cargo build --profile native -p sim && node tests/bench/widget-cache.mjs
import http from 'node:http';
import { benchMiniflare, benchmarkKey, ourWorker } from './miniflare.mjs';
import { newKeys, startSim } from '../support/stack.mjs';

const SESSIONS = Number(process.env.BENCH_SESSIONS || 300);
const SPEEDUP = Number(process.env.BENCH_SPEEDUP || 60);
const CACHE_SECONDS = 120;
const WINDOW_MINUTES = 30;
const SHOP = 'https://shop.bench';
const FROM = { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };

// mulberry32: the same workload on every run.
function random(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The workload: `{at, shopper, to, parcel}` quotes, `at` in virtual seconds. */
function workload() {
  const rnd = random(16);
  const pick = (weights) => { let r = rnd() * weights.reduce((a, b) => a + b); return weights.findIndex((w) => (r -= w) < 0); };
  const exp = (mean) => -Math.log(1 - rnd()) * mean;
  // 12 products, popularity ~ 1/rank.
  const products = Array.from({ length: 12 }, (_, i) => ({ weight_oz: 8 + i * 6, length: 6 + i, width: 5 + (i % 4), height: 2 + (i % 5) }));
  const popularity = products.map((_, i) => 1 / (i + 1));
  const quotes = [];
  for (let s = 0; s < SESSIONS; s++) {
    const to = { name: 'Shopper', street1: `${100 + s} Elm St`, city: 'Brooklyn', state: 'NY', zip: String(11201 + (s % 40)), country: 'US' };
    const loggedIn = rnd() < 1 / 3;
    let typed = false;
    let at = rnd() * WINDOW_MINUTES * 60;
    const cart = [];
    const views = Math.min(8, 1 + Math.floor(exp(1.5)));
    for (let v = 0; v < views; v++) {
      const onCart = cart.length > 0 && rnd() < 0.3;
      let parcel;
      if (onCart) {
        const weight = cart.reduce((w, p) => w + p.weight_oz, 0);
        parcel = { weight_oz: weight, length: Math.max(...cart.map((p) => p.length)), width: Math.max(...cart.map((p) => p.width)), height: cart.reduce((h, p) => h + p.height, 0) };
      } else {
        parcel = products[pick(popularity)];
        if (rnd() < 0.4) cart.push(parcel);
      }
      const quote = (when, p = parcel) => quotes.push({ at: when, shopper: s, to, parcel: { ...p } });
      // Logged in: the widget quotes at once. A guest types the address on some pages.
      const asks = loggedIn || rnd() < (onCart ? 0.9 : typed ? 0.3 : 0.5);
      if (asks) {
        typed = true;
        quote(at);
        if (rnd() < 0.1) quote(at + 2); // "Get rates" clicked again
        if (rnd() < 0.1) quote(at + 5 + exp(10)); // a reload
        if (onCart && rnd() < 0.15) {
          quote(at + 8, { ...parcel, weight_oz: parcel.weight_oz * 2, height: parcel.height * 2 }); // quantity 2
          if (rnd() < 0.5) quote(at + 15); // and back to 1
        }
      }
      at += exp(40);
    }
  }
  return quotes.sort((a, b) => a.at - b.at);
}

function post(base, host, body, ip) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(`${base}/api/v1/rates`, {
      method: 'POST',
      agent: false,
      headers: { host, origin: `http://${host}`, 'parcel-widget-origin': SHOP, 'cf-connecting-ip': ip, 'content-type': 'application/json' },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, hit: res.headers['x-parcel-cache'] === 'hit', ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const quotes = workload();
const keys = newKeys();
const sim = await startSim({ keys });
const key = await benchmarkKey(sim);
const worker = (name, cacheSeconds) => ({
  ...ourWorker({
    UPSTREAM_URL: sim.url,
    SVC_LIVE_KEY: key,
    SESSION_SECRET: 'b'.repeat(64),
    WIDGET_ORIGINS: SHOP,
    WIDGET_SHIP_FROM: JSON.stringify(FROM),
    WIDGET_IP_PER_MINUTE: '10000',
    WIDGET_QUOTE_CACHE_SECONDS: String(cacheSeconds),
  }),
  name,
  routes: [`${name}.bench/*`],
});
const scaled = Math.max(1, Math.round(CACHE_SECONDS / SPEEDUP));
const mf = benchMiniflare([worker('cached', scaled), worker('uncached', 0)]);
const base = (await mf.ready).toString().replace(/\/$/, '');

async function replay(host) {
  const started = performance.now();
  const results = await Promise.all(quotes.map(async (q) => {
    const due = started + (q.at * 1000) / SPEEDUP;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const r = await post(base, host, { from_address: FROM, to_address: q.to, parcel: q.parcel }, `198.51.100.${q.shopper % 250}`);
    return { ...r, minute: Math.floor(q.at / 60) };
  }));
  const bad = results.filter((r) => r.status !== 200);
  if (bad.length) throw new Error(`${bad.length} quotes failed (first: ${bad[0].status})`);
  return results;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : NaN; };
const p90 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(0.9 * s.length))]; };
const peak = (rs) => Math.max(...Object.values(rs.filter((r) => !r.hit).reduce((m, r) => ({ ...m, [r.minute]: (m[r.minute] || 0) + 1 }), {})));

try {
  // Uncached first, then cached: both meet a warm simulator.
  const off = await replay('uncached.bench');
  const on = await replay('cached.bench');
  const upstream = (rs) => rs.filter((r) => !r.hit).length;
  const hits = on.filter((r) => r.hit);
  const misses = on.filter((r) => !r.hit);
  console.log(`Workload: ${SESSIONS} shopper sessions, ${quotes.length} widget quotes over ${WINDOW_MINUTES} minutes, replayed ${SPEEDUP}x faster (cache ${CACHE_SECONDS} s = ${scaled} s).\n`);
  console.log('| cache | quotes | rates calls upstream | saved | busiest minute, calls upstream | p50 ms | p90 ms |\n|---|---|---|---|---|---|---|');
  console.log(`| off | ${off.length} | ${upstream(off)} | | ${peak(off)} | ${median(off.map((r) => r.ms)).toFixed(2)} | ${p90(off.map((r) => r.ms)).toFixed(2)} |`);
  console.log(`| ${CACHE_SECONDS} s | ${on.length} | ${upstream(on)} | ${(100 * (1 - upstream(on) / upstream(off))).toFixed(1)}% | ${peak(on)} | ${median(on.map((r) => r.ms)).toFixed(2)} | ${p90(on.map((r) => r.ms)).toFixed(2)} |`);
  console.log(`\nWith the cache: ${hits.length} hits (p50 ${median(hits.map((r) => r.ms)).toFixed(2)} ms), ${misses.length} misses (p50 ${median(misses.map((r) => r.ms)).toFixed(2)} ms).`);
} finally {
  await mf.dispose();
  await sim.stop();
}
