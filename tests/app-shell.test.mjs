// The signed-in frame as a merchant meets it, in Chromium and Firefox: the
// menu in groups (a sidebar on a wide screen, behind a "Menu" button on a
// phone, where the page's heading stays near the top), and the
// organization, the person and the mode (in words and colour) on every
// page. As an organization's members on the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { engines } from './support/widget.mjs';
import { App, T, modeText } from './support/pages.mjs';

const shared = await sharedStack();
let stack, browser;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
// What an admin's menu holds, group by group.
const MENU = {
  Shipping: ['Home', 'Ship', 'Labels', 'Batches', 'Shipments', 'Tracking', 'Insights'],
  Money: ['Wallet'],
  Settings: ['Team', 'Addresses & packages', 'Storefront widget', 'Carrier accounts', 'API keys', 'Webhooks', 'Access tokens', 'Passkeys', 'Audit log', 'API status'],
};
before(async () => {
  stack = await orgStack(shared, { orgName: 'Harbour Goods' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
});


/** The top bar as a person reads it: organization, person, mode and the mode's colour. */
async function topBar(page) {
  const mode = page.getByTestId('mode');
  return {
    who: (await page.locator('.who').innerText()).replace(/\s+/g, ' '),
    mode: await modeText(page),
    colour: await mode.evaluate((el) => getComputedStyle(el).backgroundColor),
    visible: await page.locator('.who').isVisible() && await mode.isVisible(),
  };
}

test('desktop: the menu is a sidebar of three groups; every page names the organization, the person and the mode; the mode switch changes its words and colour', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(stack.users.admin);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const groups = {};
  for (const group of Object.keys(MENU)) {
    groups[group] = (await nav.getByRole('list', { name: group }).getByRole('link').allInnerTexts()).map((t) => t.trim());
  }
  assert.deepEqual(groups, MENU);
  // One column: every link starts at the same x, one line each, none beside another.
  const boxes = await nav.getByRole('link').evaluateAll((as) => as.map((a) => a.getBoundingClientRect()).map((r) => ({ x: r.x, h: r.height })));
  assert.equal(new Set(boxes.map((b) => b.x)).size, 1, 'the links are one column');
  assert.ok(boxes.every((b) => b.h < 40), `each link one line: ${boxes.map((b) => b.h)}`);
  assert.equal(await page.getByRole('button', { name: 'Menu' }).isVisible(), false, 'no menu button on a wide screen');
  const admin = stack.people.admin;
  const liveBar = await topBar(page);
  assert.equal(liveBar.mode, 'Live mode');
  for (const links of Object.values(MENU)) {
    for (const name of links) {
      await app.nav(name);
      // The entry is marked as the page shown.
      await nav.locator('a[aria-current="page"]').filter({ hasText: new RegExp(`^${name}$`) }).waitFor({ timeout: T });
      await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: T });
      const bar = await topBar(page);
      assert.ok(bar.visible, `the top bar on ${name}`);
      assert.equal(bar.who, `Harbour Goods · admin ${admin.name} <${admin.email}>`, `on ${name}`);
      assert.equal(bar.mode, 'Live mode', `on ${name}`);
    }
  }
  await screenshot(page, 'shell-desktop-live');
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: T });
  const sandboxBar = await topBar(page);
  assert.equal(sandboxBar.mode, 'Sandbox mode');
  assert.notEqual(sandboxBar.colour, liveBar.colour, 'the modes differ in colour too');
  await axe(page, 'shell in sandbox (desktop)');
  await screenshot(page, 'shell-desktop-sandbox');
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await page.getByRole('status').filter({ hasText: 'Sandbox: test labels' }).waitFor({ state: 'detached', timeout: T });
  assert.equal(await modeText(page), 'Live mode');
  await context.close();
});

test('an operator\'s menu leaves out the admins\' settings', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await new App(page, stack).signIn(stack.users.operator);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const settings = (await nav.getByRole('list', { name: 'Settings' }).getByRole('link').allInnerTexts()).map((t) => t.trim());
  assert.deepEqual(settings, ['Addresses & packages', 'Carrier accounts', 'Webhooks', 'Access tokens', 'Passkeys', 'API status']);
  const operator = stack.people.operator;
  assert.equal((await topBar(page)).who, `Harbour Goods · operator ${operator.name} <${operator.email}>`);
  await context.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`phone (390×844, ${colorScheme}): the heading starts within the top 200 px on every page; the menu button opens the menu, a link closes it; axe is clean open and closed`, async () => {
    const context = await browser.newContext({ viewport: PHONE, colorScheme });
    const page = await context.newPage();
    const app = new App(page, stack);
    await app.signIn(stack.users.admin);
    const menuButton = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.isVisible(), false, 'the menu is closed');
    assert.equal(await menuButton.getAttribute('aria-expanded'), 'false');
    const offsets = {};
    for (const name of ['Ship', 'Labels', 'Wallet', 'Team', 'API status']) {
      await app.nav(name);
      await nav.waitFor({ state: 'hidden', timeout: T }); // the menu closes on the way
      const heading = page.getByRole('heading', { level: 1 }).first();
      await heading.waitFor({ timeout: T });
      offsets[name] = Math.round((await heading.boundingBox()).y);
      const bar = await topBar(page);
      assert.ok(bar.visible, `organization, person and mode are on screen on ${name}`);
      assert.equal(bar.mode, 'Live mode');
      assert.match(bar.who, /Harbour Goods · admin/);
    }
    for (const [name, y] of Object.entries(offsets)) assert.ok(y <= 200, `${name}'s heading starts ${y} px down`);
    console.log(`heading offsets at 390×844 (${colorScheme}): ${JSON.stringify(offsets)}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px`);
    await axe(page, `phone, menu closed (${colorScheme})`);
    await screenshot(page, `shell-phone-${colorScheme}`);
    await menuButton.click();
    await nav.getByRole('link', { name: 'Wallet' }).waitFor({ timeout: T });
    assert.equal(await menuButton.getAttribute('aria-expanded'), 'true');
    assert.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'sign-out is in the menu');
    await axe(page, `phone, menu open (${colorScheme})`);
    await screenshot(page, `shell-phone-menu-${colorScheme}`);
    await context.close();
  });
}

test('firefox: the sidebar on a wide screen, the menu button and the heading near the top on a phone, the mode in words on every page', async () => {
  const ff = await engines.firefox.launch();
  const aria = (role, name) => `::-p-aria([name="${name}"][role="${role}"])`;
  try {
    const context = await ff.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport(DESKTOP);
    await page.goto(`${stack.edge.url}/`);
    await page.locator(aria('button', 'Use an access token')).click();
    await page.locator('#token').fill(stack.users.admin.token);
    await page.locator(aria('button', 'Sign in')).click();
    await page.locator('[data-testid="mode"]').setTimeout(T).wait();
    const text = (sel) => page.$eval(sel, (el) => el.innerText.replace(/\s+/g, ' ').trim());
    assert.equal(await text('[data-testid="mode"]'), 'Live mode');
    const groups = await page.$$eval('nav[aria-label="Main"] .nav-group', (ps) => ps.map((p) => p.innerText.trim()));
    assert.deepEqual(groups.map((g) => g.toLowerCase()), Object.keys(MENU).map((g) => g.toLowerCase()));
    assert.equal(await page.$eval('.menu-button', (b) => getComputedStyle(b).display), 'none');
    await page.locator(`nav[aria-label="Main"] ${aria('link', 'Wallet')}`).click();
    await page.locator('[data-testid="balance"]').setTimeout(T).wait();
    assert.match(await text('.who'), /Harbour Goods · admin/);

    await page.setViewport(PHONE);
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.menu-button')).display !== 'none', { timeout: T });
    assert.equal(await page.$eval('nav[aria-label="Main"]', (n) => n.checkVisibility()), false, 'the menu is closed');
    await page.locator(aria('button', 'Menu')).click();
    await page.locator(`nav[aria-label="Main"] ${aria('link', 'Labels')}`).click();
    await page.waitForFunction(() => document.querySelector('h1')?.innerText === 'Labels', { timeout: T });
    assert.equal(await page.$eval('nav[aria-label="Main"]', (n) => n.checkVisibility()), false, 'a link closes the menu');
    const y = await page.$eval('h1', (h) => h.getBoundingClientRect().y);
    assert.ok(y <= 200, `the heading starts ${y} px down`);
    assert.equal(await text('[data-testid="mode"]'), 'Live mode');
    assert.match(await text('.who'), /Harbour Goods · admin/);
    await context.close();
  } finally {
    await ff.close();
  }
});
