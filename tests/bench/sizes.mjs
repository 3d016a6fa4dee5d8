// Prints the transfer sizes of the wasm artifacts: the dashboard's first
// load file by file, each page's chunks (what opening it first fetches; a
// file two pages share counts for both), the storefront widget's first load
// and the Worker. Raw, gzip -9 and brotli (quality 11). Run after
// scripts/build-app and scripts/build-edge:  node tests/bench/sizes.mjs
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/stack.mjs';
import { chunks, firstLoad, measure, sum } from '../support/sizes.mjs';

const kb = (n) => (n / 1024).toFixed(1);
const unhashed = (f) => f.replace(/-[0-9a-f]{16}(?=[._])/, '');
const rows = [];
const app = firstLoad(path.join(ROOT, 'dist'));
rows.push(...app.map((f) => [`app ${unhashed(f.file)}`, f]), ['**app first load**', sum(app)]);
const { files, splits } = chunks(path.join(ROOT, 'dist'));
const byName = Object.fromEntries(files.map((f) => [f.file, f]));
for (const [page, names] of Object.entries(splits).sort()) {
  const own = names.find((n) => n.startsWith('split_'));
  rows.push([`chunk ${page}: its own file`, byName[own]], [`chunk ${page}: with the ${names.length - 1} shared files it fetches`, sum(names.map((n) => byName[n]))]);
}
rows.push([`all ${files.length} chunk files`, sum(files)]);
const widget = firstLoad(path.join(ROOT, 'dist/widget'), '/widget/');
rows.push(['**widget first load**', sum(widget)]);
// The main Worker and the PDF Worker behind its PDF binding.
for (const [name, dir] of [['worker', 'edge/build'], ['pdf worker', 'pdf/build']]) {
  for (const f of ['index_bg.wasm', 'index.js']) {
    if (existsSync(path.join(ROOT, dir, f))) rows.push([`${name} ${f}`, measure(path.join(ROOT, dir, f))]);
  }
}
console.log('| artifact | raw KiB | gzip KiB | brotli KiB |\n|---|---|---|---|');
for (const [name, m] of rows) console.log(`| ${name} | ${kb(m.raw)} | ${kb(m.gzip)} | ${kb(m.br)} |`);
