// The real parts for tests: the v1 simulator (native binary, 127.0.0.1,
// port 0) and the four Workers in one workerd through Miniflare's API (the
// options of workers.mjs), pointed at it. Keys are random per run, so a
// leak scan knows exactly what to look for.
//
// One stack serves every test file of a run (`sharedStack`, started once by
// tests/run.mjs); isolation is the product's own: each test works in an
// organization of its own with its own simulator account and keys
// (orgs.mjs, `orgStack`). `startStack` and `startEdge` start a stack of a
// test's own, for what it may not do to the shared one: stop or restart the
// Workers, change the deployment's settings, stop or slow the simulator.
// Every start is counted; tests/run.mjs prints the total at the end.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { after } from 'node:test';
import { Miniflare } from 'miniflare';
import { Agent, setGlobalDispatcher } from 'undici';
import { ROOT, fourWorkers } from './workers.mjs';

export { ROOT };

// workerd closes idle connections on its own schedule (5 s idle, and
// sooner after some answers); Node's fetch, reusing them, sent requests on
// connections workerd was closing ("fetch failed": ECONNRESET, "other side
// closed"), and does not resend a POST. A connection per request here
// (loopback: a fraction of a millisecond). Browsers resend a request whose
// reused connection was closed.
setGlobalDispatcher(new Agent({ pipelining: 0 }));

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

/**
 * A live and a sandbox key with every scope and these limits
 * (`/__sim/keys`; `limits` undefined: the table's), of `account` (the
 * simulator's demo account unless named).
 */
export async function keysWithLimits(sim, limits, account) {
  const keys = {};
  for (const env of ['live', 'sandbox']) {
    keys[env] = (await sim.control('POST', '/__sim/keys', { env, scopes: ALL_SCOPES, limits, account })).key;
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

/** A client of the simulator at `url`: its /__sim control surface and clock. */
function simClient(url, stop, { beside = false } = {}) {
  return {
    url,
    /** Calls the simulator's /__sim control surface. */
    async control(method, p, body) {
      if (beside && /^\/__sim\/(clock|faults)\b/.test(p)) {
        throw new Error(`${method} ${p}: the shared simulator's clock and faults are every file's, and other files run beside this one: add it to ALONE in tests/run.mjs`);
      }
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
    /** Runs `fn` with the clock frozen where it stands (only `clock/advance` moves it), then thaws it. */
    frozen(fn) {
      return this.frozenAt((now) => now, fn);
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
    stop,
  };
}

/**
 * The simulators this process started and that still run: they end with
 * it, whatever ends it (a benchmark that failed to start its Workers once
 * left one running, holding the caller's stderr open).
 */
const simulators = new Set();
process.once('exit', () => {
  for (const child of simulators) child.kill('SIGTERM');
});

/** Starts the simulator binary built by `cargo build --profile native -p sim`. */
export async function startSim({ keys, env = {} } = {}) {
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'native/sim');
  const child = spawn(bin, ['--addr', '127.0.0.1:0'], {
    env: { ...process.env, SIM_LIVE_KEY: keys.live, SIM_SANDBOX_KEY: keys.sandbox, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  simulators.add(child);
  child.once('exit', () => simulators.delete(child));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('simulator did not print "listening on" within 15 s')), 15000);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  return simClient(url, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });
}

/**
 * Counts a start of the Workers (`shared`, `private`) or a restart of them
 * on their state (`restart`), for the run's total (tests/run.mjs reads
 * `PARCEL_STACKS_FILE`); a file run alone prints its own at exit.
 */
const alone = { shared: 0, private: 0, restart: 0 };
function count(kind) {
  const file = process.env.PARCEL_STACKS_FILE;
  if (file) {
    appendFileSync(file, `${kind}\t${path.relative(ROOT, process.argv[1] ?? '')}\n`);
    return;
  }
  if (!Object.values(alone).some(Boolean)) {
    process.once('exit', () => process.stderr.write(`[stacks] ${alone.shared + alone.private} started (${alone.shared} shared), ${alone.restart} restarts\n`));
  }
  alone[kind] += 1;
}

/** A port free a moment ago, for a stack whose settings must name its own origin before it starts. */
async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Starts the four Workers (edge/build, accounts/build, ledger/build,
 * pdf/build, already built) in one workerd, in front of `upstream`: the
 * main Worker with the deployment's `keys`, `users` (from `newUsers()`),
 * `vars` and `secrets`; the accounts Worker with the same SESSION_SECRET
 * (setup links are signed with it), MASTER_KEYS (which it alone holds) and
 * `accountsVars`; the ledger Worker with `ledgerVars`. `persist`: a
 * directory for the Durable Objects' SQLite files, so `restart()` (or a
 * start with the same directory and secrets) is the same deployment
 * started again. Every line the Workers write is in `logs`.
 */
export async function startEdge({
  upstream, keys = {}, users, vars = {}, secrets = {}, accountsVars = {}, ledgerVars = {}, port = 0, persist = false,
  sessionSecret = randomBytes(32).toString('hex'), masterKeys = `k1:${randomBytes(32).toString('hex')}`, logFile,
}, kind = 'private') {
  const main = { UPSTREAM_URL: upstream, ...vars };
  const secret = (name, value) => { if (value) main[name] = value; };
  secret('SVC_LIVE_KEY', keys.live);
  secret('SVC_SANDBOX_KEY', keys.sandbox);
  secret('USERS', users && usersSecret(users));
  secret('SESSION_SECRET', sessionSecret);
  for (const [name, value] of Object.entries(secrets)) secret(name, value);
  const accounts = { SESSION_SECRET: main.SESSION_SECRET, MASTER_KEYS: masterKeys, UPSTREAM_URL: upstream, ...accountsVars };
  const logs = [];
  const line = (l) => {
    logs.push(l);
    if (logFile) appendFileSync(logFile, `${l}\n`);
  };
  const launch = async (listen, started) => {
    count(started);
    const mf = new Miniflare({
      host: '127.0.0.1',
      port: listen,
      ...(persist ? { durableObjectsPersist: persist } : {}),
      handleRuntimeStdio(stdout, stderr) {
        createInterface({ input: stdout }).on('line', line);
        createInterface({ input: stderr }).on('line', line);
      },
      workers: fourWorkers({ main, accounts, ledger: { UPSTREAM_URL: upstream, ...ledgerVars } }),
    });
    try {
      return { mf, url: (await mf.ready).origin };
    } catch (e) {
      // A workerd left running would keep the test process alive for good.
      await mf.dispose().catch(() => {});
      throw e;
    }
  };
  let running = await launch(port, kind);
  const edge = edgeClient(() => running.url, {
    logs,
    /**
     * Stops workerd and starts it again on the same state (needs
     * `persist`), on the same port, with these `vars`, `accountsVars` and
     * `masterKeys` changed (an empty string unsets a var).
     */
    async restart({ vars: mainVars = {}, accountsVars: more = {}, masterKeys: master } = {}) {
      await edge.stop();
      Object.assign(main, mainVars);
      Object.assign(accounts, more, master ? { MASTER_KEYS: master } : {});
      running = await launch(Number(new URL(running.url).port), 'restart');
      return edge;
    },
    /** Stops workerd (once: a stopped stack may be stopped again, or restarted). */
    async stop() {
      if (running.stopped) return;
      running.stopped = true;
      await running.mf.dispose();
    },
  });
  await warm(running.url);
  return edge;
}

/**
 * The dashboard's page and its first module, as a browser's first visit
 * asks for them, before any test does: the first navigation of a run is
 * the slowest. How long this took is said when it is slow.
 */
async function warm(url) {
  const firstPage = Date.now();
  const html = await fetch(`${url}/`, { signal: AbortSignal.timeout(30000) }).then((r) => r.text()).catch(() => '');
  const wasm = /module_or_path: '([^']+)'/.exec(html)?.[1];
  if (wasm) await fetch(new URL(wasm, url), { headers: { 'accept-encoding': 'br' }, signal: AbortSignal.timeout(30000) }).then((r) => r.arrayBuffer()).catch(() => {});
  if (Date.now() - firstPage > 2000) console.warn(`[stack] the dashboard's first page and module took ${Date.now() - firstPage} ms`);
}

/**
 * The Workers' client: `url` (where they answer now: `url()`), sign-in over
 * HTTP, and `more` (its getters kept as getters).
 */
function edgeClient(url, more = {}) {
  const client = {
    /**
     * Signs `user` in over HTTP; returns headers for later calls: the session
     * cookie and the Worker's own Origin (state-changing calls need it).
     */
    async session(user) {
      const origin = url();
      const res = await fetch(`${origin}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ token: user.token }),
      });
      if (res.status !== 200) throw new Error(`sign-in of ${user.name} → ${res.status}: ${await res.text()}`);
      const cookie = res.headers.get('set-cookie').split(';')[0];
      return { cookie, origin, info: await res.json() };
    },
  };
  return Object.defineProperties(client, { url: { get: url, enumerable: true }, ...Object.getOwnPropertyDescriptors(more) });
}

/**
 * A stack of a test's own: its simulator with fresh keys, the Workers with
 * one user per role (`stack.users.admin` ...); `edgeVars`/`edgeSecrets`
 * override the Worker's settings, `keys` may drop one of the two keys,
 * `persist` keeps the Workers' state for `edge.restart()`. Its
 * `sessionSecret` signs setup links, so `orgStack` works on it too.
 */
export async function startStack({ edgeVars, edgeSecrets, keys = newKeys(), persist = false } = {}) {
  const users = newUsers();
  const sessionSecret = randomBytes(32).toString('hex');
  const sim = await startSim({ keys: { ...newKeys(), ...keys } });
  let edge;
  try {
    edge = await startEdge({ upstream: sim.url, keys, users, vars: edgeVars, secrets: edgeSecrets, persist, sessionSecret });
  } catch (e) {
    // The simulator left running would keep the test file alive for good.
    await sim.stop();
    throw e;
  }
  const stack = {
    keys, users, sim, edge, sessionSecret,
    async stop() { await edge.stop(); await sim.stop(); },
  };
  return stack;
}

/**
 * The shipping service as the shared stack names it (SERVICE_NAME,
 * SERVICE_DASHBOARD_URL): the dashboard's sentences that send merchants to
 * the service's dashboard say this name and link there. The link is never
 * followed.
 */
export const SHARED_SERVICE = { name: 'Acme Ship', dashboardUrl: 'https://dashboard.acme-ship.example/home' };

/**
 * The shared stack's settings, as `scripts/run` makes a deployment: keys
 * of its own (the simulator's demo account, which no other test uses) and
 * users by role (`deploymentUsers`: only tests/app-chunks.test.mjs signs
 * in as them; the deployment's settings are tested on a stack of their own
 * in tests/edge-deployment.test.mjs); passkeys work for the dashboard at
 * http://localhost:PORT, so the port is chosen first.
 */
export async function startShared() {
  const dir = mkdtempSync(path.join(tmpdir(), 'parcel-shared-'));
  const logFile = path.join(dir, 'workers.log');
  writeFileSync(logFile, '');
  const keys = newKeys();
  const sim = await startSim({ keys });
  const port = await freePort();
  const localhost = `http://localhost:${port}`;
  const sessionSecret = randomBytes(32).toString('hex');
  const users = newUsers();
  let edge;
  try {
    edge = await startEdge({
      upstream: sim.url, keys, users, port, sessionSecret, logFile,
      vars: { SERVICE_NAME: SHARED_SERVICE.name, SERVICE_DASHBOARD_URL: SHARED_SERVICE.dashboardUrl },
      accountsVars: { PASSKEY_RP_ID: 'localhost', PASSKEY_ORIGINS: localhost },
      // A viewed tracking page asks for a read once its last is a second old
      // (a deployment's default: 10 s), so it follows the simulator's clock
      // as a test moves it without waiting.
      ledgerVars: { TRACKING_READ_ON_VIEW_AFTER: '1' },
    }, 'shared');
  } catch (e) {
    await sim.stop();
    throw e;
  }
  return {
    coordinates: { url: edge.url, sim: sim.url, sessionSecret, localhost, logFile, users },
    /** Stops it; the Workers' log is kept with `keepLog` (a failed run's, to read). */
    async stop({ keepLog = false } = {}) {
      await edge.stop();
      await sim.stop();
      if (!keepLog) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const refuse = (what) => async () => { throw new Error(`the shared stack's ${what} is every test's: start a stack of your own to stop it`); };

/** The shared stack as a test file uses it, from its coordinates. */
function shared({ url, sim, sessionSecret, localhost, logFile, users }) {
  return {
    sim: simClient(sim, refuse('simulator'), { beside: Boolean(process.env.PARCEL_BESIDE) }),
    edge: edgeClient(() => url, {
      /** Every line the Workers wrote so far, every test file's. */
      get logs() { return readFileSync(logFile, 'utf8').split('\n').filter(Boolean); },
      stop: refuse('Workers'),
    }),
    sessionSecret,
    /** The dashboard's origin for passkeys (browsers refuse an IP address as their site). */
    localhost,
    /** The deployment's own users (its USERS), by role. */
    deploymentUsers: users,
  };
}

/**
 * The run's shared stack (tests/run.mjs hands its coordinates to each test
 * file in PARCEL_STACK); a file run alone starts one for itself and stops
 * it when its tests have ended. Call at the top level of a test file.
 */
export async function sharedStack() {
  let coordinates;
  if (process.env.PARCEL_STACK) coordinates = JSON.parse(process.env.PARCEL_STACK);
  else {
    const own = await startShared();
    after(() => own.stop());
    coordinates = own.coordinates;
  }
  const stack = shared(coordinates);
  // The simulator's clock and faults are every file's: run beside others, a
  // file leaves them as the stack started (tests/run.mjs); run alone, it
  // starts on the real time, running, with no fault, whatever the file
  // before it left.
  if (process.env.PARCEL_BESIDE) return stack;
  await stack.sim.control('POST', '/__sim/clock/freeze', { frozen: false });
  await stack.sim.control('POST', '/__sim/clock/set', { now: Math.floor(Date.now() / 1000) });
  await stack.sim.control('PUT', '/__sim/faults', {});
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
 * full run timed out now and then (each file passing alone) with nothing
 * saying where the time went.
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

/** Signs `user` in with its access token on the Ship page (Home, `/`, is a page of its own). */
export async function signInPage(page, stack, user) {
  await gotoSaying(page, stack.edge.url + '/ship');
  await (await tokenField(page)).fill(user.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await signedIn(page);
}

/** Waits for the signed-in frame: its mode, in the top bar at every width (sign-out is in the phone's closed menu). */
export async function signedIn(page) {
  await page.getByTestId('mode').waitFor({ timeout: 15000 });
}
