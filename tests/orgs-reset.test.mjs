// Back in without e-mail: password reset links, in Chromium through the
// real Workers in workerd. The sign-in page's "Forgot password?" says to
// ask an admin; an admin makes a member's link on the Team page (shown
// once); the member opens it, sets a new password and lands signed in;
// the old password is refused and the new one works; the link a second
// time is refused with what to do; a newer link replaces an older one;
// a member whose account another organization shares gets none, nor
// does the admin themself, nor may a non-admin make one; the audit log
// lists the link and the reset. axe on the reset page and its refusal.
// On the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { PASSWORD, Person, assertError, newOrgAdmin } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { PasswordSignIn, T } from './support/pages.mjs';

const NEW_PASSWORD = 'a new staple for the battery horse';
const { edge, sessionSecret } = await sharedStack();
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A fresh browser context (one person), failing on any wasm panic or page error. */
async function person() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) errors.push(m.text()); });
  return { context, page, errors, go: (p) => page.goto(edge.url + p) };
}

/** `admin` invites a new person as `role`, who joins with PASSWORD (an account of their own, or `existing`'s). */
async function join(admin, role, existing) {
  const invited = await admin.invite(role);
  assert.equal(invited.status, 201, invited.text);
  const p = existing ?? Object.assign(new Person(edge.url), {
    name: `${role} ${Math.random().toString(16).slice(2, 8)}`,
    email: `${role}.${Math.random().toString(16).slice(2, 10)}@example.com`,
  });
  const joined = await p.accept(invited.json.token, { email: p.email, password: PASSWORD, name: p.name });
  assert.equal(joined.status, 200, joined.text);
  const members = (await admin.call('GET', '/api/org/members')).json.members;
  p.account = members.find((m) => m.email === p.email).account;
  return p;
}

const makeLink = (admin, account) => admin.call('POST', `/api/org/members/${account}/reset`);

test('a member locked out of their password is let back in by an admin\'s one-time reset link', async () => {
  const admin = await newOrgAdmin(edge.url, sessionSecret, 'Reset Co');
  admin.name = 'Reset Co Admin';
  const members = (await admin.call('GET', '/api/org/members')).json.members;
  admin.account = members.find((m) => m.email === admin.email).account;
  const operator = await join(admin, 'operator');
  const viewer = await join(admin, 'viewer');
  // Someone who is also in another organization.
  const other = await newOrgAdmin(edge.url, sessionSecret, 'Elsewhere Ltd');
  const shared = await join(other, 'viewer');
  await join(admin, 'viewer', shared);
  // One invitation left pending (its Revoke button keeps the invitations'
  // table focusable for axe), whose token is later tried as a reset link.
  const invite = await admin.invite('viewer');

  // The sign-in page says where a forgotten password's way back is.
  const member = await person();
  await member.go('/');
  await member.page.getByText('Forgot password?').click();
  await member.page.getByText('Ask an admin of your organization for a password reset link').waitFor({ timeout: T });
  assert.match(await member.page.locator('details.forgot').innerText(), /No e-mail.*password reset link.*Team page.*passkey/s);

  // The admin makes the operator's link on the Team page: shown once, with Copy.
  const boss = await person();
  await boss.go('/');
  await new PasswordSignIn(boss.page).signIn(admin.email, PASSWORD);
  await boss.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  await boss.go('/team');
  await boss.page.getByRole('button', { name: `Make a reset link for ${operator.name}` }).click();
  await boss.page.getByRole('heading', { name: `Password reset link for ${operator.name}` }).waitFor({ timeout: T });
  const link = await boss.page.getByRole('textbox', { name: 'Password reset link' }).inputValue();
  assert.match(link, new RegExp(`^${edge.url}/reset#reset_[0-9a-f]{16}[A-Za-z0-9_-]{43}$`));
  // Focus moves to Copy on the next frame after the link shows.
  await boss.page.waitForFunction(() => document.activeElement?.id === 'copy-reset', null, { timeout: T });
  await boss.page.getByRole('button', { name: 'Copy link' }).waitFor();
  await axe(boss.page, 'team, a reset link made');
  await screenshot(boss.page, 'orgs-reset-link');
  // Once: a reload shows the team, not the link.
  await boss.page.reload();
  await boss.page.getByRole('button', { name: `Make a reset link for ${operator.name}` }).waitFor({ timeout: T });
  assert.equal(await boss.page.getByRole('textbox', { name: 'Password reset link' }).count(), 0);
  assert.ok(!(await boss.page.content()).includes(link.split('#')[1]), 'the token is not on the page again');

  // The member opens it, sets a new password and lands signed in.
  await member.page.goto(link);
  await member.page.getByText(`A new password for ${operator.name}`).waitFor({ timeout: T });
  assert.match(await member.page.locator('#whose').innerText(), new RegExp(`${operator.email}.*Reset Co`));
  await axe(member.page, 'the reset page');
  await screenshot(member.page, 'orgs-reset-page');
  await member.page.getByLabel('New password', { exact: true }).fill('short');
  await member.page.getByRole('button', { name: 'Set password and sign in' }).click();
  await member.page.getByText('Use at least 12 characters').waitFor({ timeout: T });
  await member.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await member.page.getByRole('button', { name: 'Set password and sign in' }).click();
  await member.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  assert.equal(new URL(member.page.url()).pathname, '/');
  assert.match(await member.page.locator('.who').innerText(), /Reset Co · operator/);

  // The old password is refused, the new one works.
  assertError(await new Person(edge.url).signIn(operator.email, PASSWORD), 401, 'EDGE.SIGN_IN.FAILED');
  const again = await new Person(edge.url).signIn(operator.email, NEW_PASSWORD);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.org.name, 'Reset Co');

  // The same link a second time: refused, asking the admin for a new one.
  const late = await person();
  await late.page.goto(link);
  const refusal = late.page.getByRole('alert');
  await refusal.locator('.error-title', { hasText: 'already used' }).waitFor({ timeout: T });
  assert.match(await refusal.getByTestId('refusal').innerText(), /Ask the admin who gave you this link for a new one/);
  assert.match(await refusal.locator('.error-code').textContent(), /EDGE\.RESET\.USED/);
  await axe(late.page, 'a used reset link');
  const used = assertError(await new Person(edge.url).call('POST', '/api/resets/use', { token: link.split('#')[1], password: 'yet another long password' }), 410, 'EDGE.RESET.USED');
  assert.match(used.suggestion, /ask an admin of your organization for a new reset link/);
  assert.equal((await new Person(edge.url).signIn(operator.email, 'yet another long password')).status, 401);

  // A newer link replaces the older one.
  const first = await makeLink(admin, viewer.account);
  assert.equal(first.status, 201, first.text);
  assert.equal(first.json.member, viewer.account);
  assert.ok(first.json.expires_at - Date.now() / 1000 > 24 * 3600 - 60, 'a day');
  const second = await makeLink(admin, viewer.account);
  assert.equal(second.status, 201, second.text);
  assertError(await new Person(edge.url).call('POST', '/api/resets/preview', { token: first.json.token }), 404, 'EDGE.RESET.UNKNOWN');
  const preview = await new Person(edge.url).call('POST', '/api/resets/preview', { token: second.json.token });
  assert.equal(preview.status, 200, preview.text);
  assert.deepEqual([preview.json.email, preview.json.org_name], [viewer.email, 'Reset Co']);
  // An invitation's token is no reset link.
  assertError(await new Person(edge.url).call('POST', '/api/resets/preview', { token: invite.json.token }), 404, 'EDGE.RESET.UNKNOWN');

  // A member whose account another organization shares gets no link: the Team page says what to do.
  await boss.page.getByRole('button', { name: `Make a reset link for ${shared.name}` }).click();
  const refused = boss.page.getByRole('alert');
  await refused.locator('.error-title', { hasText: 'belongs to another organization too' }).waitFor({ timeout: T });
  assert.match(await refused.innerText(), /passkey/);
  assert.match(await refused.locator('.error-code').textContent(), /EDGE\.RESET\.OTHER_ORG/);
  assert.equal(await boss.page.getByRole('textbox', { name: 'Password reset link' }).count(), 0);
  await axe(boss.page, 'team, a reset link refused');
  const elsewhere = assertError(await makeLink(admin, shared.account), 409, 'EDGE.RESET.OTHER_ORG');
  assert.match(elsewhere.suggestion, /passkey/);
  // Nor the admin's own, nor by anyone but an admin.
  assertError(await makeLink(admin, admin.account), 403, 'EDGE.RESET.SELF');
  assertError(await makeLink(viewer, operator.account), 403, 'EDGE.ROLE.FORBIDDEN');
  assertError(await makeLink(operator, viewer.account), 403, 'EDGE.ROLE.FORBIDDEN');
  // Another organization's admin cannot reach this one's members.
  assert.equal((await makeLink(other, operator.account)).status, 404);

  // The audit log lists the links made and the reset.
  const audit = (await admin.call('GET', '/api/org/audit')).json.entries;
  const made = audit.filter((e) => e.action === 'reset_link_created');
  assert.equal(made.length, 3, JSON.stringify(audit));
  assert.ok(made.every((e) => e.actor.includes(admin.email)));
  assert.ok(made.some((e) => e.detail.includes(operator.email)));
  const reset = audit.filter((e) => e.action === 'password_reset');
  assert.equal(reset.length, 1, JSON.stringify(audit));
  assert.ok(reset[0].actor.includes(operator.email) && reset[0].detail.includes(admin.email), JSON.stringify(reset[0]));
  await boss.go('/audit');
  await boss.page.getByRole('cell', { name: 'Set a new password with a reset link' }).waitFor({ timeout: T });
  assert.equal(await boss.page.getByRole('cell', { name: 'Made a password reset link' }).count(), 3);

  for (const p of [member, boss, late]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});
