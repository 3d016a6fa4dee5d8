// Page objects for the dashboard: what a user sees and does, by role and label.
import { gotoSaying, signInPage, signedIn } from './stack.mjs';

export const SENDER = { name: 'Ada Lovelace', street1: '12 Elm Street', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };
export const RECIPIENT = { name: 'Acme Inc', street1: '500 Market Street', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
export const T = 15000;

/** The mode the top bar states, in words (`Live mode` or `Sandbox mode`). */
export async function modeText(page) {
  return (await page.getByTestId('mode').innerText()).replace(/\s+/g, ' ').trim();
}

/** Types `value` into a text box, or chooses it (a code or a name) in a list: the country, and the state where it is one. */
export async function enter(field, value) {
  if (await field.evaluate((el) => el.tagName === 'SELECT')) await field.selectOption(value);
  else await field.fill(value);
}

export class App {
  constructor(page, stack) { this.page = page; this.stack = stack; }
  async signIn(user, path = '/ship') {
    await signInPage(this.page, this.stack, user);
    if (path !== '/ship') await this.go(path);
  }
  /** Client-side navigation through the main menu (no reload), opened first on a phone. */
  async nav(name) {
    const menu = this.page.getByRole('button', { name: 'Menu', exact: true });
    if (await menu.isVisible() && await menu.getAttribute('aria-expanded') !== 'true') await menu.click();
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  }
  async go(path) {
    await gotoSaying(this.page, this.stack.edge.url + path);
    await signedIn(this.page);
  }
  alert() { return this.page.locator('.error-view[role="alert"]'); }
}

/** A fresh browser context signed in as `user`, on `path`, with the page objects. */
export async function openSignedIn(browser, stack, user, { viewport, path = '/ship' } = {}) {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  const app = new App(page, stack);
  await app.signIn(user, path);
  return { context, page, app, ship: new ShipPage(page) };
}

export class ShipPage {
  constructor(page) { this.page = page; }
  group(name) { return this.page.getByRole('group', { name, exact: true }); }
  async fillAddress(which, a) {
    const g = this.group(which);
    // The country first: it decides whether the state is a list.
    await enter(g.getByLabel('Country', { exact: true }), a.country);
    await g.getByLabel('Name', { exact: true }).fill(a.name);
    await g.getByLabel('Street address', { exact: true }).fill(a.street1);
    await g.getByLabel('City', { exact: true }).fill(a.city);
    await enter(g.getByLabel('State', { exact: true }), a.state);
    await g.getByLabel('ZIP code', { exact: true }).fill(a.zip);
  }
  async fillParcel({ weight = '2', unit = 'lb', length = '10', width = '8', height = '4' } = {}) {
    const g = this.group('Parcel');
    await g.getByLabel('Weight', { exact: true }).fill(weight);
    await g.getByLabel('Weight unit').selectOption(unit);
    await g.getByLabel('Length (in)').fill(length);
    await g.getByLabel('Width (in)').fill(width);
    await g.getByLabel('Height (in)').fill(height);
  }
  async fillAll(from = SENDER, to = RECIPIENT, parcel) {
    await this.fillAddress('From', from);
    await this.fillAddress('To', to);
    await this.fillParcel(parcel);
  }
  getRatesButton() { return this.page.getByRole('button', { name: 'Get rates' }); }
  async getRates() {
    await this.getRatesButton().click();
    await this.table().waitFor({ timeout: T });
  }
  table() { return this.page.getByRole('table'); }
  /** Data rows of the rates table, in display order. */
  rows() { return this.table().locator('tbody tr'); }
  async rowTexts() {
    return this.rows().evaluateAll((trs) => trs.map((tr) => ({
      id: tr.dataset.rateId,
      cells: [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()),
    })));
  }
  buyButtons() { return this.table().getByRole('button', { name: /^Buy / }); }
  dialog() { return this.page.getByRole('dialog', { name: 'Confirm purchase' }); }
  async buyFirst() {
    await this.buyButtons().first().click();
    await this.dialog().waitFor({ timeout: T });
  }
  confirmButton() { return this.dialog().getByRole('button', { name: /Confirm purchase|Buying/ }); }
  result() { return this.page.getByRole('region', { name: 'Label bought' }); }
  async trackingNumber() {
    await this.result().waitFor({ timeout: T });
    return (await this.result().getByTestId('tracking-number').innerText()).trim();
  }
}

export class LabelPage {
  constructor(page) { this.page = page; }
  voidButton() { return this.page.getByRole('button', { name: 'Void label' }); }
  async voidIt() {
    await this.voidButton().click();
    await this.page.getByRole('button', { name: 'Yes, void the label' }).click();
  }
  refusal() { return this.page.getByTestId('void-refusal'); }
  badge() { return this.page.getByRole('region', { name: 'Label details' }).locator('.badge').first(); }
}

/** The amount a `$1,234.56` text stands for, in cents. */
export function cents(text) {
  const m = /(-?)\$([\d,]+)\.(\d\d)/.exec(text);
  if (!m) throw new Error(`no money in ${JSON.stringify(text)}`);
  return (m[1] ? -1 : 1) * (Number(m[2].replaceAll(',', '')) * 100 + Number(m[3]));
}

/**
 * Buys the cheapest label through the Worker from inside the signed-in page
 * (the same calls the ship page makes); returns the Label.
 */
export async function buyViaApi(page, from = SENDER, to = RECIPIENT) {
  return page.evaluate(async ([from, to]) => {
    const post = (url, body, headers = {}) => fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
    }).then(async (r) => { if (!r.ok) throw new Error(`${url} → ${r.status} ${await r.text()}`); return r.json(); });
    const { rates } = await post('/api/v1/rates', { from_address: from, to_address: to, parcel: { weight_oz: 20, length: 10, width: 8, height: 4 } });
    return post('/api/v1/labels', { rate_id: rates[0].id }, { 'idempotency-key': crypto.randomUUID() });
  }, [from, to]);
}

export class TrackingPage {
  constructor(page) { this.page = page; }
  async track(number) {
    await this.page.getByLabel('Tracking number').fill(number);
    await this.page.getByRole('button', { name: 'Track' }).click();
  }
  timeline() { return this.page.getByRole('list', { name: 'Tracking events, newest first' }); }
  async events() {
    return this.timeline().locator('li strong').allInnerTexts();
  }
}

/** The login page's email and password form (organizations, issue 21). */
export class PasswordSignIn {
  constructor(page) { this.page = page; }
  async signIn(email, password) {
    await this.page.getByLabel('Email', { exact: true }).fill(email);
    await this.page.getByLabel('Password', { exact: true }).fill(password);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
}

/** The shell's organization: `Acme · admin`, and the switch when there are several. */
export class OrgShell {
  constructor(page) { this.page = page; }
  current() { return this.page.locator('.who'); }
  menu() { return this.page.getByRole('navigation', { name: 'Main' }); }
  async switchTo(name) {
    const select = this.page.getByLabel('Organization', { exact: true });
    const value = await select.locator('option', { hasText: name }).getAttribute('value');
    await select.selectOption(value);
    await this.page.getByRole('button', { name: 'Switch', exact: true }).click();
  }
}

/**
 * The pages a link opens: `/new-org#…` (organization, name, email,
 * password) and `/invite#…` (new account or existing, then join).
 */
export class JoinPage {
  constructor(page) { this.page = page; }
  async createOrg({ orgName, name, email, password }) {
    await this.page.getByLabel('Organization name').fill(orgName);
    await this.page.getByLabel('Your name').fill(name);
    await this.page.getByLabel('Email', { exact: true }).fill(email);
    await this.page.getByLabel('Choose a password').fill(password);
    await this.page.getByRole('button', { name: 'Create organization' }).click();
  }
  offer() { return this.page.locator('#offer'); }
  async join({ name, email, password, existing = false }) {
    await this.offer().waitFor({ timeout: T });
    if (existing) await this.page.getByLabel('I already have an account').check();
    if (name) await this.page.getByLabel('Your name (optional)').fill(name);
    await this.page.getByLabel('Email', { exact: true }).fill(email);
    await this.page.getByLabel(existing ? 'Password' : 'Choose a password', { exact: true }).fill(password);
    await this.page.getByRole('button', { name: /^Join / }).click();
  }
  refusal() { return this.page.getByTestId('refusal'); }
}

/** Team: members (role, removal) and invitations (the link shown once, revoking). */
export class TeamPage {
  constructor(page) { this.page = page; }
  members() { return this.page.getByRole('table', { name: /^Members/ }); }
  member(name) { return this.members().getByRole('row').filter({ hasText: name }); }
  invitations() { return this.page.getByRole('table', { name: /^Invitations/ }); }
  /** The invitations in `state` (Pending, Accepted, Revoked, Expired). */
  invites(state) {
    return this.invitations().locator('tbody tr').filter({ has: this.page.locator('td[data-label="State"]', { hasText: state }) });
  }
  /** Creates an invitation link for `role`; returns the link as shown. */
  async invite(role, days) {
    await this.page.getByLabel('Role', { exact: true }).selectOption(role);
    if (days !== undefined) await this.page.getByLabel('Expires after (days)').fill(String(days));
    await this.page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = this.page.getByRole('textbox', { name: 'Invitation link' });
    await this.page.getByRole('heading', { name: `Invitation link for a new ${role}` }).waitFor({ timeout: T });
    return link.inputValue();
  }
  async setRole(name, role) {
    await this.page.getByLabel(`Role of ${name}`).selectOption(role);
    await this.page.getByRole('button', { name: `Save role of ${name}` }).click();
  }
  async remove(name) {
    await this.page.getByRole('button', { name: `Remove ${name}` }).click();
    await this.page.getByRole('group', { name: `Remove ${name}?`, exact: false }).getByRole('button', { name: 'Yes, remove' }).click();
  }
  refusal() { return this.page.getByTestId('refusal'); }
}

/** API keys (an organization's admins): the one key input, each mode's keys, the rotation. */
export class WebhookSettingsPage {
  constructor(page) { this.page = page; }
  url() { return this.page.getByRole('textbox', { name: 'Webhook URL' }); }
  copyButton() { return this.page.getByRole('button', { name: /^(Copy URL|Copied)$/ }); }
  input() { return this.page.getByLabel('Webhook secret', { exact: true }); }
  saveButton() { return this.page.getByRole('button', { name: /^(Save the secret|Saving the secret)/ }); }
  /** Types `secret`; returns what the page says saving it would do. */
  async type(secret) {
    await this.input().fill(secret);
    return this.page.getByTestId('secret-effect').innerText({ timeout: T });
  }
  /** A refusal of the typed secret, shown at the field (the page's or the Worker's). */
  fieldProblem() { return this.page.locator('#webhook-secret-problem, #webhook-secret-error'); }
  secrets() { return this.page.getByRole('region', { name: 'Signing secrets' }); }
  /** The row of the secret in `slot` (`current`, `next`). */
  secret(slot) { return this.secrets().locator(`tr[data-slot="${slot}"]`); }
  step() { return this.secrets().locator('li[aria-current="step"]').innerText(); }
}

export class KeysPage {
  constructor(page) { this.page = page; }
  input() { return this.page.getByLabel('API key', { exact: true }); }
  saveButton() { return this.page.getByRole('button', { name: /^(Check and save the key|Checking the key)/ }); }
  /** Types `key`; returns what the page says saving it would do (its redacted form and mode). */
  async type(key) {
    await this.input().fill(key);
    return this.page.getByTestId('key-effect').innerText({ timeout: T });
  }
  async enter(key) {
    await this.type(key);
    await this.saveButton().click();
  }
  /** A Worker refusal of the typed key, shown at the field. */
  fieldError() { return this.page.locator('#org-key-error'); }
  /** The card of a mode: `Live` or `Sandbox`. */
  mode(name) { return this.page.getByRole('region', { name: `${name} keys` }); }
  /** The row of the key in `slot` (`current`, `next`) of a mode's card. */
  key(name, slot) { return this.mode(name).locator(`tr[data-slot="${slot}"]`); }
}
