// Who may switch between live and sandbox (issue 35's first item), in
// Chromium through the real Worker in workerd: an organization lets only
// its admins switch until an admin allows operators on the Team page (an
// audit entry); an operator then sees the switch in the top bar and uses it
// both ways; a viewer never may. On the shared stack, with an organization
// of the test's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { assertError, orgStack } from './support/orgs.mjs';
import { axe, launch } from './support/browser.mjs';
import { T, modeText, openSignedIn } from './support/pages.mjs';

const shared = await sharedStack();
let browser, stack;
before(async () => {
  browser = await launch();
  stack = await orgStack(shared, { orgName: 'Tideway Supply' });
});
after(async () => {
  await browser?.close();
});

const SETTING = 'Operators may switch between live and sandbox';
const toSandbox = (person) => person.call('PUT', '/api/session/mode', { mode: 'sandbox' });

test('operators switch between live and sandbox once an admin allows it on the Team page; viewers never', async () => {
  const { operator, viewer, admin } = stack.people;

  // Off in a new organization: the operator has no switch and is refused, told who can allow it and where.
  const op = await openSignedIn(browser, stack, stack.users.operator);
  assert.equal(await modeText(op.page), 'Live mode');
  assert.equal(await op.page.getByRole('button', { name: 'Switch to sandbox' }).count(), 0, 'no switch while only admins may');
  const off = assertError(await toSandbox(operator), 403, 'EDGE.ROLE.FORBIDDEN');
  assert.equal(off.message, 'This organization lets only admins switch between live and sandbox.');
  assert.match(off.suggestion, /An admin can allow operators .* Team page \(\/team\)/);
  const viewerOff = assertError(await toSandbox(viewer), 403, 'EDGE.ROLE.FORBIDDEN');
  assert.equal(viewerOff.message, 'Only an admin can switch between live and sandbox.');
  // Only admins read or change the setting.
  assertError(await operator.call('PUT', '/api/org/mode-switch', { operators: true }), 403, 'EDGE.ROLE.FORBIDDEN');

  // The admin allows it on the Team page.
  const ad = await openSignedIn(browser, stack, stack.users.admin, { path: '/team' });
  const box = ad.page.getByLabel(SETTING);
  await box.waitFor({ timeout: T });
  assert.equal(await box.isChecked(), false, 'off in a new organization');
  const [saved] = await Promise.all([
    ad.page.waitForResponse((r) => r.url().endsWith('/api/org/mode-switch') && r.request().method() === 'PUT'),
    box.check(),
  ]);
  assert.equal(saved.status(), 200);
  assert.deepEqual(await saved.json(), { operators: true });
  await ad.page.reload();
  await ad.page.getByLabel(SETTING).waitFor({ timeout: T });
  assert.equal(await ad.page.getByLabel(SETTING).isChecked(), true, 'the setting is kept');
  // The page, its used invitations' table (nothing in it to focus but the table itself) included.
  await ad.page.getByRole('region', { name: 'Invitations table' }).waitFor({ timeout: T });
  await axe(ad.page, 'team, operators may switch');
  const audit = (await admin.call('GET', '/api/org/audit')).json.entries[0];
  assert.equal(audit.action, 'mode_switch_changed');
  assert.equal(audit.detail, 'operators may switch between live and sandbox');
  assert.match(audit.actor, new RegExp(`^${admin.name} <`));

  // The operator now has the switch and uses it both ways; the sandbox banner shows in sandbox.
  await op.page.reload();
  await op.page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await op.page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: T });
  assert.equal(await modeText(op.page), 'Sandbox mode');
  await op.page.getByRole('button', { name: 'Switch to live' }).click();
  await op.page.getByRole('status').filter({ hasText: 'Sandbox: test labels' }).waitFor({ state: 'detached', timeout: T });
  assert.equal(await modeText(op.page), 'Live mode');

  // A viewer still may not.
  const vw = await openSignedIn(browser, stack, stack.users.viewer);
  assert.equal(await vw.page.getByRole('button', { name: 'Switch to sandbox' }).count(), 0, 'viewers never switch');
  assertError(await toSandbox(viewer), 403, 'EDGE.ROLE.FORBIDDEN');

  // Turned off again, the operator is refused at once.
  await Promise.all([
    ad.page.waitForResponse((r) => r.url().endsWith('/api/org/mode-switch') && r.request().method() === 'PUT'),
    ad.page.getByLabel(SETTING).uncheck(),
  ]);
  assertError(await toSandbox(operator), 403, 'EDGE.ROLE.FORBIDDEN');
  const last = (await admin.call('GET', '/api/org/audit')).json.entries[0];
  assert.equal(last.detail, 'only admins may switch between live and sandbox');
  for (const p of [op, ad, vw]) await p.context.close();
});
