// Starts the real parts for a test file: the v1 simulator (native binary,
// 127.0.0.1, port 0) and our Worker in workerd via wrangler, pointed at it.
// Keys are random per run, so a leak scan knows exactly what to look for.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** All nine v1 scopes (part 5). */
export const ALL_SCOPES = ['rates:read', 'labels:write', 'labels:read', 'tracking:read', 'addresses:read', 'carrier-accounts:read', 'batches:write', 'batches:read', 'wallet:read'];

/** Per-endpoint limits high enough that a 5,000-row job is not held up by part 8's. */
export const RAISED_LIMITS = {
  'POST /v1/rates': 100000,
  'POST /v1/batches': 1000,
  'POST /v1/batches/{id}/buy': 1000,
  'GET /v1/batches/{id}': 100000,
  'GET /v1/wallet': 100000,
  'GET /v1/labels/{id}': 100000,
};

/** A live and a sandbox key of the demo account with every scope and these limits (`/__sim/keys`). */
export async function keysWithLimits(sim, limits) {
  const keys = {};
  for (const env of ['live', 'sandbox']) {
    keys[env] = (await sim.control('POST', '/__sim/keys', { env, scopes: ALL_SCOPES, limits })).key;
  }
  return keys;
}

/**
 * One user per role with a fresh access token. The Worker's USERS secret
 * holds only `name:role:sha256(token)` (see edge/README.md, Users).
 */
export function newUsers() {
  const users = {};
  for (const role of ['admin', 'operator', 'viewer']) {
    const token = `pt_${randomBytes(24).toString('hex')}`;
    users[role] = { name: `${role}1`, role, token };
  }
  return users;
}

export function usersSecret(users) {
  return Object.values(users)
    .map((u) => `${u.name}:${u.role}:${createHash('sha256').update(u.token).digest('hex')}`)
    .join(',');
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
    /**
     * Runs `fn` with the simulator's clock frozen at `at(now)` (only
     * `clock/advance` moves it meanwhile); afterwards it runs on from where
     * it stands.
     */
    async frozenAt(at, fn) {
      const { now } = await this.control('POST', '/__sim/clock/freeze', { frozen: true });
      await this.control('POST', '/__sim/clock/set', { now: at(now) });
      try {
        return await fn();
      } finally {
        await this.control('POST', '/__sim/clock/freeze', { frozen: false });
      }
    },
    /**
     * Runs `fn` in one of the simulator's rate-limit windows (minutes of its
     * clock) that cannot end under it, however slow the machine: the clock
     * is frozen at the start of a minute ahead of the real one. The Worker
     * keeps a window it learned for at most a minute of its own clock, so it
     * too sees this one open.
     */
    inOneWindow(fn) {
      return this.frozenAt((now) => {
        const ahead = Math.max(now, Math.floor(Date.now() / 1000));
        return ahead - (ahead % 60) + 60;
      }, fn);
    },
    /** Ends the simulator; resolves once its process is gone. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Starts our Worker (edge/build, already built) in workerd, in front of
 * `upstream`, with the PDF Worker (pdf/build) and the accounts Worker
 * (accounts/build) it calls through its `PDF` and `ACCOUNTS` service
 * bindings and the ledger Worker (ledger/build) whose inbox object its
 * `INBOX` binds, each in a workerd of its own: they find each other in a dev
 * registry of their own. `persist`: a directory for the Durable
 * Objects' SQLite files, so a second start with the same directory (and
 * `sessionSecret` and `masterKeys`) is the same deployment restarted.
 */
/**
 * With `PARCEL_TEST_IN_ORG=1` in the environment, `users` (from
 * `newUsers()`) become an organization's members signing in with their
 * personal access tokens (`orgs.mjs` `inOrg`): a suite runs in an
 * organization unchanged (`edge.org` is it).
 */
export async function startEdge(options) {
  try {
    return await startEdgeOnce(options);
  } catch (e) {
    // wrangler's dev proxy answers this when the Worker it forwards to was
    // reloaded under a request (not a GET, so not retried). Seen once in
    // CI, in an organization's set-up right after the start, never here
    // with one config and one bundle event per Worker: the start is
    // repeated once, on fresh Workers, rather than fail the whole file.
    if (!String(e?.message).includes(DEV_RESTART)) throw e;
    console.warn(`[stack] the dev server restarted a Worker during the start; starting again: ${e.message.split('\n')[0]}`);
    return startEdgeOnce(options);
  }
}

/** The text of wrangler's dev proxy when a Worker reloaded mid-request. */
const DEV_RESTART = 'Your worker restarted mid-request';

async function startEdgeOnce({ upstream, keys, users, vars = {}, secrets = {}, accountsVars = {}, port = 0, persist = false, sessionSecret = randomBytes(32).toString('hex'), masterKeys = `k1:${randomBytes(32).toString('hex')}`, logLevel = process.env.EDGE_LOG_LEVEL || 'warn' }) {
  const bindings = { UPSTREAM_URL: { type: 'plain_text', value: upstream } };
  for (const [name, value] of Object.entries(vars)) bindings[name] = { type: 'plain_text', value };
  const secret = (name, value) => { if (value) bindings[name] = { type: 'secret_text', value }; };
  secret('SVC_LIVE_KEY', keys.live);
  secret('SVC_SANDBOX_KEY', keys.sandbox);
  secret('USERS', users && usersSecret(users));
  secret('SESSION_SECRET', sessionSecret);
  for (const [name, value] of Object.entries(secrets)) secret(name, value);
  const registry = mkdtempSync(path.join(tmpdir(), 'parcel-registry-'));
  // Each Worker keeps its state apart: two workerd processes on one
  // directory lock each other's SQLite on a restart (SQLITE_BUSY).
  const own = (name) => persist && path.join(persist, 'workers', name);
  const start = (config, extra = {}, persistTo = persist, listen = 0) => unstable_startWorker({
    config: path.join(ROOT, config),
    envFiles: [],
    // The config's build still runs once (scripts/build-edge, a no-op when
    // up to date); an empty command here stops its file watcher from
    // starting a second build as soon as the Worker is up.
    build: { custom: { command: '' } },
    dev: {
      server: { hostname: '127.0.0.1', port: listen },
      inspector: false,
      persist: persistTo,
      watch: false,
      logLevel,
      registry,
    },
    ...extra,
  });
  // The accounts Worker signs setup links with the same SESSION_SECRET,
  // alone holds MASTER_KEYS (organizations' keys are sealed with it), and
  // checks new keys against the same service.
  const accountsBindings = {
    SESSION_SECRET: bindings.SESSION_SECRET,
    MASTER_KEYS: { type: 'secret_text', value: masterKeys },
    UPSTREAM_URL: bindings.UPSTREAM_URL,
  };
  for (const [name, value] of Object.entries(accountsVars)) accountsBindings[name] = { type: 'plain_text', value };
  const started = await Promise.allSettled([
    start('pdf/wrangler.toml', {}, own('pdf')),
    start('accounts/wrangler.toml', { bindings: accountsBindings }, own('accounts')),
    start('ledger/wrangler.toml', {}, own('ledger')),
    start('wrangler.toml', { bindings }, persist, port),
  ]);
  const running = started.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  const ready = await Promise.allSettled(running.map((w) => w.ready));
  const failed = [...started, ...ready].find((s) => s.status === 'rejected');
  if (failed) {
    // A Worker left running would keep the test process alive for good.
    await Promise.allSettled(running.map((w) => w.dispose()));
    rmSync(registry, { recursive: true, force: true });
    throw failed.reason;
  }
  const [pdf, accounts, ledger, worker] = running;
  const url = (await worker.url).toString().replace(/\/$/, '');
  // Ready is not yet reachable: the main Worker finds the accounts Worker
  // through the dev registry a moment later. Its own answer says when: an
  // unknown invitation is 404 from the accounts Worker, 503
  // EDGE.ORG.UNAVAILABLE before (bounded).
  for (const end = Date.now() + 30000; ;) {
    // Each try is bounded too: a call into a binding not yet connected may never answer.
    const why = await fetch(`${url}/api/invites/preview`, {
      method: 'POST', headers: { origin: url, 'content-type': 'application/json' }, body: '{"token":"x"}',
      signal: AbortSignal.timeout(5000),
    }).then((res) => res.text(), (e) => `EDGE.ORG.UNAVAILABLE (${e.name})`);
    // Anything but "accounts unreachable" (a deployment the test misconfigured
    // on purpose, too), or the dev proxy's own answer while a Worker reloads.
    if (!why.includes('EDGE.ORG.UNAVAILABLE') && !why.includes(DEV_RESTART)) break;
    if (Date.now() > end) {
      await Promise.allSettled(running.map((w) => w.dispose()));
      rmSync(registry, { recursive: true, force: true });
      throw new Error(`the main Worker did not reach the accounts Worker within 30 s: ${why}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The dashboard's page and its first module, as a browser's first visit
  // asks for them, before any test does: two first navigations of a full
  // run once passed their 15 and 30 s (each passed alone). How long this
  // took is said when it is slow, to find out where that time goes.
  const firstPage = Date.now();
  const html = await fetch(`${url}/`, { signal: AbortSignal.timeout(30000) }).then((r) => r.text()).catch(() => '');
  const wasm = /module_or_path: '([^']+)'/.exec(html)?.[1];
  if (wasm) await fetch(new URL(wasm, url), { headers: { 'accept-encoding': 'br' }, signal: AbortSignal.timeout(30000) }).then((r) => r.arrayBuffer()).catch(() => {});
  if (Date.now() - firstPage > 2000) console.warn(`[stack] the dashboard's first page and module took ${Date.now() - firstPage} ms`);
  const edge = {
    ...edgeClient(url),
    async stop() {
      // One at a time, the main Worker (which binds the others) first: a
      // Worker disposed while another's registry update rebuilds it once
      // left a dispose pending for good. Each gets 20 s, then the next.
      for (const w of [worker, accounts, ledger, pdf]) {
        await Promise.race([w.dispose(), new Promise((r) => setTimeout(r, 20000).unref())]);
      }
      rmSync(registry, { recursive: true, force: true });
    },
  };
  if (process.env.PARCEL_TEST_IN_ORG === '1' && users) {
    // Imported here: orgs.mjs imports this module.
    const { inOrg } = await import('./orgs.mjs');
    await inOrg(edge, { sessionSecret, keys, users });
  }
  return edge;
}

/**
 * Like `startEdge`, but workerd runs in a child process whose stdout is a
 * pipe, so a test can read every log line the Worker writes (`logs`).
 */
export async function startEdgeProcess(options) {
  const child = spawn(process.execPath, [path.join(ROOT, 'tests/support/edge-process.mjs')], {
    // At level "log" wrangler prints the Worker's console.log lines.
    // `users` in an organization (PARCEL_TEST_IN_ORG) would be the child's copy: not here.
    env: { ...process.env, PARCEL_TEST_IN_ORG: '', PARCEL_EDGE_OPTIONS: JSON.stringify({ logLevel: 'log', ...options }) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a start that hangs can be ended with its workerd processes.
    detached: true,
  });
  const logs = [];
  const collect = (stream) => createInterface({ input: stream }).on('line', (l) => logs.push(l));
  collect(child.stderr);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: its pipes would keep the test file alive for good.
      process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`edge process did not start within 60 s: ${logs.slice(-20).join('\n')}`));
    }, 60000);
    child.once('exit', (code) => reject(new Error(`edge process exited with ${code}: ${logs.join('\n')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      logs.push(line);
      const m = /^EDGE_URL=(\S+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  return {
    ...edgeClient(url),
    logs,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // Its own stop disposes each Worker within 20 s; past 70 s the group
      // goes, workerd processes included, rather than hang the test.
      const gone = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(r, 70000, false).unref())]);
      if (!gone) {
        process.kill(-child.pid, 'SIGKILL');
        await exited;
      }
    },
  };
}

function edgeClient(url) {
  return {
    url,
    /**
     * Signs `user` in over HTTP; returns headers for later calls: the session
     * cookie and the Worker's own Origin (state-changing calls need it).
     */
    async session(user) {
      const res = await fetch(`${url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ token: user.token }),
      });
      if (res.status !== 200) throw new Error(`sign-in of ${user.name} → ${res.status}: ${await res.text()}`);
      const cookie = res.headers.get('set-cookie').split(';')[0];
      return { cookie, origin: url, info: await res.json() };
    },
  };
}

/**
 * The whole stack with fresh keys and one user per role (`stack.users.admin`
 * ...); `edgeVars`/`edgeSecrets` override the Worker's settings, `keys` may
 * drop one of the two keys.
 */
export async function startStack({ edgeVars, edgeSecrets, keys = newKeys(), persist = false } = {}) {
  const users = newUsers();
  const sim = await startSim({ keys: { ...newKeys(), ...keys } });
  const options = { upstream: sim.url, keys, users, vars: edgeVars, secrets: edgeSecrets, persist, sessionSecret: randomBytes(32).toString('hex') };
  let edge;
  try {
    edge = await startEdge(options);
  } catch (e) {
    // The simulator left running would keep the test file alive for good.
    await sim.stop();
    throw e;
  }
  const stack = {
    keys, users, sim, edge,
    /** Stops workerd and starts it again on the same persisted state (needs `persist`). */
    async restartEdge() {
      await stack.edge.stop();
      stack.edge = await startEdge(options);
      return stack.edge;
    },
    async stop() { await stack.edge.stop(); await sim.stop(); },
  };
  return stack;
}

/**
 * The login page's access-token input. The page opens on email and
 * password, or on the token if this browser last signed in with one.
 */
export async function tokenField(page) {
  // The switch to the other way is always shown, named after that way.
  await page.getByRole('button', { name: /^Use (an access token|email and password)$/ }).waitFor({ timeout: 15000 });
  const other = page.getByRole('button', { name: 'Use an access token' });
  if (await other.isVisible()) await other.click();
  return page.getByLabel('Access token');
}

/** Signs `user` in through the app's login page in a Playwright page. */
/**
 * `page.goto` (Playwright) that, when it fails, also says which of the
 * page's requests had no answer yet and since when: first navigations of a
 * full run timed out now and then (sessions 14 and 15, each file passing
 * alone) with nothing saying where the time went.
 */
export async function gotoSaying(page, url) {
  const started = Date.now();
  const pending = new Map();
  const asked = (r) => pending.set(r, Date.now() - started);
  const answered = (r) => pending.delete(r);
  page.on('request', asked);
  page.on('requestfinished', answered);
  page.on('requestfailed', answered);
  try {
    return await page.goto(url);
  } catch (e) {
    const open = [...pending].map(([r, at]) => `${r.method()} ${new URL(r.url()).pathname} (asked at ${at} ms)`);
    e.message += `\nrequests without an answer after ${Date.now() - started} ms: ${open.join(', ') || 'none'}`;
    throw e;
  } finally {
    page.off('request', asked);
    page.off('requestfinished', answered);
    page.off('requestfailed', answered);
  }
}

export async function signInPage(page, stack, user) {
  await gotoSaying(page, stack.edge.url + '/');
  await (await tokenField(page)).fill(user.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 15000 });
}
