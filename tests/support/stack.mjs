// Starts the real parts for a test file: the v1 simulator (native binary,
// 127.0.0.1, port 0) and our Worker in workerd via wrangler, pointed at it.
// Keys are random per run, so a leak scan knows exactly what to look for.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { unstable_startWorker } from 'wrangler';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function newKeys() {
  return {
    live: `svc_live_${randomBytes(16).toString('hex')}`,
    sandbox: `svc_test_${randomBytes(16).toString('hex')}`,
  };
}

/** Starts the simulator binary built by `cargo build --profile native -p sim`. */
export async function startSim({ keys, env = {} } = {}) {
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'native/sim');
  const child = spawn(bin, ['--addr', '127.0.0.1:0'], {
    env: { ...process.env, SIM_LIVE_KEY: keys.live, SIM_SANDBOX_KEY: keys.sandbox, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('simulator did not print "listening on" within 15 s')), 15000);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  return {
    url,
    /** Calls the simulator's /__sim control surface. */
    async control(method, p, body) {
      const res = await fetch(url + p, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${p} → ${res.status}: ${text}`);
      return text ? JSON.parse(text) : null;
    },
    async stop() { child.kill('SIGTERM'); },
  };
}

/** Starts our Worker (edge/build, already built) in workerd, in front of `upstream`. */
export async function startEdge({ upstream, keys, vars = {} }) {
  const bindings = { UPSTREAM_URL: { type: 'plain_text', value: upstream } };
  for (const [name, value] of Object.entries(vars)) bindings[name] = { type: 'plain_text', value };
  if (keys.live) bindings.SVC_LIVE_KEY = { type: 'secret_text', value: keys.live };
  if (keys.sandbox) bindings.SVC_SANDBOX_KEY = { type: 'secret_text', value: keys.sandbox };
  const worker = await unstable_startWorker({
    config: path.join(ROOT, 'wrangler.toml'),
    envFiles: [],
    bindings,
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: false,
      persist: false,
      watch: false,
      logLevel: 'warn',
    },
  });
  await worker.ready;
  const url = (await worker.url).toString().replace(/\/$/, '');
  return { url, stop: () => worker.dispose() };
}

/** The whole stack with fresh keys; `edgeVars` override the Worker's [vars]. */
export async function startStack({ edgeVars } = {}) {
  const keys = newKeys();
  const sim = await startSim({ keys });
  const edge = await startEdge({ upstream: sim.url, keys, vars: edgeVars });
  return { keys, sim, edge, async stop() { await edge.stop(); await sim.stop(); } };
}
