// Accessibility and layout: axe-core finds no serious or critical violation on
// any page, at phone and desktop width (screenshots of each into
// tests/artifacts); the purchase flow works from the keyboard with a visible
// focus. As an organization's members on the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SHARED_SERVICE, sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { App, ShipPage, TrackingPage, T, buyViaApi } from './support/pages.mjs';

const shared = await sharedStack();
let stack, browser, label;
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
before(async () => {
  stack = await orgStack(shared);
  browser = await launch();
  await stack.webhookSecret(WEBHOOK_SECRET);
  // One refused delivery, so the Webhooks page shows both of its tables.
  await fetch(stack.hook, { method: 'POST', body: '{"event":"label.created"}', headers: { 'svc-signature': `sha256=${'0'.repeat(64)}` } });
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Atlas Freight', description: 'Atlas contract' });
  await stack.sim.control('POST', `/__sim/accounts/${stack.accountId}/carrier-accounts`, { carrier: 'Harbor Parcel', description: 'Old Harbor account', invalid_credentials: true });
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 1999, card: 'declined', auto_reload: { threshold_cents: 1000, amount_cents: 5000 } });
});
after(async () => {
  await browser?.close();
});

/** Each page, in a state that shows what it is for. */
const PAGES = [
  ['ship', async (page) => {
    const ship = new ShipPage(page);
    await ship.fillAll();
    await ship.getRates();
  }],
  ['ship-confirm', async (page) => {
    const ship = new ShipPage(page);
    await ship.fillAll();
    await ship.getRates();
    await ship.buyFirst();
    await ship.dialog().getByTestId('confirm-wallet').getByText('Balance now', { exact: false }).waitFor({ timeout: T });
  }],
  ['home', async (page, app) => {
    await app.go('/');
    await page.getByTestId('labels-today').waitFor({ timeout: T });
    await page.locator('[aria-busy="true"]').waitFor({ state: 'detached', timeout: T });
  }],
  ['labels', async (page, app) => {
    await app.go('/labels');
    await page.getByLabel('Label id').waitFor();
    await page.locator('[aria-busy="true"]').waitFor({ state: 'detached', timeout: T });
  }],
  ['label', async (page, app) => {
    await app.go(`/labels/${label.id}`);
    await page.getByText('This label cannot be voided', { exact: false }).waitFor({ timeout: T });
  }],
  ['tracking', async (page, app) => {
    await app.go('/tracking');
    await new TrackingPage(page).track(label.tracking_number);
    await new TrackingPage(page).timeline().waitFor({ timeout: T });
  }],
  ['carriers', async (page, app) => {
    await app.go('/carriers');
    await page.getByText('Invalid credentials', { exact: true }).waitFor({ timeout: T });
    // The deployment's service by name, its dashboard a link out (a new tab).
    const harbor = page.getByRole('row').filter({ hasText: 'Harbor Parcel' });
    assert.match(await harbor.innerText(), new RegExp(`Reconnect it in ${SHARED_SERVICE.name}'s dashboard\\.`));
    const link = harbor.getByRole('link', { name: `${SHARED_SERVICE.name}'s dashboard` });
    assert.deepEqual(
      [await link.getAttribute('href'), await link.getAttribute('target'), await link.getAttribute('rel')],
      [SHARED_SERVICE.dashboardUrl, '_blank', 'noopener'],
    );
  }],
  ['wallet', async (page, app) => {
    await app.go('/wallet');
    await page.getByTestId('balance').waitFor({ timeout: T });
  }],
  ['webhooks', async (page, app) => {
    await app.go('/webhooks');
    await page.getByText('● Live').waitFor({ timeout: T });
    await page.locator(`tr[data-label-id="${label.id}"]`).waitFor({ timeout: T });
    await page.getByRole('cell', { name: 'Delivered' }).first().waitFor({ timeout: T });
  }],
  ['status', async (page, app) => {
    await app.go('/status');
    await page.getByRole('table').waitFor({ timeout: T });
  }],
  // An organization's keys are on their own page (the deployment's key
  // rotation on /status: tests/edge-deployment.test.mjs).
  ['keys', async (page, app) => {
    await app.go('/keys');
    await page.getByRole('region', { name: 'Live keys' }).waitFor({ timeout: T });
  }],
];

for (const [vp, viewport] of Object.entries(VIEWPORTS)) {
  test(`every page at ${vp} width (${viewport.width}×${viewport.height}): no serious or critical axe violation, no sideways scrolling`, async () => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(stack.edge.url + '/');
    await page.getByLabel('Email').waitFor({ timeout: T });
    await axe(page, 'login');
    await screenshot(page, `login-${vp}`);
    const app = new App(page, stack);
    await app.signIn(stack.users.admin);
    label ??= await buyViaApi(page);
    await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`).catch(() => {});
    for (const [name, show] of PAGES) {
      if (name.startsWith('ship')) await app.go('/ship');
      await show(page, app);
      await axe(page, name);
      if (name !== 'ship-confirm') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px at ${vp} width`);
      }
      await screenshot(page, `${name}-${vp}`);
    }
    await context.close();
  });
}

test('dark mode: the palette follows prefers-color-scheme and still passes axe', async () => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(stack.users.admin, '/wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor);
  const root = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.equal(root, 'rgb(11, 17, 32)', `dark background, got ${root} / ${bg}`);
  await axe(page, 'wallet (dark)');
  await screenshot(page, 'wallet-dark');
  await app.go('/ship');
  await new ShipPage(page).fillAll();
  await new ShipPage(page).getRates();
  await axe(page, 'ship (dark)');
  await screenshot(page, 'ship-dark');
  await context.close();
});

test('keyboard: skip link, a visible focus ring, the purchase dialog opens from the keyboard and Escape closes it', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(stack.users.operator);
  const ship = new ShipPage(page);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  assert.equal(await skip.evaluate((el) => el === document.activeElement), true, 'the first Tab reaches the skip link');
  assert.ok((await skip.boundingBox()).x >= 0, 'the focused skip link is on screen');
  await ship.fillAll();
  await ship.group('Parcel').getByLabel('Height (in)').focus();
  await page.keyboard.press('Enter'); // submits the form: rates
  await ship.table().waitFor({ timeout: T });
  const buy = ship.buyButtons().first();
  await buy.focus();
  const outline = await buy.evaluate((el) => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth);
  assert.match(outline, /^solid [1-9]/, `focus ring: ${outline}`);
  await page.keyboard.press('Enter');
  await ship.dialog().waitFor({ timeout: T });
  assert.equal(await ship.dialog().evaluate((d) => d.contains(document.activeElement)), true, 'focus moved into the dialog');
  await page.keyboard.press('Escape');
  await ship.dialog().waitFor({ state: 'detached', timeout: T });
  await context.close();
});
