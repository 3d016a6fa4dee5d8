// One workerd (Miniflare) for the benchmarks, Workers routed by Host, and
// our Worker as wrangler.toml describes it (the same Durable Objects).
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { ROOT } from '../support/stack.mjs';

export function benchMiniflare(workers, options = {}) {
  return new Miniflare({
    ...options,
    host: '127.0.0.1',
    port: 0,
    // Our Worker writes one log line per request, as in production; drained
    // here. BENCH_STDERR=1 shows workerd's errors (a Worker that fails to start).
    handleRuntimeStdio(stdout, stderr) { stdout.resume(); if (process.env.BENCH_STDERR) stderr.pipe(process.stderr); else stderr.resume(); },
    workers,
  });
}

/** Our built Worker at Host `ours.bench`, with `bindings` as its vars and secrets. */
export function ourWorker(bindings) {
  return {
    name: 'ours',
    routes: ['ours.bench/*'],
    modules: true,
    scriptPath: path.join(ROOT, 'edge/build/index.js'),
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    bindings,
    durableObjects: {
      IDEMPOTENCY: { className: 'IdempotencyLedger', useSQLite: true },
      CONTROL: { className: 'EdgeControl', useSQLite: true },
      INBOX: { className: 'WebhookInbox', useSQLite: true },
    },
  };
}

/** The bare Rust pass-through (tests/bench/bare-worker) at Host `bare-rs.bench`. */
export function bareRsWorker(bindings) {
  return {
    name: 'bare-rs',
    routes: ['bare-rs.bench/*'],
    modules: true,
    scriptPath: path.join(ROOT, 'tests/bench/bare-worker/build/index.js'),
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    bindings,
  };
}
