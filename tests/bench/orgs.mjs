// What organizations cost, through the real Workers in workerd (main,
// accounts, PDF) in front of the simulator:
//  - the organization lookup: p50/p90 of GET /api/limits (signed in, no
//    upstream call), of a forwarded read (GET /api/v1/wallet) and of a
//    forwarded write the service refuses (nothing bought), sandbox,
//    for a session of the deployment's own organization (no lookup:
//    today's path) against one of an organization's, alternating. Reads
//    reuse this isolate's membership check of the last 10 s; the write
//    asks the accounts Worker, which asks the organization's object for
//    the member's role and its keys, and opens them;
//  - a password sign-in (six chained PBKDF2 derivations of 100,000
//    iterations, and the directory's calls) and a throttled one (the
//    directory's first call only, no derivation), each from a fresh
//    address so the counters never interfere;
//  - what one organization's objects carry: C clients at once sending
//    writes (each asks the organization's object) for S seconds, against
//    the deployment's session (no such object) at the same concurrency.
//    Everything runs on this machine's cores (workerd, the simulator and
//    this script), so the figures are a floor for one organization.
//   node tests/bench/orgs.mjs [N=200] [SIGN_INS=15] [C=1,8,32] [S=10]
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, newKeys, newUsers, startEdge, startSim } from '../support/stack.mjs';
import { Person, newOrgLink } from '../support/orgs.mjs';

const N = Number(process.argv[2]) || 200;
const SIGN_INS = Number(process.argv[3]) || 15;
const CONCURRENCY = (process.argv[4] || '1,8,32').split(',').map(Number);
const SECONDS = Number(process.argv[5]) || 10;
const PASSWORD = 'correct horse battery staple';

const keys = newKeys();
const users = newUsers();
const sim = await startSim({ keys });
// A sandbox key the simulator does not limit: the runs below are about our side.
keys.sandbox = (await sim.control('POST', '/__sim/keys', { env: 'sandbox', scopes: ALL_SCOPES, unlimited: true })).key;
const sessionSecret = randomBytes(32).toString('hex');
const edge = await startEdge({ upstream: sim.url, keys, users, sessionSecret });
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `p50 ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms (n=${s.length})`;
};
let address = 0;
const person = () => new Person(edge.url, { address: `192.0.2.${++address % 250}` });
try {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = person();
  const email = `bench.${randomBytes(4).toString('hex')}@example.com`;
  const made = await admin.createOrg(link.token, { orgName: 'Bench Co', name: 'Bench', email, password: PASSWORD });
  if (made.status !== 200) throw new Error(made.text);
  // Both sessions work in sandbox with the same key (the organization's
  // entered, checked and sealed as an admin does), so only the lookup differs.
  const entered = await admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key: keys.sandbox });
  if (entered.status !== 200) throw new Error(entered.text);
  const deployment = await edge.session(users.admin);
  const own = { cookie: deployment.cookie, origin: edge.url };
  const org = { cookie: admin.cookie, origin: edge.url };
  const mode = await fetch(`${edge.url}/api/session/mode`, { method: 'PUT', headers: { ...own, 'content-type': 'application/json' }, body: '{"mode":"sandbox"}' });
  if (mode.status !== 200) throw new Error(`mode → ${mode.status}`);

  // Reads may reuse a membership check of the last 10 s; a write (here a
  // purchase the service refuses as incomplete: nothing is bought) asks the
  // organization now (domain/src/orgs/member_checks.rs).
  const calls = [
    ['GET', '/api/limits', undefined, 200, 'read'],
    ['GET', '/api/v1/wallet', undefined, 200, 'forwarded read'],
    ['POST', '/api/v1/labels', '{}', 422, 'forwarded write, asks now'],
  ];
  const call = async ([method, path, body, expected], session) => {
    const headers = { ...session, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') };
    const t0 = performance.now();
    const res = await fetch(edge.url + path, { method, headers, body });
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`${method} ${path} → ${res.status}`);
    return performance.now() - t0;
  };
  for (const [method, path, body, expected, what] of calls) {
    const timed = (session) => call([method, path, body, expected], session);
    for (let i = 0; i < 20; i++) { await timed(own); await timed(org); } // warm both paths
    const times = { own: [], org: [] };
    for (let i = 0; i < N; i++) {
      times.own.push(await timed(own));
      times.org.push(await timed(org));
    }
    const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`${method} ${path} (${what}), the deployment's session (no lookup): ${stats(times.own)}`);
    console.log(`${method} ${path} (${what}), an organization's session (lookup):  ${stats(times.org)}`);
    console.log(`  → lookup overhead p50: ${(p50(times.org) - p50(times.own)).toFixed(2)} ms`);
  }

  // What one organization carries: writes from C clients at once.
  const write = calls[2];
  const load = async (session, c) => {
    const times = [];
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: c }, async () => {
      while (performance.now() < end) times.push(await call(write, session));
    }));
    return `${Math.round(times.length / SECONDS)} writes/s, ${stats(times)}`;
  };
  for (const c of CONCURRENCY) {
    console.log(`${c} at once, ${SECONDS} s, the deployment's session:  ${await load(own, c)}`);
    console.log(`${c} at once, ${SECONDS} s, an organization's session: ${await load(org, c)}`);
  }

  const signIns = [];
  const throttled = [];
  for (let i = 0; i < SIGN_INS; i++) {
    const t0 = performance.now();
    const res = await person().signIn(email, PASSWORD);
    signIns.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`sign-in → ${res.status} ${res.text}`);
  }
  // An email past its failures: refused by the directory before any hashing.
  const locked = `locked.${randomBytes(4).toString('hex')}@example.com`;
  for (let i = 0; i < 5; i++) await person().signIn(locked, 'wrong password!!');
  for (let i = 0; i < SIGN_INS; i++) {
    const t0 = performance.now();
    const res = await person().signIn(locked, 'wrong password!!');
    throttled.push(performance.now() - t0);
    if (res.status !== 429) throw new Error(`throttled sign-in → ${res.status}`);
  }
  console.log(`password sign-in (6 x 100,000 PBKDF2 + directory): ${stats(signIns)}`);
  console.log(`throttled sign-in (directory only, no hashing):     ${stats(throttled)}`);
} finally {
  await edge.stop();
  await sim.stop();
}
