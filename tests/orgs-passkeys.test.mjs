// Passkeys through the real Workers in workerd, in Chromium with its
// virtual authenticator (CDP `WebAuthn`, the platform's own WebAuthn
// stack; pages at http://localhost:PORT, since Chromium refuses an IP as
// the relying party): a member adds a passkey on the Passkeys page (after
// their password), signs out, signs in with it (no password typed) into
// their organization with their role; a validly signed assertion without
// user verification is refused with the app's error view; removed, the
// passkey signs in no more. Another person's credential cannot sign in as
// the first. A prompt the person does not confirm is said plainly.
// Assertions made here with the authenticator's own key show
// that a wrong origin, a used or unknown challenge and a counter that
// does not go up are all the same 401, and that failures are throttled
// per address (429 with Retry-After).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { sharedStack } from './support/stack.mjs';
import { assertError, orgStack, Person, PASSWORD } from './support/orgs.mjs';
import { launch, screenshot } from './support/browser.mjs';
import { App, T } from './support/pages.mjs';

// The shared stack's accounts Worker takes passkeys for the dashboard at
// http://localhost:PORT (its PASSKEY_ORIGINS); the browser's pages, and so
// its cookies, are there.
const shared = await sharedStack();
const base = shared.localhost;
const stack = { edge: { url: base } };
let browser, org, other;

before(async () => {
  org = await orgStack(shared, { orgName: 'Passkey Goods' });
  other = await orgStack(shared, { orgName: 'Other Goods', roles: [] });
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A fresh context with its own virtual authenticator (user verification on). */
async function context() {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) errors.push(m.text()); });
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  return { ctx, page, errors, cdp, authenticatorId, credentials, app: new App(page, stack) };
}

async function signInWithPassword(c, person) {
  await c.page.goto(base + '/');
  await c.page.getByLabel('Email').fill(person.email);
  await c.page.getByLabel('Password').fill(PASSWORD);
  await c.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await c.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
}

async function addPasskey(c, name) {
  await c.app.nav('Passkeys');
  await c.page.getByRole('heading', { name: 'Passkeys', level: 1 }).waitFor({ timeout: T });
  await c.page.getByLabel('Name').fill(name);
  await c.page.getByLabel('Your password').fill(PASSWORD);
  await c.page.getByRole('button', { name: 'Add passkey' }).click();
  await c.page.locator('tr', { hasText: name }).waitFor({ timeout: T });
}

async function signOut(c) {
  await c.page.getByRole('button', { name: 'Sign out' }).click();
  await c.page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor({ timeout: T });
}

/** Clicks "Sign in with a passkey": signed in, or the error view's text. */
async function passkeyButton(c) {
  await c.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  const out = c.page.getByRole('button', { name: 'Sign out' });
  await out.or(c.app.alert()).first().waitFor({ timeout: T });
  // All of the error view's text, its folded Details (the code) included.
  return (await out.isVisible()) ? 'signed in' : c.app.alert().textContent();
}

const session = (c) => c.page.evaluate(async () => (await fetch('/api/session')).json());

test('a member adds a passkey and signs in with it alone; without user verification, or once removed, it is refused', async () => {
  const op = await context();
  const { page } = op;
  await signInWithPassword(op, org.people.operator);
  await op.app.nav('Passkeys');
  await page.getByText('No passkeys yet.').waitFor({ timeout: T });
  // A wrong password adds nothing, and says so.
  await page.getByLabel('Name').fill('work laptop');
  await page.getByLabel('Your password').fill('not my password');
  await page.getByRole('button', { name: 'Add passkey' }).click();
  await op.app.alert().waitFor({ timeout: T });
  assert.match(await op.app.alert().locator('.error-code').textContent(), /EDGE\.SIGN_IN\.FAILED/);
  assert.deepEqual(await op.credentials(), []);

  await addPasskey(op, 'work laptop');
  const [credential] = await op.credentials();
  assert.equal(credential.rpId, 'localhost');
  assert.equal(credential.isResidentCredential, true);
  assert.equal(Buffer.from(credential.userHandle, 'base64').toString(), org.people.operator.account);
  const row = page.locator('tr', { hasText: 'work laptop' });
  assert.match(await row.innerText(), /Never/);
  await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze().then((r) => {
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  });
  await screenshot(page, 'org-passkeys-added');

  // Signed out, the passkey alone signs in: this organization, this role.
  await signOut(op);
  assert.equal(await passkeyButton(op), 'signed in');
  const s = await session(op);
  assert.equal(s.role, 'operator');
  assert.equal(s.org.id, org.org.id);

  // The person does not confirm (no user verification on the device): the browser's own
  // refusal, said plainly; nothing reached the Worker's sign-in.
  await signOut(op);
  await op.cdp.send('WebAuthn.setUserVerified', { authenticatorId: op.authenticatorId, isUserVerified: false });
  const unconfirmed = await passkeyButton(op);
  assert.match(unconfirmed, /No passkey was used: the prompt was cancelled or timed out/);
  await op.cdp.send('WebAuthn.setUserVerified', { authenticatorId: op.authenticatorId, isUserVerified: true });

  // Validly signed but without user verification (UV clear): refused, in the app's error view.
  await op.cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId: op.authenticatorId, isBadUV: true });
  const refusal = await passkeyButton(op);
  assert.match(refusal, /EDGE\.PASSKEY\.REFUSED/);
  assert.match(refusal, /That passkey did not sign you in/);
  await screenshot(page, 'org-passkeys-refused');
  await op.cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId: op.authenticatorId, isBadUV: false });

  // The list shows its last use; removing it asks first.
  assert.equal(await passkeyButton(op), 'signed in');
  await op.app.nav('Passkeys');
  await row.waitFor({ timeout: T });
  assert.doesNotMatch(await row.innerText(), /Never/);
  await row.getByRole('button', { name: /^Remove/ }).click();
  await page.getByText('Remove “work laptop”? It can no longer sign you in.').waitFor({ timeout: T });
  await page.getByRole('button', { name: 'Yes, remove' }).click();
  await page.getByText('No passkeys yet.').waitFor({ timeout: T });

  // The device still holds it; the Worker no longer takes it.
  await signOut(op);
  assert.equal((await op.credentials()).length, 1);
  assert.match(await passkeyButton(op), /EDGE\.PASSKEY\.REFUSED/);

  // Both are in the organization's audit log, by the operator.
  const audit = (await org.people.admin.call('GET', '/api/org/audit')).json.entries;
  const mine = audit.filter((e) => e.action.startsWith('passkey_'));
  assert.deepEqual(mine.map((e) => e.action), ['passkey_removed', 'passkey_added']);
  for (const e of mine) {
    assert.match(e.actor, new RegExp(org.people.operator.email.replace(/\./g, '\\.')));
    assert.match(e.detail, /work laptop/);
  }
  assert.deepEqual(op.errors, []);
  await op.ctx.close();
});

/** base64url of bytes or text. */
const b64u = (b) => Buffer.from(b).toString('base64url');

/** An assertion made with a credential's own private key (as the authenticator would sign it). */
function assertion(credential, { challenge, origin = base, signCount, flags = 0x05, type = 'webauthn.get', userHandle }) {
  const clientData = Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const count = Buffer.alloc(4);
  count.writeUInt32BE(signCount);
  const authData = Buffer.concat([createHash('sha256').update('localhost').digest(), Buffer.from([flags]), count]);
  const key = createPrivateKey({ key: Buffer.from(credential.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(clientData).digest()]), { key, dsaEncoding: 'der' });
  const id = b64u(Buffer.from(credential.credentialId, 'base64'));
  return {
    id, rawId: id, type: 'public-key',
    response: {
      clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature),
      userHandle: userHandle ?? b64u(Buffer.from(credential.userHandle, 'base64')),
    },
  };
}

test('only the passkey\'s own person, a fresh challenge, our origin and a rising counter sign in; failures are one 401, throttled', async () => {
  const viewer = await context();
  await signInWithPassword(viewer, org.people.viewer);
  await addPasskey(viewer, 'viewer phone');
  const [credential] = await viewer.credentials();
  await viewer.ctx.close();

  const person = new Person(base);
  const challenge = async () => {
    const res = await person.call('POST', '/api/session/passkey/options');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.rpId, 'localhost');
    assert.equal(res.json.userVerification, 'required');
    assert.equal(Buffer.from(res.json.challenge, 'base64url').length, 32);
    return res.json.challenge;
  };
  const refused = async (body) => assertError(await person.call('POST', '/api/session/passkey', body), 401, 'EDGE.PASSKEY.REFUSED');

  // The key signs in as its own person, and only once per challenge.
  let count = credential.signCount;
  const good = assertion(credential, { challenge: await challenge(), signCount: ++count });
  const res = await person.call('POST', '/api/session/passkey', good);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.role, 'viewer');
  assert.equal(res.json.org.id, org.org.id);
  await refused(good);
  // Each of these alone is wrong; all are the same answer.
  await refused(assertion(credential, { challenge: await challenge(), signCount: ++count, origin: 'https://evil.example' }));
  await refused(assertion(credential, { challenge: await challenge(), signCount: ++count, origin: `http://127.0.0.1:${new URL(base).port}` }));
  await refused(assertion(credential, { challenge: b64u(randomBytes(32)), signCount: ++count }));
  await refused(assertion(credential, { challenge: await challenge(), signCount: ++count, type: 'webauthn.create' }));
  await refused(assertion(credential, { challenge: await challenge(), signCount: 1 }));
  // Another person's key, claiming to be the operator (their user handle), or another organization's admin.
  await refused(assertion(credential, { challenge: await challenge(), signCount: ++count, userHandle: b64u(org.people.operator.account) }));
  await refused(assertion(credential, { challenge: await challenge(), signCount: ++count, userHandle: b64u(other.people.admin.account) }));
  // Signed data changed after signing (the counter's last byte): the signature no longer holds.
  const tampered = assertion(credential, { challenge: await challenge(), signCount: ++count });
  const data = Buffer.from(tampered.response.authenticatorData, 'base64url');
  data[36] ^= 0x10;
  tampered.response.authenticatorData = b64u(data);
  await refused(tampered);
  // Still the viewer's: a fresh challenge with a higher count signs in.
  const again = await person.call('POST', '/api/session/passkey', assertion(credential, { challenge: await challenge(), signCount: ++count }));
  assert.equal(again.status, 200, again.text);

  // Failures count against the address's passkey sign-ins: 30 in 15 minutes, then 429.
  const address = new Person(base);
  for (let i = 0; i < 30; i++) {
    assertError(await address.call('POST', '/api/session/passkey', {}), 401, 'EDGE.PASSKEY.REFUSED');
  }
  const throttled = await address.call('POST', '/api/session/passkey', {});
  const e = assertError(throttled, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  assert.ok(e.retry_after_seconds > 0);
  assertError(await address.call('POST', '/api/session/passkey/options'), 429, 'EDGE.SIGN_IN.THROTTLED');
});
