// Sign-in throttling that stops guessing where it comes from and cannot be
// used to lock a person out, through the real Workers in workerd (the
// limits: docs/organizations.md, "Sign-in throttling"). Fifty wrong
// passwords for one account from one address get three checks, then
// growing waits (each in Retry-After), then a refusal for the rest of 15
// minutes; meanwhile the owner's right password from an address that
// signed them in before works at once, and from a new address at once or
// after the account's short wait, never a lock. A passkey sign-in is never
// refused by these counts, and from the locked address it lifts the lock.
// Each lock, slowdown and unlock is in the organization's audit log with
// the addresses involved. Nothing here sleeps: the waits are read from the
// answers (the accounts Worker's own clock), and the rule that an address
// may try again once its wait is over is `orgs::throttle`'s, tested natively.
// On the shared stack, in an organization of its own, every client at an
// address of its own (the per-address counts are every test file's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { sharedStack } from './support/stack.mjs';
import { Person, PASSWORD, assertError, newAddress, newOrgLink } from './support/orgs.mjs';

// The shared stack's accounts Worker takes passkeys for the dashboard at
// http://localhost:PORT (PASSKEY_RP_ID localhost), so every call goes there.
const { localhost: PASSKEY_ORIGIN, sessionSecret } = await sharedStack();
const RP_ID = 'localhost';

const at = (address) => new Person(PASSKEY_ORIGIN, { address });
const b64u = (b) => Buffer.from(b).toString('base64url');
const sha256 = (b) => createHash('sha256').update(b).digest();
const retryAfter = (res) => Number(res.headers.get('retry-after'));

/** A passkey held in this process: a P-256 key registered as attestation "none" would be. */
class SoftPasskey {
  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.key = privateKey;
    this.spki = publicKey.export({ type: 'spki', format: 'der' });
    this.id = randomBytes(16);
  }

  /** Adds it to `who`'s account (their session and password). */
  async enrol(who) {
    const options = await who.call('POST', '/api/account/passkeys/options', { password: PASSWORD });
    assert.equal(options.status, 200, options.text);
    const [x, y] = [this.spki.subarray(27, 59), this.spki.subarray(59, 91)];
    // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
    const cose = Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.id.length);
    // rpIdHash, flags UP|UV|AT, counter 0, AAGUID 0, the credential.
    const authData = Buffer.concat([sha256(RP_ID), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), idLength, this.id, cose]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.json.challenge, origin: PASSKEY_ORIGIN, crossOrigin: false });
    const credential = {
      id: b64u(this.id), rawId: b64u(this.id), type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), publicKey: b64u(this.spki), publicKeyAlgorithm: -7, transports: ['internal'] },
    };
    const added = await who.call('POST', '/api/account/passkeys', { name: 'throttle test key', credential });
    assert.equal(added.status, 201, added.text);
    this.account = options.json.user.id;
  }

  /** A passkey sign-in by `who`: a fresh challenge, signed (the counter stays 0, as a synced passkey's does). */
  async signIn(who) {
    const options = await who.call('POST', '/api/session/passkey/options');
    assert.equal(options.status, 200, options.text);
    const authData = Buffer.concat([sha256(RP_ID), Buffer.from([0x05]), Buffer.alloc(4)]);
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.json.challenge, origin: PASSKEY_ORIGIN, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), { key: this.key, dsaEncoding: 'der' });
    return who.call('POST', '/api/session/passkey', {
      id: b64u(this.id), rawId: b64u(this.id), type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: this.account },
    });
  }
}

test('fifty wrong passwords from one address are slowed, then refused; the owner still gets in, and a passkey always does', async () => {
  const [HOME, ATTACKER, PHONE, CAFE, ELSEWHERE] = [newAddress(), newAddress(), newAddress(), newAddress(), newAddress()];
  const SPREAD = [newAddress(), newAddress(), newAddress(), newAddress()];
  const owner = at(HOME);
  owner.email = `owner.${randomBytes(4).toString('hex')}@example.com`;
  const link = await newOrgLink(sessionSecret, PASSKEY_ORIGIN);
  const made = await owner.createOrg(link.token, { orgName: 'Throttle Goods', name: 'Olive Owner', email: owner.email, password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  // Home has signed the owner in before.
  assert.equal((await owner.signIn(owner.email, PASSWORD)).status, 200);
  const passkey = new SoftPasskey();
  await passkey.enrol(owner);

  // Fifty wrong passwords from one address.
  const attacker = at(ATTACKER);
  const answers = [];
  for (let i = 0; i < 50; i++) answers.push(await attacker.signIn(owner.email, `guess number ${i}`));
  // Three are checked and refused as wrong.
  for (const res of answers.slice(0, 3)) assertError(res, 401, 'EDGE.SIGN_IN.FAILED');
  const seen = answers.map((r) => (r.status === 429 ? `${retryAfter(r)} s` : r.status)).join(', ');
  // Then growing waits: 5 s after the third failure, doubling with each more
  // (a try during a wait, once told of it, counts as one more), each said in
  // Retry-After; from the tenth failure, refused there for 15 minutes.
  const lock = answers.findIndex((r) => r.status === 429 && retryAfter(r) > 320);
  assert.ok(lock >= 9 && lock <= 20, `refused from try ${lock + 1}: ${seen}`);
  const waits = [];
  for (const res of answers.slice(3, lock)) {
    if (res.status === 401) {
      assertError(res, 401, 'EDGE.SIGN_IN.FAILED');
      continue;
    }
    const e = assertError(res, 429, 'EDGE.SIGN_IN.THROTTLED');
    assert.equal(e.retry_after_seconds, retryAfter(res));
    waits.push(retryAfter(res));
  }
  assert.ok(waits.length >= 2 && waits.every((w) => w >= 1 && w <= 320), `slowed: ${seen}`);
  assert.ok(Math.max(...waits) > waits[0], `growing: ${seen}`);
  assert.ok(answers.filter((r) => r.status === 401).length < 10, `fewer than ten passwords checked: ${seen}`);
  for (const res of answers.slice(lock)) {
    assertError(res, 429, 'EDGE.SIGN_IN.THROTTLED');
    assert.ok(retryAfter(res) > 320 && retryAfter(res) <= 900, `Retry-After ${retryAfter(res)}`);
  }
  assertError(await attacker.signIn(owner.email, PASSWORD), 429, 'EDGE.SIGN_IN.THROTTLED');

  // Meanwhile the owner signs in at once from home, and from a new address
  // (the account has fewer than 10 failed checks: no wait for anyone).
  assert.equal((await at(HOME).signIn(owner.email, PASSWORD)).status, 200);
  const phone = at(PHONE);
  assert.equal((await phone.signIn(owner.email, PASSWORD)).status, 200);

  // Guesses from more addresses bring the account to 10 failed checks: an
  // address new to it now waits 5 s before its password is checked.
  for (const [n, address] of SPREAD.entries()) {
    const other = at(address);
    for (let i = 0; i < 3; i++) {
      const res = await other.signIn(owner.email, `spread guess ${n}.${i}`);
      assert.ok([401, 429].includes(res.status), res.text);
      if (res.status === 429) assert.ok(retryAfter(res) <= 5, `Retry-After ${retryAfter(res)}`);
    }
  }
  const cafe = at(CAFE);
  const held = await cafe.signIn(owner.email, PASSWORD);
  const e = assertError(held, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.ok(retryAfter(held) >= 1 && retryAfter(held) <= 5, `the account's wait is at most 5 s at this count: ${retryAfter(held)}`);
  assert.equal(e.retry_after_seconds, retryAfter(held));
  assert.match(e.suggestion, /seconds/);
  // Trying again during that wait neither restarts nor lengthens it.
  const again = await cafe.signIn(owner.email, PASSWORD);
  assertError(again, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.ok(retryAfter(again) <= retryAfter(held), `${retryAfter(again)} after ${retryAfter(held)}`);
  // Addresses that signed the owner in before are not slowed by the account's count.
  assert.equal((await at(HOME).signIn(owner.email, PASSWORD)).status, 200);
  assert.equal((await at(PHONE).signIn(owner.email, PASSWORD)).status, 200);

  // A passkey is never refused by these counts: not at a new address while
  // the account is slowed, not at the locked address, where it lifts the lock.
  const fresh = await passkey.signIn(at(ELSEWHERE));
  assert.equal(fresh.status, 200, fresh.text);
  const there = await passkey.signIn(attacker);
  assert.equal(there.status, 200, there.text);
  assert.equal(there.json.user, `Olive Owner <${owner.email}>`);
  const unlocked = await at(ATTACKER).signIn(owner.email, PASSWORD);
  assert.equal(unlocked.status, 200, unlocked.text);

  // The audit log: the lock, the slowdown and the unlock, with the addresses
  // involved (written just after the answers that made them: read until there).
  let audit = [];
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    audit = (await owner.call('GET', '/api/org/audit')).json.entries;
    if (['sign_in_locked', 'sign_in_slowed', 'sign_in_unlocked'].every((a) => audit.some((x) => x.action === a))) break;
  }
  const of = (action) => audit.filter((x) => x.action === action);
  const [locked] = of('sign_in_locked');
  assert.ok(locked, JSON.stringify(audit.map((x) => x.action)));
  assert.match(locked.detail, new RegExp(ATTACKER.replaceAll('.', '\\.')));
  assert.match(locked.detail, new RegExp(owner.email.replaceAll('.', '\\.')));
  assert.equal(locked.actor, 'sign-in protection');
  const [slowed] = of('sign_in_slowed');
  assert.ok(slowed, JSON.stringify(audit.map((x) => x.action)));
  for (const address of [ATTACKER, SPREAD[0]]) assert.ok(slowed.detail.includes(address), `${address} in ${slowed.detail}`);
  const [lifted] = of('sign_in_unlocked');
  assert.ok(lifted, JSON.stringify(audit.map((x) => x.action)));
  assert.match(lifted.detail, new RegExp(ATTACKER.replaceAll('.', '\\.')));
  assert.match(lifted.detail, /passkey/);
  assert.equal(of('sign_in_locked').length, 1, 'one lock, written once');
});
