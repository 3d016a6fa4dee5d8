// The dashboard where the service fails or the deployment is set otherwise,
// in Chromium through the real Workers in workerd and the real simulator,
// as an organization's members, on a stack of this file's own: each test
// here injects a fault into the simulator (its faults hold for every
// caller, and the shared stack's simulator is every test file's) or needs
// a setting the shared deployment does not have (ROLES).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot } from './support/browser.mjs';
import { T, openSignedIn } from './support/pages.mjs';

// This deployment keeps the wallet from viewers (ROLES): every read scope but wallet:read.
const VIEWER_SCOPES = ['rates:read', 'labels:read', 'tracking:read', 'addresses:read', 'carrier-accounts:read', 'batches:read'];
let own, stack, browser;
before(async () => {
  own = await startStack({ edgeVars: { ROLES: JSON.stringify({ viewer: VIEWER_SCOPES }) } });
  stack = await orgStack(own);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await own?.stop();
});

const signedIn = (role = 'operator') => openSignedIn(browser, stack, stack.users[role]);

test('address service down: the error is shown and rates may be fetched without the check', async () => {
  const { context, page, ship } = await signedIn('operator');
  await stack.sim.control('PUT', '/__sim/faults', { address_service_down: true });
  try {
    await ship.fillAll();
    await ship.getRatesButton().click();
    await page.getByText('ADDRESS.VALIDATION.SERVICE_ERROR', { exact: false }).first().waitFor({ timeout: T });
    const go = page.getByRole('button', { name: 'Continue without checking' });
    // Both addresses are checked at once; their answers land one after the other.
    await go.nth(1).waitFor({ timeout: T });
    assert.equal(await go.count(), 2);
    await go.first().click();
    await go.first().click();
    const unchecked = page.getByText('Not checked', { exact: true });
    await unchecked.nth(1).waitFor({ timeout: T });
    assert.equal(await unchecked.count(), 2);
    await ship.getRates();
    assert.ok((await ship.rows().count()) >= 4);
  } finally {
    await stack.sim.control('PUT', '/__sim/faults', {});
  }
  await context.close();
});

test('a page outside the role\'s scopes says what the role cannot do, and calls nothing', async () => {
  const { context, page, app } = await signedIn('viewer');
  const menu = page.getByRole('navigation', { name: 'Main' });
  await menu.getByRole('link', { name: 'Labels' }).waitFor();
  assert.equal(await menu.getByRole('link', { name: 'Wallet' }).count(), 0, 'the menu leaves the wallet out');
  const walletCalls = [];
  page.on('request', (r) => { if (r.url().endsWith('/api/v1/wallet')) walletCalls.push(r.url()); });
  // Typed or bookmarked, the operator's page still is not reachable.
  await app.go('/wallet');
  await page.getByRole('heading', { name: 'Wallet', level: 1 }).waitFor({ timeout: T });
  assert.equal(await page.getByTestId('guard').innerText(), 'Your role cannot see the wallet (wallet:read). An admin can grant it.');
  assert.equal(await page.getByTestId('balance').count(), 0);
  assert.equal(await app.alert().count(), 0, 'no refusal: nothing was asked');
  assert.deepEqual(walletCalls, []);
  await screenshot(page, 'guard-viewer-wallet');
  await context.close();

  const op = await signedIn('operator');
  await op.app.go('/wallet');
  await op.page.getByTestId('balance').waitFor({ timeout: T });
  assert.equal(await op.page.getByTestId('guard').count(), 0);
  await op.context.close();
});
