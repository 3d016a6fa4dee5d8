// Organizations in the dashboard (issue 21's first done-when), in Chromium
// through the real Worker in workerd: a new organization from a
// scripts/new-org link; its admin signs in by password, enters the
// organization's sandbox and live keys on the API keys page (a wrong one
// refused at the field; only the last four shown after), and invites an
// operator and a viewer by link; they join in their own browser contexts,
// set passwords and sign in; each sees and can do what the role allows, the
// operator buying with the organization's own key. Then a key rotation in
// the app; the organization's webhook secret entered and rotated in the
// app, its URL copied into the simulator and a label's delivery in its
// inbox; the organization's storefront widget set up in the app (a shop
// origin refused at its field, the ship-from, the snippet copied), its
// widget on that shop's page quoting with the organization's key, and its
// a link, the last admin, removal, a throttled sign-in, and one person in
// two organizations switching from the menu. axe on every new page. On the
// shared stack. (The widget's fallback when the carriers are slow:
// tests/app-widget.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, SHARED_SERVICE, sharedStack } from './support/stack.mjs';
import { newOrgLink } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { until } from './support/wait.mjs';
import { JoinPage, KeysPage, OrgShell, PasswordSignIn, ShipPage, T, TeamPage, WebhookSettingsPage, enter, modeText } from './support/pages.mjs';
import { engines, openShop, shopEvent, widgetFrame } from './support/widget.mjs';
import { startDemoShop } from '../scripts/demo-shop.mjs';

const PASSWORD = 'correct horse battery staple';
const { sim, edge, sessionSecret } = await sharedStack();
let browser, shop;
before(async () => {
  browser = await launch();
  shop = await startDemoShop();
  shop.edge = edge.url;
});
after(async () => {
  await shop?.close();
  await browser?.close();
});

const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** A fresh browser context (one person), failing on any wasm panic or page error. */
async function person() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) errors.push(m.text()); });
  return { context, page, errors, go: (p) => page.goto(edge.url + p) };
}

/** A new organization made in the browser from a scripts/new-org link; its admin is signed in. */
async function newOrg(orgName) {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = await person();
  admin.email = email('ada');
  admin.name = 'Ada Admin';
  await admin.go(link.path);
  await admin.page.getByRole('heading', { name: 'Create your organization' }).waitFor({ timeout: T });
  await new JoinPage(admin.page).createOrg({ orgName, name: admin.name, email: admin.email, password: PASSWORD });
  await admin.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  return { admin, link };
}

/** `who` opens an invitation link in their own context and joins as a new person. */
async function accept(link, who, name) {
  const p = await person();
  p.email = email(who);
  p.name = name;
  await p.page.goto(link);
  await new JoinPage(p.page).join({ name, email: p.email, password: PASSWORD });
  await p.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  return p;
}

/** What the signed-in page's session may call: the team endpoint's status. */
const membersStatus = (page) => page.evaluate(async () => (await fetch('/api/org/members')).status);

// Acme's keys belong to a simulator account of its own.
const ACME_ACCOUNT = `acct_acme_${randomBytes(4).toString('hex')}`;
const simKey = async (env) => (await sim.control('POST', '/__sim/keys', { env, scopes: ALL_SCOPES, account: ACME_ACCOUNT })).key;
/** How many calls the simulator has seen presenting `key`. */
const calls = async (key) => (await sim.control('GET', `/__sim/keys/${key}`)).calls;
const redacted = (key) => `${key.slice(0, 9)}…${key.slice(-4)}`;

/** Neither the page's text nor any of its inputs holds any of `keys` beyond its last four. */
async function assertNoKeys(page, keys, where) {
  const shown = await page.evaluate(() => [document.body.innerText, ...[...document.querySelectorAll('input, textarea')].map((i) => i.value)].join('\n'));
  for (const key of keys) assert.ok(!shown.includes(key.slice(9, -4)), `${where} shows a key beyond its last four`);
}

let acme;
test('a new organization from a setup link; its admin signs in by password, enters its sandbox and live keys and invites an operator and a viewer, who join and sign in; each does what the role allows', async () => {
  // The setup page checks the form before anything is made.
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = await person();
  await admin.go(link.path);
  const join = new JoinPage(admin.page);
  await join.createOrg({ orgName: 'Acme Parcels', name: 'Ada Admin', email: 'ada', password: 'short' });
  await admin.page.getByText('Enter your email address, like ada@example.com.').waitFor({ timeout: T });
  assert.equal(await admin.page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), 'true');
  assert.equal(await admin.page.evaluate(() => document.activeElement.id), 'email', 'focus on the first field with a problem');
  await admin.page.getByText('Use at least 12 characters').waitFor();
  await axe(admin.page, 'new organization');
  await screenshot(admin.page, 'orgs-new-org');
  admin.email = email('ada');
  admin.name = 'Ada Admin';
  await join.createOrg({ orgName: 'Acme Parcels', name: admin.name, email: admin.email, password: PASSWORD });
  const shell = new OrgShell(admin.page);
  await admin.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  assert.equal(new URL(admin.page.url()).pathname, '/');
  assert.match(await shell.current().innerText(), /Acme Parcels · admin/);
  // No keys yet: the banner says so, Home's first step is to enter them, and Ship says why it cannot quote, not "your role".
  await admin.page.getByRole('status').getByText('No API key yet').waitFor();
  await admin.page.locator('ol.checklist li[data-done="false"]').filter({ hasText: 'Enter your API keys' }).waitFor({ timeout: T });
  await admin.go('/ship');
  assert.match(await admin.page.getByTestId('guard').innerText(), /^This organization has no API key yet, so nobody can request rates/);
  // The link made one organization: opened again, it is refused with what to do.
  const again = await person();
  await again.go(link.path);
  await new JoinPage(again.page).createOrg({ orgName: 'Acme 2', name: 'Eve', email: email('eve'), password: PASSWORD });
  await again.page.getByTestId('refusal').getByText('scripts/new-org').waitFor({ timeout: T });
  assert.match(await again.page.locator('.error-code').textContent(), /EDGE\.ORG\.SETUP_INVALID/);
  await again.context.close();

  // Signs out, then in by email and password; a wrong password is refused first.
  await admin.page.getByRole('button', { name: 'Sign out' }).click();
  const signIn = new PasswordSignIn(admin.page);
  await signIn.signIn(admin.email, 'not the password at all');
  await admin.page.getByRole('alert').locator('.error-code', { hasText: 'EDGE.SIGN_IN.FAILED' }).waitFor({ state: 'attached', timeout: T });
  await axe(admin.page, 'sign-in refused');
  await signIn.signIn(admin.email.toUpperCase(), PASSWORD);
  await admin.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  for (const name of ['API keys', 'Team', 'Audit log']) await shell.menu().getByRole('link', { name }).waitFor();

  // The banner sends the admin to the API keys page.
  await admin.page.getByRole('status').filter({ hasText: 'No API key yet' }).getByRole('link', { name: 'Enter the API keys' }).click();
  const keys = new KeysPage(admin.page);
  await keys.mode('Sandbox').getByText('No sandbox key yet.').waitFor({ timeout: T });
  // A key the service does not know: refused at the field with the service's reason, nothing saved.
  const unknown = `svc_test_${randomBytes(16).toString('hex')}`;
  await keys.enter(unknown);
  await keys.fieldError().locator('.error-code', { hasText: 'EDGE.KEY.REFUSED' }).waitFor({ state: 'attached', timeout: T });
  assert.match(await keys.fieldError().locator('.error-title').innerText(), new RegExp(`^The service refused ${redacted(unknown)} \\(AUTH\\.KEY\\.INVALID.*it was not saved\\.$`));
  assert.equal(await keys.input().getAttribute('aria-invalid'), 'true');
  assert.match(await keys.input().getAttribute('aria-describedby'), /\borg-key-error\b/);
  await keys.mode('Sandbox').getByText('No sandbox key yet.').waitFor();
  await axe(admin.page, 'API keys, a key refused');
  await screenshot(admin.page, 'orgs-keys-refused');
  // The sandbox key, then the live one: the mode is the prefix's; each is
  // checked upstream, saved once however often the button is pressed, and
  // from then on shown by its last four only.
  const sandboxKey = await simKey('sandbox');
  const liveKey = await simKey('live');
  const saves = [];
  admin.page.on('request', (r) => { if (r.method() === 'PUT' && r.url().endsWith('/api/org/keys')) saves.push(r); });
  assert.equal(await keys.type(sandboxKey), `${redacted(sandboxKey)}: a sandbox key; saving makes it the organization's sandbox key.`);
  await keys.saveButton().dblclick();
  await keys.key('Sandbox', 'current').getByText(redacted(sandboxKey)).waitFor({ timeout: T });
  assert.equal(saves.length, 1, 'one save however often the button is pressed');
  assert.match(await keys.type(liveKey), /: a live key; saving makes it the organization's live key\.$/);
  await keys.saveButton().click();
  const live = keys.key('Live', 'current');
  await live.getByText(redacted(liveKey)).waitFor({ timeout: T });
  assert.equal(await keys.input().inputValue(), '', 'the input is cleared once saved');
  assert.match(await live.innerText(), /In use[\s\S]*all 9 scopes[\s\S]*Ada Admin/);
  assert.equal(await admin.page.getByText('No API key yet').count(), 0, 'the banner is gone');
  await assertNoKeys(admin.page, [unknown, sandboxKey, liveKey], 'the API keys page');
  await axe(admin.page, 'API keys');
  await screenshot(admin.page, 'orgs-keys');
  // With both keys, the new organization still works in sandbox until its
  // admin turns live on; then the switch to live is offered.
  assert.equal(await modeText(admin.page), 'Sandbox mode');
  assert.match(await admin.page.getByTestId('live-state').innerText(), /^Live mode is off: the organization works in sandbox/);
  assert.equal(await admin.page.getByRole('button', { name: 'Switch to live' }).count(), 0);
  await admin.page.getByRole('button', { name: 'Turn live mode on' }).click();
  await admin.page.getByTestId('live-state').getByText('Live mode is on', { exact: false }).waitFor({ timeout: T });
  await admin.page.getByRole('button', { name: 'Switch to live' }).waitFor({ timeout: T });

  // Team: the admin invites an operator and a viewer; each link is shown once.
  await shell.menu().getByRole('link', { name: 'Team' }).click();
  const team = new TeamPage(admin.page);
  await team.member(admin.email).waitFor({ timeout: T });
  const operatorLink = await team.invite('operator', 3);
  assert.match(operatorLink, new RegExp(`^${edge.url}/invite#\\S{20,}$`));
  await admin.page.getByText('This link is shown once.').waitFor();
  await axe(admin.page, 'team with a new link');
  await screenshot(admin.page, 'orgs-team-link');
  await admin.page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await admin.page.getByRole('textbox', { name: 'Invitation link' }).count(), 0, 'the link is gone once done');
  const viewerLink = await team.invite('viewer');
  await admin.page.waitForFunction(() => document.querySelectorAll('tr[data-invite]').length === 2, null, { timeout: T });
  assert.equal(await team.invites('Pending').count(), 2);

  // They join in their own browsers, as new people with passwords.
  const preview = await person();
  await preview.page.goto(operatorLink);
  const offer = await new JoinPage(preview.page).offer().innerText();
  assert.match(offer, /^Join Acme Parcels as operator, invited by Ada Admin/);
  await axe(preview.page, 'invitation');
  await screenshot(preview.page, 'orgs-invite');
  await preview.context.close();
  const operator = await accept(operatorLink, 'olly', 'Olly Operator');
  const viewer = await accept(viewerLink, 'vera', 'Vera Viewer');
  for (const [p, role] of [[operator, 'operator'], [viewer, 'viewer']]) {
    const s = new OrgShell(p.page);
    assert.match(await s.current().innerText(), new RegExp(`Acme Parcels · ${role}`));
    // They set a password: signing out and in again with it works.
    await p.page.getByRole('button', { name: 'Sign out' }).click();
    await new PasswordSignIn(p.page).signIn(p.email, PASSWORD);
    await p.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
    // Not an admin: no team pages in the menu, the guard on them, the Worker refuses.
    for (const name of ['API keys', 'Team', 'Audit log']) assert.equal(await s.menu().getByRole('link', { name }).count(), 0);
    await p.go('/keys');
    assert.equal(await p.page.getByTestId('guard').innerText(), 'Only admins can manage the API keys.');
    await p.go('/team');
    assert.equal(await p.page.getByTestId('guard').innerText(), 'Only admins can manage the team.');
    await p.go('/audit');
    assert.equal(await p.page.getByTestId('guard').innerText(), 'Only admins can read the audit log.');
    assert.equal(await membersStatus(p.page), 403);
  }

  // Their sessions start in live, the organization's live key: the operator
  // quotes and buys a label with it (charged to the account's wallet); the
  // viewer compares the rates but has nothing to buy with.
  await sim.control('PUT', `/__sim/accounts/${ACME_ACCOUNT}/wallet`, { balance_cents: 50000, card: 'ok', auto_reload: null });
  const liveCalls = await calls(liveKey);
  await operator.go('/ship');
  const ship = new ShipPage(operator.page);
  await ship.fillAll();
  await ship.getRates();
  await ship.buyFirst();
  await ship.dialog().getByText('Live', { exact: true }).waitFor();
  await ship.confirmButton().click();
  assert.doesNotMatch(await ship.trackingNumber(), /^9999/, 'a live label');
  assert.equal((await sim.control('GET', `/__sim/accounts/${ACME_ACCOUNT}`)).live_labels, 1, 'bought on the organization\'s own account');
  assert.ok(await calls(liveKey) > liveCalls, 'with the key its admin entered');
  await viewer.go('/ship');
  const compare = new ShipPage(viewer.page);
  await compare.fillAll();
  await compare.getRates();
  assert.ok(await compare.rows().count() >= 1);
  assert.equal(await compare.buyButtons().count(), 0);
  await viewer.page.getByText('Your role can compare rates but not buy labels.').waitFor();

  // The admin sees both, their invitations accepted, and the audit log in words.
  await admin.page.reload();
  await team.member(operator.email).waitFor({ timeout: T });
  assert.match(await team.member(operator.email).innerText(), /Olly Operator/);
  assert.equal(await admin.page.getByLabel('Role of Vera Viewer').inputValue(), 'viewer');
  assert.equal(await team.invites('Accepted').count(), 2);
  assert.equal(await membersStatus(admin.page), 200);
  await shell.menu().getByRole('link', { name: 'Audit log' }).click();
  const log = admin.page.getByRole('table', { name: /audit log/ });
  await log.waitFor({ timeout: T });
  const what = await log.locator('tbody td[data-label="What"]').allInnerTexts();
  assert.equal(what.at(-1), 'Created the organization', 'newest first: the creation last');
  for (const words of ['Invited someone', 'Joined']) assert.ok(what.includes(words), `${words} in ${what}`);
  assert.equal(what.filter((w) => w === 'Set an API key').length, 2, 'the two keys, not the refused one');
  assert.ok(what.includes('Turned live mode on or off'), `live mode turned on in ${what}`);
  // Times in words: an invitation's expiry is a date, never Unix seconds.
  const text = await log.innerText();
  assert.match(text, /invitation inv_\w+ as operator, expires \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  assert.doesNotMatch(text, /\b\d{10}\b/, 'no raw Unix time');
  await assertNoKeys(admin.page, [unknown, sandboxKey, liveKey], 'the audit log');
  await axe(admin.page, 'audit log');
  await screenshot(admin.page, 'orgs-audit');

  // A role change takes effect at the viewer's next page.
  await shell.menu().getByRole('link', { name: 'Team' }).click();
  await team.setRole('Vera Viewer', 'operator');
  await admin.page.getByRole('button', { name: 'Save role of Vera Viewer' }).waitFor({ state: 'detached', timeout: T });
  await viewer.page.reload();
  await viewer.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  assert.match(await new OrgShell(viewer.page).current().innerText(), /Acme Parcels · operator/);

  for (const p of [admin, operator, viewer]) assert.deepEqual(p.errors, []);
  acme = { admin, operator, viewer, shell, team, keys, sandboxKey, liveKey };
});

test('a key rotation in the app: a revoked new key is not activated and is discarded; the next is verified, activated and made the only key', async () => {
  assert.ok(acme, 'needs the organization of the first test');
  const { admin, shell, keys } = acme;
  await shell.menu().getByRole('link', { name: 'API keys' }).click();
  const card = keys.mode('Sandbox');
  const step = () => card.locator('li[aria-current="step"]').innerText();
  await card.getByText('Rotating the sandbox key').waitFor({ timeout: T });
  assert.match(await step(), /^Enter the new key/);
  // A key for a mode that has one starts its rotation: it waits in the next
  // slot. This one is revoked before it is activated: the Worker verifies
  // first and keeps the old key; the admin discards it.
  const revoked = await simKey('sandbox');
  await keys.enter(revoked);
  await keys.key('Sandbox', 'next').getByText(redacted(revoked)).waitFor({ timeout: T });
  await sim.control('POST', `/__sim/keys/${revoked}/revoke`);
  await card.getByRole('button', { name: 'Activate the new sandbox key' }).click();
  await card.getByRole('button', { name: 'Yes, activate it' }).click();
  await card.getByRole('alert').getByText(/^Not verified \(AUTH\.KEY\.REVOKED\)/).waitFor({ timeout: T });
  assert.match(await keys.key('Sandbox', 'current').innerText(), /In use/);
  await card.getByRole('button', { name: `Discard the new key ${redacted(revoked)}` }).click();
  await keys.key('Sandbox', 'next').waitFor({ state: 'detached', timeout: T });
  const next = await simKey('sandbox');
  assert.match(await keys.type(next), /saving starts a rotation: it waits as the new sandbox key until you activate it\.$/);
  await keys.saveButton().click();
  await keys.key('Sandbox', 'next').getByText(redacted(next)).waitFor({ timeout: T });
  assert.match(await keys.key('Sandbox', 'next').innerText(), /Not in use/);
  assert.match(await step(), /^Verify and activate it/);
  await card.getByRole('button', { name: 'Verify the new sandbox key' }).click();
  await card.getByRole('status').getByText(`Verified: The service accepted ${redacted(next)}.`).waitFor({ timeout: T });
  await axe(admin.page, 'API keys, a rotation under way');
  await card.getByRole('button', { name: 'Activate the new sandbox key' }).click();
  await card.getByRole('button', { name: 'Yes, activate it' }).click();
  await keys.key('Sandbox', 'next').getByText('In use', { exact: true }).waitFor({ timeout: T });
  assert.match(await step(), /^Make it the only key/);
  // The admin's session is in sandbox: its calls now present the new key.
  const before = await calls(next);
  assert.equal(await admin.page.evaluate(async () => (await fetch('/api/v1/wallet')).status), 200);
  assert.equal(await calls(next), before + 1, 'the activated key makes the calls');
  await screenshot(admin.page, 'orgs-keys-rotation');
  await card.getByRole('button', { name: `Make ${redacted(next)} the only sandbox key` }).click();
  await keys.key('Sandbox', 'next').waitFor({ state: 'detached', timeout: T });
  assert.match(await keys.key('Sandbox', 'current').innerText(), new RegExp(`${redacted(next)}[\\s\\S]*In use`));
  assert.match(await step(), /^Enter the new key/, 'ready for the next rotation');
  const old = await calls(acme.sandboxKey);
  assert.equal(await admin.page.evaluate(async () => (await fetch('/api/v1/wallet')).status), 200);
  assert.equal(await calls(acme.sandboxKey), old, 'the old key is no longer used');
  await assertNoKeys(admin.page, [revoked, next, acme.sandboxKey], 'the API keys page');
  assert.deepEqual(admin.errors, []);
});

test('webhooks in the app: the admin enters the organization\'s secret (masked, only its last four after) and rotates it, copies the URL, points the service at it, and a label\'s delivery lands in the organization\'s Webhooks inbox', async () => {
  assert.ok(acme, 'needs the organization of the first test');
  const { admin, shell } = acme;
  const { page } = admin;
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: edge.url });
  // The inbox says no secret is set and sends the admin to the settings.
  await shell.menu().getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('alert').getByRole('link', { name: 'Enter it in the webhook settings' }).click({ timeout: T });
  const hook = new WebhookSettingsPage(page);
  await hook.secrets().getByText('No secret yet').waitFor({ timeout: T });
  // Too short: said at the field before anything is sent; a space inside: the Worker's refusal, at the field.
  await hook.input().fill('whsec_short');
  await hook.saveButton().click();
  await hook.fieldProblem().getByText(/^That is too short for a webhook secret/).waitFor();
  assert.equal(await hook.input().getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'webhook-secret');
  await hook.type('whsec_0123456789 abcdef');
  await hook.saveButton().click();
  await hook.fieldProblem().locator('.error-code', { hasText: 'VALIDATION.FIELD.INVALID' }).waitFor({ state: 'attached', timeout: T });
  await hook.secrets().getByText('No secret yet').waitFor();
  // The first secret, then a rotation to a second: it waits beside the first, then is made the only one.
  const first = `whsec_${randomBytes(16).toString('hex')}`;
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const last4 = (s) => `…${s.slice(-4)}`;
  assert.match(await hook.type(first), /^Saving makes it the organization's webhook secret/);
  assert.equal(await hook.input().getAttribute('type'), 'password', 'masked');
  await hook.saveButton().click();
  await hook.secret('current').getByText(last4(first)).waitFor({ timeout: T });
  assert.equal(await hook.input().inputValue(), '', 'the input is cleared once saved');
  assert.match(await hook.step(), /^Enter the new secret here/);
  assert.match(await hook.type(secret), new RegExp(`^Saving starts a rotation: the new secret waits beside ${last4(first)}`));
  await hook.saveButton().click();
  await hook.secret('next').getByText(last4(secret)).waitFor({ timeout: T });
  assert.equal(await hook.step(), `Change the secret in ${SHARED_SERVICE.name}'s dashboard to the new one.`);
  await axe(page, 'webhook settings, a rotation under way');
  await screenshot(page, 'orgs-webhook-rotation');
  await hook.secrets().getByRole('button', { name: `Make ${last4(secret)} the only secret` }).click();
  await hook.secret('next').waitFor({ state: 'detached', timeout: T });
  await hook.secret('current').getByText(last4(secret)).waitFor();
  // The URL, copied, is the organization's own; the service is pointed at it.
  await hook.copyButton().click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  const url = await hook.url().inputValue();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  assert.match(url, new RegExp(`^${edge.url}/hooks/v1/label-created/org_[0-9a-z]+$`));
  await sim.control('PUT', `/__sim/accounts/${ACME_ACCOUNT}/webhook`, { url, secret });
  // A label bought in the dashboard: the service's delivery shows in the inbox, verified.
  await admin.go('/ship');
  const ship = new ShipPage(page);
  await ship.fillAll();
  await ship.getRates();
  await ship.buyFirst();
  await ship.confirmButton().click();
  const tracking = await ship.trackingNumber();
  await shell.menu().getByRole('link', { name: 'Webhooks' }).click();
  const received = page.getByRole('region', { name: 'Received events' });
  await received.getByText(tracking).waitFor({ timeout: 20000 });
  assert.equal(await page.getByRole('alert').filter({ hasText: 'No webhook secret' }).count(), 0);
  await page.getByRole('link', { name: 'webhook settings' }).click();
  await hook.secret('current').getByText(last4(secret)).waitFor({ timeout: T });
  await axe(page, 'webhook settings');
  // Neither page nor any input holds a secret beyond its last four.
  const shown = await page.evaluate(() => [document.body.innerText, ...[...document.querySelectorAll('input, textarea')].map((i) => i.value)].join('\n'));
  for (const s of [first, secret]) assert.ok(!shown.includes(s.slice(0, -4)), 'the settings page shows a secret beyond its last four');
  assert.deepEqual(admin.errors, []);
});

test('the storefront widget in the app: the admin sets a shop origin (a bad one refused at its field) and the ship-from, copies the snippet, and the widget on that shop\'s page quotes with the organization\'s key', async () => {
  assert.ok(acme, 'needs the organization of the first test');
  const { admin } = acme;
  const { page } = admin;
  await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: edge.url });
  await admin.go('/keys');
  await page.getByRole('link', { name: 'storefront widget settings' }).click({ timeout: T });
  await page.getByRole('heading', { name: 'Storefront widget' }).waitFor({ timeout: T });
  // Until a shop origin is saved, the page says no shop can show the widget.
  const unlisted = page.getByRole('status').filter({ hasText: 'No shop can show the widget yet' });
  await unlisted.waitFor({ timeout: T });
  const origin = page.getByLabel('Shop origin 1', { exact: true });
  await origin.fill('http://shop.example');
  // Checked as it is typed: the problem at its field; a save goes to it.
  await page.locator('#widget-origin-0-problem').getByText(/must start with https:\/\//).waitFor({ timeout: T });
  assert.equal(await origin.getAttribute('aria-invalid'), 'true');
  const save = page.getByRole('button', { name: /^(Save the widget settings|Saving)/ });
  await save.click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'widget-origin-0');
  // A pasted page address: its origin offered; then the same shop with www.
  await origin.fill('https://acme-shop.example/cart?item=1');
  await page.getByRole('button', { name: 'Use https://acme-shop.example' }).click();
  assert.equal(await origin.inputValue(), 'https://acme-shop.example');
  assert.equal(await origin.getAttribute('aria-invalid'), null);
  await page.getByRole('button', { name: 'Add https://www.acme-shop.example' }).click();
  assert.equal(await page.getByLabel('Shop origin 2', { exact: true }).inputValue(), 'https://www.acme-shop.example');
  assert.equal(await page.getByRole('button', { name: /^Add https:/ }).count(), 0, 'both listed: nothing more to offer');
  await page.getByRole('button', { name: 'Remove shop origin 2' }).click();
  await origin.fill(shop.url);
  const from = page.getByRole('group', { name: 'Ships from' });
  for (const [label, value] of [['Name', 'Acme Goods'], ['Street address', '500 Market St Suite 3'], ['City', 'San Francisco'], ['State', 'CA'], ['ZIP code', '94105']]) {
    await enter(from.getByLabel(label, { exact: true }), value);
  }
  // The fallback the widget offers when the carriers take more than 10 s.
  await page.getByLabel('Offer a fallback option when no carrier answers in time').check();
  await page.getByLabel('Name shoppers see').fill('Standard shipping');
  await page.getByLabel('Price (USD)').fill('7,95');
  await save.click();
  await page.locator('#fallback-price-problem').getByText(/^Enter a price in dollars/).waitFor({ timeout: T });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'fallback-price');
  await page.getByLabel('Price (USD)').fill('7.95');
  await page.getByLabel('Wait for carriers (seconds)').fill('10');
  await save.click();
  await page.getByRole('status').filter({ hasText: /^Saved\./ }).waitFor({ timeout: T });
  assert.equal(await unlisted.count(), 0, 'a shop is listed now');
  await axe(page, 'storefront widget settings');
  await screenshot(page, 'orgs-widget-settings');
  await page.getByRole('button', { name: 'Copy the snippet' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  const id = /data-widget="(org_[0-9a-z]+)"/.exec(snippet)?.[1];
  assert.ok(id, snippet);
  assert.ok(snippet.includes(`<script src="${edge.url}/widget/embed.js" async></script>`), snippet);

  // The widget the snippet names, on a page of that shop: quoted with Acme's key.
  // The label bought above is registered for tracking with Acme's own key,
  // off the purchase's path: the key's calls are counted once that is done.
  await until('Acme\'s labels followed', async () => {
    const list = await page.evaluate(async () => Promise.all(['live', 'sandbox'].map(async (mode) => (await (await fetch(`/api/shipments?mode=${mode}`)).json()).shipments ?? [])));
    const all = list.flat();
    return all.length > 0 && all.every((x) => x.following !== 'registering');
  }, 30_000, 250);
  const before = await calls(acme.liveKey);
  const s = await openShop(engines.chromium, browser, shop, `widget=${id}`);
  try {
    await widgetFrame(s);
    await s.page.click('#sign-in');
    const quoted = await shopEvent(s, 'quoted');
    assert.ok(quoted.detail.options.length > 0);
    assert.ok(!quoted.detail.fallback);
    assert.equal(await calls(acme.liveKey), before + 1, 'quoted with the organization\'s own key');
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
  assert.deepEqual(admin.errors, []);
});

test('the last admin is protected, a removed member is out at the next request, and a used, revoked or unknown link says what to do', async () => {
  assert.ok(acme, 'needs the organization of the first test');
  const { admin, operator, shell, team } = acme;
  await shell.menu().getByRole('link', { name: 'Team' }).click();
  await team.member(admin.email).waitFor({ timeout: T });
  // The team's tables at phone width: readable, nothing scrolls sideways.
  await admin.page.setViewportSize({ width: 390, height: 844 });
  await axe(admin.page, 'team at phone width');
  const overflow = await admin.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the team page scrolls sideways by ${overflow}px at phone width`);
  await screenshot(admin.page, 'orgs-team-phone');
  await admin.page.setViewportSize({ width: 1280, height: 800 });
  // Demoting the only admin is refused next to the table, with what to do first.
  await team.setRole('Ada Admin', 'viewer');
  await team.refusal().getByText('make another member admin first').waitFor({ timeout: T });
  assert.match(await admin.page.locator('.error-code').textContent(), /EDGE\.MEMBER\.LAST_ADMIN/);
  await axe(admin.page, 'team with a refusal');
  await admin.page.getByLabel('Role of Ada Admin').selectOption('admin');

  // Removal asks first; the removed operator's next request signs them out.
  await team.remove('Olly Operator');
  await team.member(operator.email).waitFor({ state: 'detached', timeout: T });
  await operator.page.reload();
  await operator.page.getByLabel('Email', { exact: true }).waitFor({ timeout: T });

  // A used link, a revoked one and an unknown one: each its own words; no link at all too.
  const usedLink = await team.invite('viewer');
  await admin.page.getByRole('button', { name: 'Done' }).click();
  const first = await accept(usedLink, 'una', 'Una Used');
  const late = await person();
  await late.page.goto(usedLink);
  const usedAlert = late.page.getByRole('alert');
  await usedAlert.getByTestId('refusal').getByText('Each link works once').waitFor({ timeout: T });
  // What happened once, then what to do: never the same sentence twice.
  assert.deepEqual((await usedAlert.innerText()).split('\n').filter((l) => /already used|already been used/.test(l)), ['This invitation was already used.']);
  assert.match(await late.page.locator('.error-code').textContent(), /EDGE\.INVITE\.USED/);
  // The link leads to the sign-in form, and the address says so.
  await late.page.getByRole('link', { name: 'Sign in' }).click();
  await late.page.waitForURL((u) => u.pathname === '/' && u.hash === '', { timeout: T });
  await late.page.getByLabel('Email', { exact: true }).waitFor({ timeout: T });
  await first.context.close();
  await late.context.close();
  const link = await team.invite('viewer');
  await admin.page.getByRole('button', { name: 'Done' }).click();
  const row = team.invites('Pending');
  await row.getByRole('button', { name: /^Revoke/ }).click();
  await row.waitFor({ state: 'detached', timeout: T });
  assert.equal(await team.invites('Revoked').count(), 1);
  const stranger = await person();
  await stranger.page.goto(link);
  await stranger.page.getByRole('alert').getByText('This invitation was withdrawn by an admin.').waitFor({ timeout: T });
  await stranger.page.getByTestId('refusal').getByText('Ask the admin who invited you for a new link').waitFor({ timeout: T });
  assert.match(await stranger.page.locator('.error-code').textContent(), /EDGE\.INVITE\.REVOKED/);
  await axe(stranger.page, 'a withdrawn invitation');
  await stranger.go(`/invite#${'0'.repeat(16)}${randomBytes(32).toString('base64url')}`);
  await stranger.page.getByRole('alert').getByText('This invitation link is not known.').waitFor({ timeout: T });
  await stranger.page.getByTestId('refusal').getByText('Check that you opened the whole link').waitFor({ timeout: T });
  await stranger.go('/invite');
  await stranger.page.getByText('This page opens from an invitation link').waitFor({ timeout: T });
  assert.deepEqual([...admin.errors, ...stranger.errors], []);
  await stranger.context.close();
});

test('sign-in: past the free tries the login page counts down from Retry-After', async () => {
  const p = await person();
  await p.go('/');
  const signIn = new PasswordSignIn(p.page);
  const nobody = email('nobody');
  // Each answer is a new error view with its own request id.
  const requestId = () => p.page.evaluate(() => document.querySelector('[data-testid="request-id"]')?.textContent ?? '');
  let throttled = false;
  for (let i = 0; i < 10 && !throttled; i++) {
    const before = await requestId();
    await signIn.signIn(nobody, 'not the password at all');
    await p.page.waitForFunction((b) => {
      const id = document.querySelector('[data-testid="request-id"]')?.textContent;
      return id && id !== b;
    }, before, { timeout: T });
    throttled = /EDGE\.SIGN_IN\.THROTTLED/.test(await p.page.locator('.error-code').textContent());
  }
  assert.ok(throttled, 'throttled within ten attempts');
  // The fourth try at once waits 5 s (docs/organizations.md, "Sign-in throttling").
  const countdown = await p.page.getByTestId('retry-countdown').innerText();
  const seconds = Number(/try again in (\d+) s/.exec(countdown)?.[1]);
  assert.ok(seconds >= 1 && seconds <= 5, countdown);
  await axe(p.page, 'sign-in throttled');
  await p.context.close();
});

test('one person in two organizations: joins the second with their password and switches from the menu', async () => {
  assert.ok(acme, 'needs the organization of the first test');
  const { admin, shell } = acme;
  const beta = await newOrg('Beta Goods');
  await beta.admin.go('/team');
  const link = await new TeamPage(beta.admin.page).invite('viewer');
  // Acme's admin joins Beta with the account they have; a wrong password first.
  await admin.page.goto(link);
  const join = new JoinPage(admin.page);
  await join.join({ email: admin.email, password: 'not my password at all', existing: true });
  await join.refusal().getByText('already has a Parcel account').waitFor({ timeout: T });
  await join.join({ email: admin.email, password: PASSWORD, existing: true });
  await admin.page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  assert.equal(new URL(admin.page.url()).pathname, '/');
  const select = admin.page.getByLabel('Organization', { exact: true });
  assert.match(await select.locator('option:checked').innerText(), /Beta Goods · viewer/);
  assert.deepEqual((await select.locator('option').allInnerTexts()).sort(), ['Acme Parcels · admin', 'Beta Goods · viewer']);
  assert.equal(await shell.menu().getByRole('link', { name: 'Team' }).count(), 0, 'a viewer in Beta');
  await axe(admin.page, 'the switcher');
  await screenshot(admin.page, 'orgs-switcher');
  // From Beta's viewer page on /status, the switch lands on Acme's landing page, as its admin.
  await admin.page.goto(`${edge.url}/status`);
  await shell.switchTo('Acme Parcels');
  await admin.page.waitForFunction(() => location.pathname === '/', null, { timeout: T });
  await shell.menu().getByRole('link', { name: 'Team' }).waitFor({ timeout: T });
  assert.match(await select.locator('option:checked').innerText(), /Acme Parcels · admin/);
  assert.equal(await membersStatus(admin.page), 200);
  // The keyboard reaches it: Tab from the menu's last link lands on the select.
  await shell.menu().getByRole('link').last().focus();
  await admin.page.keyboard.press('Tab');
  assert.equal(await admin.page.evaluate(() => document.activeElement.id), 'org');
  assert.deepEqual(admin.errors, []);
  await beta.admin.context.close();
});
