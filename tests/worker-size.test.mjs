// The main Worker's wasm is what every one of its isolates loads and
// compiles: it stays at most 450 KiB gzip (issue 20), and the label PDF
// merge stays in the PDF Worker. Reads the builds scripts/build-edge made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

// Organizations' sign-in, invitations and team live in the accounts Worker
// (domain/src/orgs/wire.rs): the main Worker only asks it.
test("the main Worker carries no password hashing or organization objects; the accounts Worker does", () => {
  const markers = ['pbkdf2_chain', 'AccountDirectory', 'parcel new-org v1'];
  const main = wasm('edge/build').toString('latin1') + readFileSync(path.join(ROOT, 'edge/build/index.js'), 'utf8');
  const accounts = wasm('accounts/build').toString('latin1') + readFileSync(path.join(ROOT, 'accounts/build/index.js'), 'utf8');
  for (const marker of markers) {
    assert.ok(!main.includes(marker), `${marker} is in the main Worker`);
    assert.ok(accounts.includes(marker), `${marker} is not in the accounts Worker`);
  }
});

// The webhook inbox and label ledger (and the insights queries on it) live
// in the ledger Worker, whose object the main Worker binds by script_name.
test('the main Worker carries no inbox object; the ledger Worker does', () => {
  const marker = 'webhookinbox_fetch';
  const js = (dir) => readFileSync(path.join(ROOT, dir, 'index.js'), 'utf8');
  assert.ok(!js('edge/build').includes(marker), 'the WebhookInbox class is in the main Worker');
  assert.ok(js('ledger/build').includes(marker), 'the WebhookInbox class is not in the ledger Worker');
});

// What a deploy uploads, as wrangler itself counts it: the wasm and the
// bundled JS together (offline: --dry-run builds and measures, sends nothing).
test(`wrangler deploy --dry-run counts the main Worker's upload at most ${CAP_KIB} KiB gzip`, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'parcel-dry-run-'));
  try {
    const res = spawnSync(path.join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', out], { cwd: ROOT, encoding: 'utf8' });
    const printed = `${res.stdout}\n${res.stderr}`;
    assert.equal(res.status, 0, printed);
    const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(printed);
    assert.ok(m, `no "Total Upload" line in:\n${printed}`);
    assert.ok(Number(m[2]) <= CAP_KIB, `the upload is ${m[2]} KiB gzip, over ${CAP_KIB} KiB`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
