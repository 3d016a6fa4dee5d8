// The main Worker's wasm is what every one of its isolates loads and
// compiles: it stays at most 450 KiB gzip (issue 20), and the label PDF
// merge stays in the PDF Worker. Reads the builds scripts/build-edge made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { ROOT } from './support/stack.mjs';

const CAP_KIB = 450;
const wasm = (dir) => readFileSync(path.join(ROOT, dir, 'index_bg.wasm'));
const kib = (bytes) => bytes / 1024;

test(`the main Worker's wasm is at most ${CAP_KIB} KiB gzip and carries no PDF merge; the PDF Worker's does`, () => {
  const main = wasm('edge/build');
  const gzip = kib(gzipSync(main, { level: 9 }).length);
  assert.ok(gzip <= CAP_KIB, `edge/build/index_bg.wasm is ${gzip.toFixed(1)} KiB gzip, over its ${CAP_KIB} KiB (see BENCHMARKS.md, "The PDF Worker")`);
  // lopdf's panic locations name its source files wherever it is linked.
  assert.ok(!main.includes('lopdf'), 'lopdf is linked into the main Worker');
  assert.ok(wasm('pdf/build').includes('lopdf'), 'the PDF Worker links lopdf');
});
