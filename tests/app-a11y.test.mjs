// Accessibility and layout: axe-core finds no serious or critical violation on
// any page (every page the menu links to, the detail pages and the pages a
// link opens), at phone and desktop width, light and dark, and nothing
// scrolls sideways (a screenshot of each into tests/artifacts); the purchase
// flow works from the keyboard with a visible focus. As an organization's
// members on the shared stack. The batch screens have their own file
// (app-batches-a11y).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SHARED_SERVICE, sharedStack } from './support/stack.mjs';
import { newOrgLink, orgStack } from './support/orgs.mjs';
import { axe, axeEveryWay, launch, screenshot } from './support/browser.mjs';
import { App, ShipPage, TrackingPage, T, buyViaApi } from './support/pages.mjs';

const shared = await sharedStack();
let stack, browser, label;
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

/** Nothing on the page is still loading. */
const settled = (page) => page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: T });

/** Opens `path` and waits for its heading and for nothing still loading. */
const opened = (path, heading) => async (page, app) => {
  await app.go(path);
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor({ timeout: T });
  await settled(page);
};

/** Each signed-in page, in a state that shows what it is for: [name, path, show]. */
const PAGES = [
  ['ship', '/ship', async (page) => {
    const ship = new ShipPage(page);
    await ship.fillAll();
    await ship.getRates();
  }],
  ['ship-confirm', '/ship', async (page) => {
    const ship = new ShipPage(page);
    await ship.fillAll();
    await ship.getRates();
    await ship.buyFirst();
    await ship.dialog().getByTestId('confirm-wallet').getByText('Balance now', { exact: false }).waitFor({ timeout: T });
  }],
  ['home', '/', async (page, app) => {
    await app.go('/');
    await page.getByTestId('labels-today').waitFor({ timeout: T });
    await settled(page);
  }],
  ['labels', '/labels', async (page, app) => {
    await app.go('/labels');
    await page.getByLabel('Label id').waitFor();
    await settled(page);
  }],
  ['label', '/labels/:id', async (page, app) => {
    await app.go(`/labels/${label.id}`);
    await page.getByText('This label cannot be voided', { exact: false }).waitFor({ timeout: T });
  }],
  ['batches', '/batches', opened('/batches', 'Batches')],
  ['shipments', '/shipments', opened('/shipments', 'Shipments')],
  ['tracking', '/tracking', async (page, app) => {
    await app.go('/tracking');
    await new TrackingPage(page).track(label.tracking_number);
    await new TrackingPage(page).timeline().waitFor({ timeout: T });
  }],
  ['insights', '/insights', opened('/insights', 'Insights')],
  ['wallet', '/wallet', async (page, app) => {
    await app.go('/wallet');
    await page.getByTestId('balance').waitFor({ timeout: T });
  }],
  ['team', '/team', opened('/team', 'Team')],
  ['presets', '/presets', opened('/presets', 'Addresses & packages')],
  ['storefront-widget', '/storefront-widget', opened('/storefront-widget', 'Storefront widget')],
  ['tracking-page', '/tracking-page', opened('/tracking-page', 'Tracking page')],
  ['carriers', '/carriers', async (page, app) => {
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
  // An organization's keys are on their own page (the deployment's key
  // rotation on /status: tests/edge-deployment.test.mjs).
  ['keys', '/keys', async (page, app) => {
    await app.go('/keys');
    await page.getByRole('region', { name: 'Live keys' }).waitFor({ timeout: T });
  }],
  ['webhooks', '/webhooks', async (page, app) => {
    await app.go('/webhooks');
    await page.getByText('● Live').waitFor({ timeout: T });
    await page.locator(`tr[data-label-id="${label.id}"]`).waitFor({ timeout: T });
    await page.getByRole('cell', { name: 'Delivered' }).first().waitFor({ timeout: T });
  }],
  ['webhook-settings', '/webhooks/settings', opened('/webhooks/settings', 'Webhook settings')],
  ['tokens', '/tokens', opened('/tokens', 'Access tokens')],
  ['passkeys', '/passkeys', opened('/passkeys', 'Passkeys')],
  ['audit', '/audit', opened('/audit', 'Audit log')],
  ['status', '/status', async (page, app) => {
    await app.go('/status');
    await page.getByRole('table').waitFor({ timeout: T });
  }],
  ['not-found', '/no-such-page', opened('/no-such-page', 'Page not found')],
];

test('every page, at phone and desktop width, light and dark: no serious or critical axe violation, no sideways scrolling', { timeout: 240000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(stack.users.admin);
  label ??= await buyViaApi(page);
  await stack.sim.control('POST', `/__sim/labels/${label.id}/scan`).catch(() => {});
  // Every page the menu offers the admin is in the tour.
  const menu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link')
    .evaluateAll((links) => links.map((a) => new URL(a.href).pathname));
  const toured = PAGES.map(([, path]) => path);
  assert.deepEqual(menu.filter((path) => !toured.includes(path)), [], 'menu pages missing from the tour');
  for (const [name, path, show] of PAGES) {
    if (path === '/ship') await app.go('/ship');
    await show(page, app);
    await axeEveryWay(page, name, { sideways: name !== 'ship-confirm' });
    await screenshot(page, `${name}-desktop`);
  }
  await context.close();
});

test('the pages a link opens and the sign-in page, at phone and desktop width, light and dark', async () => {
  const invite = await stack.people.admin.invite('viewer', 7);
  assert.equal(invite.status, 201, invite.text);
  const reset = await stack.people.admin.call('POST', `/api/org/members/${stack.people.operator.account}/reset`);
  assert.equal(reset.status, 201, reset.text);
  const setup = await newOrgLink(shared.sessionSecret, stack.edge.url);
  const OPEN = [
    ['login', '/', 'Sign in to Parcel'],
    ['invite', `/invite#${invite.json.token}`, 'Accept an invitation'],
    ['reset', `/reset#${reset.json.token}`, 'Set a new password'],
    ['new-org', setup.path, 'Create your organization'],
  ];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  for (const [name, path, heading] of OPEN) {
    // A new document each: the hash is read when the page starts.
    await page.goto('about:blank');
    await page.goto(stack.edge.url + path);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: T });
    await settled(page);
    await axeEveryWay(page, name);
    await screenshot(page, `${name}-desktop`);
  }
  await context.close();
});

test('dark mode: the palette follows prefers-color-scheme', async () => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(stack.users.admin, '/wallet');
  await page.getByTestId('balance').waitFor({ timeout: T });
  const root = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.equal(root, 'rgb(11, 17, 32)', `dark background, got ${root}`);
  await axe(page, 'wallet (dark)');
  await screenshot(page, 'wallet-dark');
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
