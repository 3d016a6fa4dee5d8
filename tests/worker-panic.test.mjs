// A panic in a Worker's Rust traps its wasm instance. None of the four
// Workers can be made to panic on purpose, so tests/support/panic-worker,
// built as they are (worker-build, then scripts/worker-entry.mjs's plain
// fetch handler, only worker's own panic hook), panics when asked: the
// request that panicked gets an answer, not a hang, and the isolate's next
// request is answered by a fresh wasm instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { ROOT } from './support/stack.mjs';
import { until } from './support/wait.mjs';

const build = path.join(ROOT, 'tests/support/panic-worker/build');

test("after a panic, the isolate's next request is answered by a fresh wasm instance", async () => {
  assert.ok(existsSync(path.join(build, 'index.js')), `no ${build}: run scripts/build-edge panic (scripts/test does)`);
  // The plain handler is what is tested, not worker-build's own.
  assert.match(readFileSync(path.join(build, 'index.js'), 'utf8'), /=\{fetch\(request,env,ctx\)\{/);
  let log = '';
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    modules: true,
    scriptPath: path.join(build, 'index.js'),
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    handleRuntimeStdio(stdout, stderr) {
      stdout.on('data', (d) => { log += d; });
      stderr.on('data', (d) => { log += d; });
    },
  });
  try {
    const base = (await mf.ready).toString().replace(/\/$/, '');
    const get = async (p) => {
      const res = await fetch(base + p);
      return { status: res.status, text: await res.text() };
    };
    const first = await get('/instance');
    assert.equal(first.status, 200);
    // One instance serves request after request: a new id below is the reset.
    assert.deepEqual(await get('/instance'), first);

    const panicked = await get('/panic');
    assert.equal(panicked.status, 500, `the panicking request: ${panicked.status} ${panicked.text}`);
    // The log arrives through workerd's pipe, after or before the answer.
    await until(() => `the panic's message in the log:\n${log}`, () => /asked to panic/.test(log));

    const after = await get('/instance');
    assert.equal(after.status, 200, `after the panic: ${after.status} ${after.text}`);
    assert.notEqual(after.text, first.text, 'the instance that panicked answered again');
    assert.deepEqual(await get('/'), { status: 200, text: 'ok' });
  } finally {
    await mf.dispose();
  }
});
