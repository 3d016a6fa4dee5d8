// Prints the transfer sizes of the wasm artifacts and the app's and widget's JS/CSS:
// raw, gzip -9 and brotli (quality 11). Run after scripts/build-app and
// scripts/build-edge:  node tests/bench/sizes.mjs
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import path from 'node:path';
import { ROOT } from '../support/stack.mjs';

const kb = (n) => (n / 1024).toFixed(1);
const measure = (file) => {
  const buf = readFileSync(file);
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    br: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};

const rows = [];
// The dashboard (dist/), the storefront widget (dist/widget/) and the batch
// screens (dist/batches/, loaded on demand): each one's initial transfer.
for (const [name, dir] of [['app', 'dist'], ['widget', 'dist/widget'], ['batches', 'dist/batches']]) {
  const dist = path.join(ROOT, dir);
  const own = [];
  for (const f of readdirSync(dist).filter((f) => /\.(wasm|js|css|html)$/.test(f))) {
    own.push([`${name} ${f.replace(/-[0-9a-f]{16}(?=[._])/, '')}`, measure(path.join(dist, f))]);
  }
  const total = own.reduce((t, [, m]) => ({ raw: t.raw + m.raw, gzip: t.gzip + m.gzip, br: t.br + m.br }), { raw: 0, gzip: 0, br: 0 });
  rows.push(...own, [`${name} total (initial transfer)`, total]);
}
// The main Worker and the PDF Worker behind its PDF binding.
for (const [name, dir] of [['worker', 'edge/build'], ['pdf worker', 'pdf/build']]) {
  for (const f of ['index_bg.wasm', 'index.js']) {
    if (existsSync(path.join(ROOT, dir, f))) rows.push([`${name} ${f}`, measure(path.join(ROOT, dir, f))]);
  }
}
console.log('| artifact | raw KiB | gzip KiB | brotli KiB |\n|---|---|---|---|');
for (const [name, m] of rows) console.log(`| ${name} | ${kb(m.raw)} | ${kb(m.gzip)} | ${kb(m.br)} |`);
