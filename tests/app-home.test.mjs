// Home (docs/app.md, "Home"): a new organization's admin sees what is left
// to set up, each step ticked from the organization's own records as it is
// done (through the API, as another tab or a colleague would do it), and
// the list gone once every step is; a member who is not an admin sees the
// day's cards without it. On the shared stack, with an organization of its
// own whose simulator account starts with an empty wallet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { until } from './support/wait.mjs';
import { axe, launch, watchProblems } from './support/browser.mjs';
import { orgStack, turnLiveOn, PASSWORD } from './support/orgs.mjs';
import { buyViaApi, modeText, openSignedIn, PasswordSignIn, SENDER, T } from './support/pages.mjs';

const shared = await sharedStack();
let s, browser;
before(async () => {
  s = await orgStack(shared, { orgName: 'Lighthouse Supply', roles: [], live: false, wallet: { balance_cents: 0, card: 'ok', auto_reload: null } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const STEPS = [
  'Enter your API keys',
  'Save the address you ship from',
  'Set the webhook signing secret',
  'Invite your team',
  'Allow your shop to show the checkout widget',
  'Buy a first label',
  'Turn on live mode',
  'Add funds or turn on auto-reload',
];

/** Home read afresh, once its reads have answered: which steps are done, and the progress line (null: no list). */
async function home(app, page) {
  // The page shown settles first: a reload would cut its reads short.
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: T });
  await app.go('/');
  // Every card and the list start together; once the day's count is in and no busy line is left, all have answered.
  await page.getByTestId('labels-today').waitFor({ timeout: T });
  await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: T });
  if (await page.getByRole('heading', { name: 'Get set up' }).count() === 0) return null;
  const items = await page.locator('ol.checklist > li').evaluateAll((lis) => lis.map((li) => ({ done: li.dataset.done === 'true', text: li.innerText })));
  assert.deepEqual(items.map((i) => STEPS.find((step) => i.text.includes(step))), STEPS, 'every step, in order');
  return { done: STEPS.filter((_, n) => items[n].done), progress: await page.getByTestId('setup-progress').innerText() };
}

test('a new organization: Home lists what is left to set up, each step ticks itself as it is done, and the list goes once all are', async () => {
  const admin = s.people.admin;
  const { context, page, app } = await openSignedIn(browser, s, s.users.admin, { path: '/' });
  const problems = watchProblems(page);
  try {
    assert.equal(await modeText(page), 'Sandbox mode');
    let now = await home(app, page);
    assert.deepEqual(now, { done: [STEPS[0]], progress: '1 of 8 done' });
    // A step not done links to where it is done.
    await page.getByRole('link', { name: STEPS[1] }).click();
    await page.getByRole('heading', { name: 'Addresses & packages', level: 1 }).waitFor({ timeout: T });
    // One visit asks for each thing once: the list and the wallet card share the wallet's read.
    const reads = [];
    const count = (r) => { const url = new URL(r.url()); if (url.pathname.startsWith('/api/')) reads.push(url.pathname + url.search); };
    page.on('request', count);
    await home(app, page);
    page.off('request', count);
    assert.ok(reads.includes('/api/v1/wallet'), `the wallet read: ${reads}`);
    assert.deepEqual(reads.filter((url, n) => reads.indexOf(url) !== n), [], `reads asked twice in one visit (${reads})`);
    for (const [viewport, colorScheme] of [[{ width: 1280, height: 800 }, 'light'], [{ width: 390, height: 844 }, 'dark']]) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      await home(app, page);
      await axe(page, `home with its checklist ${viewport.width} ${colorScheme}`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, `${viewport.width} scrolls sideways`);
      const y = await page.getByRole('heading', { level: 1 }).boundingBox();
      assert.ok(y.y <= 200, `the heading starts ${y.y} px down`);
    }

    await page.setViewportSize({ width: 1280, height: 800 });
    const steps = [
      async () => assert.equal((await admin.call('POST', '/api/org/addresses', { label: 'Warehouse', address: SENDER })).status, 201),
      async () => s.webhookSecret(`whsec_${'h'.repeat(24)}`),
      async () => { await s.invitee('viewer'); },
      async () => assert.equal((await admin.call('PUT', '/api/org/widget', { origins: ['https://lighthouse.example'], ship_from: SENDER, share: 0.5, fallback: null })).status, 200),
      async () => { await buyViaApi(page); },
      async () => turnLiveOn(admin),
    ];
    for (const [n, step] of steps.entries()) {
      await step();
      // A label reaches the organization's ledger just after its purchase answers: read until it has.
      now = await until(`"${STEPS[n + 1]}" ticked`, async () => {
        const read = await home(app, page);
        return read.done.length > n + 1 && read;
      }, 15_000, 250);
      assert.deepEqual(now.done, STEPS.slice(0, n + 2), `after "${STEPS[n + 1]}"`);
      assert.equal(now.progress, `${n + 2} of 8 done`);
      if (STEPS[n + 1] === 'Buy a first label') assert.equal(await page.getByTestId('labels-today').innerText(), '1');
    }
    // In live, the wallet is empty and auto-reload off: the last step waits, and the wallet says it is low.
    await page.getByRole('button', { name: 'Switch to live' }).click();
    await page.getByTestId('mode').getByText('Live mode').waitFor({ timeout: T });
    now = await home(app, page);
    assert.deepEqual(now.done, STEPS.slice(0, 7));
    assert.match(await page.getByRole('region', { name: 'Wallet' }).innerText(), /\$0\.00[\s\S]*Low balance/);
    await s.sim.control('PUT', `/__sim/accounts/${s.accountId}/wallet`, { balance_cents: 50_000, card: 'ok', auto_reload: null });
    assert.equal(await home(app, page), null, 'every step done: no list');
    assert.equal(await page.getByRole('heading', { name: 'Home', level: 1 }).count(), 1);
    assert.doesNotMatch(await page.getByRole('region', { name: 'Wallet' }).innerText(), /Low balance/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a member who is not an admin: the day on Home, without the list', async () => {
  const viewer = await s.invitee('viewer');
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  try {
    await page.goto(`${s.edge.url}/`);
    await new PasswordSignIn(page).signIn(viewer.email, PASSWORD);
    await page.getByTestId('labels-today').waitFor({ timeout: T });
    await page.getByTestId('late').waitFor({ timeout: T });
    assert.equal(await page.getByRole('heading', { name: 'Get set up' }).count(), 0);
    assert.equal(await page.getByText('Checking what is set up…').count(), 0, 'nothing read for a list not shown');
    await axe(page, 'home of a viewer at phone width');
    // The session check before signing in answers 401.
    assert.deepEqual(problems.filter((p) => !/status of 401/.test(p)), []);
  } finally {
    await context.close();
  }
});
