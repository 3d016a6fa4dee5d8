// The API status page (environment, scopes, limits as last seen, role; never
// the key), key rotation by an admin, carrier accounts and the wallet page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newKeys, newUsers, startEdge, startSim } from './support/stack.mjs';
import { launch, screenshot } from './support/browser.mjs';
import { T, openSignedIn } from './support/pages.mjs';

let sim, edge, browser, keys, users, next;
before(async () => {
  keys = newKeys();
  users = newUsers();
  sim = await startSim({ keys });
  // The rotation candidate: a second live key on the same account, as the service's dashboard would make.
  next = (await sim.control('POST', '/__sim/keys', { env: 'live', scopes: ['rates:read', 'labels:write', 'labels:read', 'tracking:read', 'addresses:read', 'carrier-accounts:read', 'batches:write', 'batches:read', 'wallet:read'], account: 'acct_demo' })).key;
  edge = await startEdge({ upstream: sim.url, keys, users, secrets: { SVC_LIVE_KEY_NEXT: next } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await edge?.stop();
  await sim?.stop();
});
const stack = () => ({ edge, sim, users, keys });

const signedIn = (role, path) => openSignedIn(browser, stack(), users[role], { path });

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
  for (const k of [keys.live, keys.sandbox, next]) assert.ok(!html.includes(k.slice(9)), 'no key on the page');
  await context.close();
});

test('rotation: an admin verifies the next live key and activates it; calls keep working', async () => {
  const { context, page, app } = await signedIn('admin', '/status');
  const live = page.getByRole('region', { name: 'Live keys' });
  await live.waitFor({ timeout: T });
  assert.match(await live.innerText(), /current slot\s*In use/);
  await live.getByRole('button', { name: 'Verify the new live key' }).click();
  await live.getByText('Verified', { exact: false }).waitFor({ timeout: T });
  await live.getByRole('button', { name: 'Activate the new live key' }).click();
  await live.getByRole('button', { name: 'Yes, activate it' }).click();
  await page.getByRole('region', { name: 'Live keys' }).getByText(/next slot\s*In use/).waitFor({ timeout: T });
  assert.equal(await page.getByRole('button', { name: 'Activate the new live key' }).count(), 0);
  await screenshot(page, 'status-rotated');
  // The old key is revoked at the service; the dashboard works on the new one.
  await sim.control('POST', `/__sim/keys/${keys.live}/revoke`);
  await app.nav('Wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  await context.close();
});

test('carrier accounts: each connected account with its state; broken credentials are explained', async () => {
  await sim.control('POST', '/__sim/accounts/acct_demo/carrier-accounts', { carrier: 'Comet Express', description: 'Comet main' });
  await sim.control('POST', '/__sim/accounts/acct_demo/carrier-accounts', { carrier: 'Pacific Post', description: 'PP legacy', invalid_credentials: true });
  const { context, page } = await signedIn('viewer', '/carriers');
  const ok = page.getByRole('row').filter({ hasText: 'Comet main' });
  await ok.waitFor({ timeout: T });
  assert.match(await ok.innerText(), /Active/);
  const broken = page.getByRole('row').filter({ hasText: 'PP legacy' });
  assert.match(await broken.innerText(), /Invalid credentials[\s\S]*rates are not offered/);
  await context.close();
});

test('wallet: a low balance is flagged and what auto-reload does for the next purchase is said', async () => {
  await sim.control('PUT', '/__sim/accounts/acct_demo/wallet', { balance_cents: 1200, card: 'ok', auto_reload: { threshold_cents: 1000, amount_cents: 5000 } });
  const { context, page } = await signedIn('viewer', '/wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await page.getByTestId('balance').innerText(), '$12.00');
  await page.getByRole('alert').getByText('Low balance', { exact: false }).waitFor();
  assert.match(await page.getByTestId('auto-reload').innerText(), /card is charged \$50\.00.*at least \$10\.00/);
  await sim.control('PUT', '/__sim/accounts/acct_demo/wallet', { balance_cents: 90000, card: 'missing', auto_reload: { threshold_cents: 1000, amount_cents: 5000 } });
  await page.reload();
  await page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await page.getByRole('alert').count(), 0, 'no low-balance warning at $900');
  assert.match(await page.getByTestId('auto-reload').innerText(), /no card on file/);
  await context.close();
});
