// The API status page (environment, scopes, limits as last seen, role; never
// the key), carrier accounts and the wallet page, as an organization's
// members on the shared stack. (The deployment's key rotation on this page:
// tests/edge-deployment.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch } from './support/browser.mjs';
import { T, openSignedIn } from './support/pages.mjs';

const shared = await sharedStack();
let stack, browser;
before(async () => {
  stack = await orgStack(shared);
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const signedIn = (role, path) => openSignedIn(browser, stack, stack.users[role], { path });

test('status: role, environment, scopes and the limits last seen, and never a key', async () => {
  const { context, page, app } = await signedIn('operator', '/wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  await app.nav('API status');
  assert.equal(await page.getByTestId('role').innerText(), 'operator');
  assert.match(await page.getByTestId('environment').innerText(), /^Live/);
  assert.match(await page.getByTestId('scopes').innerText(), /labels:write/);
  const row = page.getByRole('row').filter({ hasText: 'GET /v1/wallet' });
  await row.waitFor({ timeout: T });
  const [remaining, limit] = (await row.locator('td.num').allInnerTexts()).map(Number);
  assert.equal(limit, 300);
  assert.ok(remaining < 300 && remaining >= 290, `remaining ${remaining}`);
  assert.equal(await page.getByRole('heading', { name: 'Key rotation' }).count(), 0, 'operators do not rotate keys');
  const html = await page.content();
  for (const k of [stack.keys.live, stack.keys.sandbox]) assert.ok(!html.includes(k.slice(9)), 'no key on the page');
  await context.close();
});

test('carrier accounts: each connected account with its state; broken credentials are explained', async () => {
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Comet Express', description: 'Comet main' });
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Pacific Post', description: 'PP legacy', invalid_credentials: true });
  const { context, page } = await signedIn('viewer', '/carriers');
  const ok = page.getByRole('row').filter({ hasText: 'Comet main' });
  await ok.waitFor({ timeout: T });
  assert.match(await ok.innerText(), /Active/);
  const broken = page.getByRole('row').filter({ hasText: 'PP legacy' });
  assert.match(await broken.innerText(), /Invalid credentials[\s\S]*rates are not offered/);
  await context.close();
});

test('wallet: a low balance is flagged and what auto-reload does for the next purchase is said', async () => {
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 1200, card: 'ok', auto_reload: { threshold_cents: 1000, amount_cents: 5000 } });
  const { context, page } = await signedIn('viewer', '/wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await page.getByTestId('balance').innerText(), '$12.00');
  await page.getByRole('alert').getByText('Low balance', { exact: false }).waitFor();
  assert.match(await page.getByTestId('auto-reload').innerText(), /card is charged \$50\.00.*at least \$10\.00/);
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 90000, card: 'missing', auto_reload: { threshold_cents: 1000, amount_cents: 5000 } });
  await page.reload();
  await page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await page.getByRole('alert').count(), 0, 'no low-balance warning at $900');
  assert.match(await page.getByTestId('auto-reload').innerText(), /no card on file/);
  await context.close();
});
