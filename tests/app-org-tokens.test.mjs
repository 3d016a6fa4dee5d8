// Personal access tokens in the dashboard, in Chromium through the real
// Workers in workerd: an organization's operator (signed in with a token
// on the login page) makes one on the Access tokens page, sees it once,
// copies it; a fresh browser context signs in with what was copied; the
// list then shows its last use and never the token; revoking it (after a
// confirmation) stops the next sign-in; the admin sees every member's.
// axe on the page. On the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot } from './support/browser.mjs';
import { App, T } from './support/pages.mjs';

const shared = await sharedStack();
const edge = shared.edge;
let browser, org, stack;
before(async () => {
  org = await orgStack(shared, { orgName: 'Token Goods' });
  stack = org;
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A fresh browser context, failing on any wasm panic or page error. */
async function context() {
  const ctx = await browser.newContext();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: edge.url });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /panicked|RuntimeError/.test(m.text())) errors.push(m.text()); });
  return { ctx, page, errors, app: new App(page, stack) };
}

test('a member makes a token, copies it once, and a fresh browser signs in with it until it is revoked', async () => {
  const op = await context();
  await op.app.signIn(org.users.operator);
  await op.app.nav('Access tokens');
  const page = op.page;
  await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor({ timeout: T });
  await page.getByText('No access tokens yet.').or(page.getByRole('table')).first().waitFor({ timeout: T });
  // The page says which organization its tokens open (the only one: tests/edge-org-token-scope.test.mjs).
  await page.getByText('Tokens made here sign in to Token Goods only').waitFor({ timeout: T });

  // A missing name is said at the field; nothing is made.
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByText('Name the token after what uses it').waitFor({ timeout: T });
  assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Name').fill('warehouse printer');
  await page.getByLabel('Expires after').selectOption('7');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByText("Copy it now: you won't see it again.").waitFor({ timeout: T });
  const shown = await page.getByLabel('Token', { exact: true }).inputValue();
  assert.match(shown, /^parcel_pat_[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
  await page.getByRole('button', { name: 'Copy token' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor({ timeout: T });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, shown);
  const row = page.locator('tr', { hasText: 'warehouse printer' });
  await row.waitFor({ timeout: T });
  assert.match(await row.innerText(), new RegExp(`…${shown.slice(-4).replace(/[-_]/g, '.')}`));
  assert.match(await row.innerText(), /Never/);
  await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze().then((r) => {
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  });
  await screenshot(page, 'org-tokens-created');
  // Done: the token is gone from the page for good.
  await page.getByRole('button', { name: 'Done' }).click();
  assert.ok(!(await page.content()).includes(shown.slice(27)), 'the page still holds the token');

  // A fresh context signs in with what was copied, as the operator.
  const script = await context();
  await script.app.signIn({ token: copied });
  const session = await script.page.evaluate(async () => (await fetch('/api/session')).json());
  assert.equal(session.role, 'operator');
  assert.equal(session.org.id, org.org.id);

  // The list shows its last use, and still never the token.
  await page.reload();
  await row.waitFor({ timeout: T });
  await page.waitForFunction(() => !/Never/.test(document.querySelector('tr[data-token]')?.innerText ?? 'Never'), null, { timeout: T });
  assert.ok(!(await page.content()).includes(shown.slice(27)));

  // Revoking asks first; then the next sign-in with it is refused.
  await row.getByRole('button', { name: /^Revoke/ }).click();
  await page.getByText('Revoke “warehouse printer”? Scripts using it can no longer sign in.').waitFor({ timeout: T });
  await page.getByRole('button', { name: 'Yes, revoke' }).click();
  await row.waitFor({ state: 'detached', timeout: T });
  const later = await context();
  await later.page.goto(edge.url + '/');
  await later.page.getByRole('button', { name: 'Use an access token' }).click();
  await later.page.getByLabel('Access token').fill(copied);
  await later.page.getByRole('button', { name: 'Sign in' }).click();
  await later.app.alert().waitFor({ timeout: T });
  assert.match(await later.app.alert().innerText(), /not valid/);

  // The admin's page lists every member's tokens, with the owner.
  const admin = await context();
  await admin.app.signIn(org.users.admin, '/tokens');
  await admin.page.getByRole('heading', { name: 'All tokens' }).waitFor({ timeout: T });
  const viewerRow = admin.page.locator('tr', { hasText: 'viewer test script' });
  await viewerRow.waitFor({ timeout: T });
  assert.match(await viewerRow.innerText(), new RegExp(org.people.viewer.email.replace(/\./g, '\\.')));

  for (const c of [op, script, later, admin]) {
    assert.deepEqual(c.errors, []);
    await c.ctx.close();
  }
});
