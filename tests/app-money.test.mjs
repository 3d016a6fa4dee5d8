// Money never a surprise, in Chromium, as organizations' members on the
// shared stack: a new organization opens in sandbox until its admin turns
// live on; Ship says the mode and, in live, the balance once the form is
// entered; a label the
// wallet cannot pay for (auto-reload off) is not offered, and the
// confirmation says why and where funds are added; the Wallet page shows
// the charges and refunds of the labels bought, the auto-reload state and
// how funds are added.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { T, buyViaApi, cents, modeText, openSignedIn } from './support/pages.mjs';

const shared = await sharedStack();
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});


test('a new organization with both keys opens in sandbox; Ship says so; once its admin turns live on, the switch to live is offered and Ship shows the balance', async () => {
  const stack = await orgStack(shared, { live: false, wallet: { balance_cents: 4321, card: 'ok', auto_reload: null } });
  const { context, page, app, ship } = await openSignedIn(browser, stack, stack.users.admin);
  assert.equal(await modeText(page), 'Sandbox mode');
  assert.match((await page.getByTestId('ship-mode').innerText()).replace(/\s+/g, ' '), /^Sandbox Test labels: nothing is charged\.$/);
  assert.equal(await page.getByRole('button', { name: 'Switch to live' }).count(), 0, 'no live mode to switch to yet');
  // The operator's session is in sandbox too.
  const op = await openSignedIn(browser, stack, stack.users.operator);
  assert.equal(await modeText(op.page), 'Sandbox mode');
  await op.context.close();

  await app.go('/keys');
  assert.match(await page.getByTestId('live-state').innerText(), /^Live mode is off/);
  await page.getByRole('button', { name: 'Turn live mode on' }).click();
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await page.getByTestId('mode').getByText('Live').waitFor({ timeout: T });
  await app.nav('Ship');
  assert.match((await page.getByTestId('ship-mode').innerText()).replace(/\s+/g, ' '), /^Live Labels bought here are real and charged to the wallet\./);
  // The balance, from the moment the form is entered.
  await ship.group('To').getByLabel('Name', { exact: true }).focus();
  await page.getByTestId('ship-balance').waitFor({ timeout: T });
  assert.equal(await page.getByTestId('ship-balance').innerText(), '$43.21');
  await axe(page, 'ship in live with the balance');
  await screenshot(page, 'money-ship-live');
  await context.close();
});

test('a label the wallet cannot pay for (auto-reload off) is not offered: the confirmation says so before any click and where funds are added; nothing is charged', async () => {
  const stack = await orgStack(shared, { wallet: { balance_cents: 150, card: 'ok', auto_reload: null } });
  const { context, page, ship } = await openSignedIn(browser, stack, stack.users.operator);
  const purchases = [];
  page.on('request', (r) => { if (r.method() === 'POST' && r.url().endsWith('/api/v1/labels')) purchases.push(r.url()); });
  await ship.fillAll();
  await ship.getRates();
  const price = cents((await ship.rowTexts())[0].cells[3]);
  await ship.buyFirst();
  const wallet = ship.dialog().getByTestId('confirm-wallet');
  await wallet.getByText('does not cover', { exact: false }).waitFor({ timeout: T });
  assert.match(await wallet.innerText(), new RegExp(`^Balance now: \\$1\\.50\\. The balance \\(\\$1\\.50\\) does not cover this label \\(\\$${(price / 100).toFixed(2)}\\) and auto-reload is off, so it cannot be bought now\\. Add funds`));
  assert.equal(await ship.dialog().getByRole('button', { name: 'Confirm purchase' }).count(), 0, 'no purchase is offered');
  await ship.dialog().getByRole('link', { name: 'Open the wallet' }).waitFor();
  await axe(page, 'a confirmation the wallet cannot pay');
  await screenshot(page, 'money-cannot-pay');
  await ship.dialog().getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(purchases, [], 'nothing was sent');
  assert.equal((await stack.account()).balance_cents, 150);

  // Funded, the same label is offered.
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, { balance_cents: 50_000, card: 'ok', auto_reload: null });
  await ship.getRates();
  await ship.buyFirst();
  await ship.dialog().getByText('Balance after the purchase', { exact: false }).waitFor({ timeout: T });
  await ship.confirmButton().waitFor();
  await context.close();
});

test('the Wallet page: the charges of the labels bought, the auto-reload state and how funds are added', async () => {
  const stack = await orgStack(shared, { wallet: { balance_cents: 50_000, card: 'ok', auto_reload: null } });
  const { context, page, app } = await openSignedIn(browser, stack, stack.users.operator);
  const bought = [await buyViaApi(page), await buyViaApi(page)];
  await app.go('/wallet');
  const table = page.getByRole('region', { name: 'Charges and refunds' }).getByRole('table');
  for (const label of bought) {
    const row = table.locator('tbody tr').filter({ hasText: label.tracking_number });
    await row.waitFor({ timeout: T });
    assert.equal(cents(await row.locator('td').nth(2).innerText()), label.rate_cents, 'the label\'s price, charged');
    assert.match(await row.locator('td').nth(1).innerText(), new RegExp(`^${label.carrier} ${label.service}`));
  }
  assert.match(await page.getByTestId('auto-reload').innerText(), /^Auto-reload is off: a label that costs more than the balance is not offered\.$/);
  assert.match(await page.getByTestId('add-funds').innerText(), /^Add funds/);
  await axe(page, 'wallet with charges');
  await screenshot(page, 'money-wallet');
  await context.close();
});
