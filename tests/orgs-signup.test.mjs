// Open sign-up (issue 21, part 8): off unless the accounts Worker's
// OPEN_SIGNUP is `on`. Closed, an organization comes only from a
// scripts/new-org link; open, anyone makes one at /new-org, at most five
// per client address in the throttle's window. The real Workers in workerd
// in front of the simulator; the page in Chromium. Closed is the shared
// stack (the default); open is Workers of this file's own (a setting of the
// deployment), on the shared simulator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { newKeys, sharedStack, startEdge } from './support/stack.mjs';
import { PASSWORD, Person, assertError } from './support/orgs.mjs';
import { launch } from './support/browser.mjs';
import { JoinPage, T } from './support/pages.mjs';

const { sim, edge: closed } = await sharedStack();
let open, browser;
before(async () => {
  open = await startEdge({ upstream: sim.url, keys: newKeys(), accountsVars: { OPEN_SIGNUP: 'on' } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await open?.stop();
});

const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;
const signUp = (p, orgName) => p.createOrg('', { orgName, name: 'Founder', email: email('founder'), password: PASSWORD });

test('closed (the default): no organization without a setup link, and the answer says where links come from', async () => {
  const p = new Person(closed.url);
  const asked = await p.call('GET', '/api/orgs');
  assert.equal(asked.status, 200, asked.text);
  assert.deepEqual(asked.json, { open: false });
  const refused = await signUp(p, 'Nope Inc');
  assertError(refused, 403, 'EDGE.ORG.SIGNUP_CLOSED');
  assert.match(refused.json.error.suggestion, /scripts\/new-org/);
});

test('open: anyone makes an organization and is its admin; five per address, then 429 with Retry-After; another address still may', async () => {
  const first = new Person(open.url);
  assert.deepEqual((await first.call('GET', '/api/orgs')).json, { open: true });
  const ids = new Set();
  for (let i = 1; i <= 5; i++) {
    const made = await signUp(first, `Shop ${i}`);
    assert.equal(made.status, 200, made.text);
    assert.equal(made.json.org.name, `Shop ${i}`);
    assert.equal(made.json.role, 'admin');
    ids.add(made.json.org.id);
  }
  assert.equal(ids.size, 5, 'each sign-up is a new organization');
  const sixth = await signUp(first, 'Shop 6');
  assertError(sixth, 429, 'EDGE.SIGN_IN.THROTTLED');
  assert.ok(Number(sixth.headers.get('retry-after')) > 0, 'Retry-After');
  const other = new Person(open.url);
  assert.equal((await signUp(other, 'Other Shop')).status, 200);
  // A setup link's checks still apply when one is sent.
  assertError(await other.createOrg('forged.1.00', { orgName: 'X', name: 'X', email: email('x'), password: PASSWORD }), 403, 'EDGE.ORG.SETUP_INVALID');
});

test('the sign-in page offers "Create an organization" only where sign-up is open, and the link opens the form', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // Closed: once the Worker has said so, no link.
    const asked = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/orgs');
    await page.goto(`${closed.url}/`);
    assert.deepEqual(await (await asked).json(), { open: false });
    await page.getByRole('heading', { name: 'Sign in to Parcel' }).waitFor({ timeout: T });
    assert.equal(await page.getByRole('link', { name: 'Create an organization' }).count(), 0);
    // Open: the link, and it leads to the form without a setup link.
    await page.goto(`${open.url}/`);
    const link = page.getByRole('link', { name: 'Create an organization' });
    await link.waitFor({ timeout: T });
    await link.click();
    await page.waitForURL((u) => u.pathname === '/new-org', { timeout: T });
    await page.getByRole('heading', { name: 'Create your organization' }).waitFor({ timeout: T });
    await page.getByRole('button', { name: /Create/ }).waitFor({ timeout: T });
  } finally {
    await context.close();
  }
});

test('in the browser: /new-org without a link is the form where sign-up is open, and where links come from where it is not', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${closed.url}/new-org`);
    await page.getByText('Whoever runs Parcel makes one with scripts/new-org.').waitFor({ timeout: T });
    assert.equal(await page.getByRole('button', { name: /Create/ }).count(), 0);
    await page.goto(`${open.url}/new-org`);
    await page.getByRole('heading', { name: 'Create your organization' }).waitFor({ timeout: T });
    await new JoinPage(page).createOrg({ orgName: 'Browser Shop', name: 'Bea Founder', email: email('bea'), password: PASSWORD });
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: T });
  } finally {
    await context.close();
  }
});
