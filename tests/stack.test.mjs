// The test stack's own promises: a start that fails leaves nothing running
// (a simulator left behind once kept a test file, and CI, waiting for good).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from './support/stack.mjs';

/** This process's children running the simulator binary. */
const simulators = () => spawnSync('pgrep', ['-P', String(process.pid), '-f', 'native/sim'], { encoding: 'utf8' }).stdout.trim();

test('a stack whose Worker cannot start throws, and leaves no simulator running', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parcel-stack-'));
  // A file where the Workers' state directory must go: workerd cannot start.
  const persist = path.join(dir, 'not-a-directory');
  writeFileSync(persist, '');
  try {
    await assert.rejects(startStack({ persist }));
    assert.equal(simulators(), '', 'the simulator is still running');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
