// The dashboard where the service fails, in Chromium through the real
// Workers in workerd and the real simulator, as an organization's members:
// a stack of this file's own, because each test here injects a fault into
// the simulator (its faults hold for every caller, and the shared stack's
// simulator is every test file's).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch } from './support/browser.mjs';
import { T, openSignedIn } from './support/pages.mjs';

let own, stack, browser;
before(async () => {
  own = await startStack();
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
