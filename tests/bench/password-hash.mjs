// What a password hash costs in workerd, for issue 21's sign-in: PBKDF2-
// HMAC-SHA256 through WebCrypto (`crypto.subtle.deriveBits`, 16-byte salt,
// 256 bits) at Cloudflare's production cap of 100,000 iterations and at
// OWASP's 600,000, in a plain JS Worker on one workerd (Miniflare), the
// counts alternating, N derivations each. Timed from outside: inside a
// Worker the clock only moves on I/O. Prints each count's median and p90
// wall time per derivation, or the runtime's refusal.
//   node tests/bench/password-hash.mjs [N=10]
import { Miniflare } from 'miniflare';

const N = Number(process.argv[2]) || 10;
const COUNTS = [100_000, 600_000];
const script = `export default { async fetch(req) {
  const iterations = Number(new URL(req.url).searchParams.get('iterations'));
  try {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('correct horse battery staple'), 'PBKDF2', false, ['deriveBits']);
    const salt = crypto.getRandomValues(new Uint8Array(16));
    await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256);
    return new Response('ok');
  } catch (e) {
    return new Response(String(e), { status: 500 });
  }
} }`;

const mf = new Miniflare({ modules: true, script, host: '127.0.0.1', compatibilityDate: '2026-04-01' });
const url = await mf.ready;
const times = Object.fromEntries(COUNTS.map((c) => [c, []]));
const refused = {};
try {
  await fetch(`${url}?iterations=1000`); // the isolate's start is not a derivation
  for (let i = 0; i < N; i++) {
    for (const c of COUNTS) {
      const t = performance.now();
      const res = await fetch(`${url}?iterations=${c}`);
      const body = await res.text();
      if (res.status !== 200) refused[c] = body;
      else times[c].push(performance.now() - t);
    }
  }
} finally {
  await mf.dispose();
}
const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
console.log(`| PBKDF2-HMAC-SHA256 iterations | derivations | median ms | p90 ms |\n|---|---|---|---|`);
for (const c of COUNTS) {
  if (refused[c]) console.log(`| ${c.toLocaleString('en')} | refused: ${refused[c]} | | |`);
  else console.log(`| ${c.toLocaleString('en')} | ${times[c].length} | ${at(times[c], 0.5).toFixed(1)} | ${at(times[c], 0.9).toFixed(1)} |`);
}
