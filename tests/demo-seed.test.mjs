// The demo organization scripts/run seeds (scripts/seed-demo.mjs), on the
// shared stack with a simulator account of its own, as a newcomer meets
// it: signed in by password, it opens in sandbox with three weeks of
// labels (some bought by its operator, by name), a batch, insights over
// those weeks and parcels on their way; no page shows an account or
// organization id or a raw Unix time; and the demo shop shows its widget,
// quoting with its key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, keysWithLimits, sharedStack } from './support/stack.mjs';
import { Person } from './support/orgs.mjs';
import { axe, launch, screenshot } from './support/browser.mjs';
import { App, PasswordSignIn, T, modeText } from './support/pages.mjs';
import { engines, openShop, shopEvent, widgetFrame } from './support/widget.mjs';
import { until } from './support/wait.mjs';
import { startDemoShop } from '../scripts/demo-shop.mjs';

const stack = await sharedStack();
// 42 labels over 21 days (1 to 3 a day), 3 bought by the operator, 5 by the batch.
const LABELS = 50;
let browser, shop, seeded;

before(async () => {
  browser = await launch();
  shop = await startDemoShop({ edge: stack.edge.url });
  const keys = await keysWithLimits(stack.sim, undefined, `acct_${randomBytes(6).toString('hex')}`);
  // Its own working directory: the seed writes .dev.tokens there, as scripts/run's does in the checkout.
  const cwd = mkdtempSync(path.join(tmpdir(), 'parcel-demo-'));
  const started = Date.now();
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/seed-demo.mjs'), stack.edge.url, stack.sim.url, shop.url], {
    cwd, env: { ...process.env, SESSION_SECRET: stack.sessionSecret, SVC_LIVE_KEY: keys.live, SVC_SANDBOX_KEY: keys.sandbox },
  });
  const tokens = readFileSync(path.join(cwd, '.dev.tokens'), 'utf8');
  seeded = {
    ms: Date.now() - started,
    keys,
    password: /^admin@demo-shop\.example password: (\S+)/m.exec(tokens)?.[1],
    widget: /^Demo Shop widget: (org_\w+)$/m.exec(tokens)?.[1],
  };
  assert.ok(seeded.password && seeded.widget, tokens.replace(/password: \S+/g, 'password: …'));
});
after(async () => {
  await shop?.close();
  await browser?.close();
});

test('the seeded organization opens in sandbox with weeks of labels, a batch, insights and parcels on their way, and no page shows an internal id or a Unix time', async () => {
  // The simulator announces the history by signed deliveries; the ledger's own count is the signal.
  const admin = new Person(stack.edge.url);
  assert.equal((await admin.signIn('admin@demo-shop.example', seeded.password)).status, 200);
  await until(`the ledger to hold the ${LABELS} labels`, async () => (await admin.call('GET', '/api/ledger/history?limit=200')).json?.rows?.length === LABELS, 60_000, 250);
  await until('a shipment in transit', async () => ((await admin.call('GET', '/api/shipments?mode=sandbox')).json?.shipments ?? [])
    .some((s) => s.status === 'in_transit'), 60_000, 250);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(stack.edge.url);
  await new PasswordSignIn(page).signIn('admin@demo-shop.example', seeded.password);
  await page.getByTestId('mode').waitFor({ timeout: T });
  assert.equal(await modeText(page), 'Sandbox mode');
  const app = new App(page, stack);
  const internal = /\b(?:acct|org)_[0-9a-z]+|\b1[7-9]\d{8}\b/;
  // Each page's text, with no internal id or Unix time, and no word in a table cell split over two lines ("operato r").
  const seen = async (name) => {
    const text = await page.locator('main').innerText();
    assert.doesNotMatch(text, internal, `${name} shows no internal id or Unix time`);
    const broken = await page.locator('main td').evaluateAll((cells) => cells.flatMap((td) => {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      const split = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // A word ends at a space or after a hyphen, where lines may break.
        for (const m of node.data.matchAll(/[^\s-]+-?/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) split.push(m[0]);
        }
      }
      return split;
    }));
    assert.deepEqual(broken, [], `${name}: words split over lines`);
    return text;
  };

  // Home: all but live mode and its wallet set up, and the day's cards.
  await page.getByTestId('setup-progress').waitFor({ timeout: T });
  assert.equal(await page.getByTestId('setup-progress').innerText(), '6 of 8 done');
  await page.getByTestId('late').waitFor({ timeout: T });
  await seen('Home');

  await app.nav('Labels');
  await page.getByRole('cell', { name: 'Demo Operator' }).first().waitFor({ timeout: T });
  await seen('Labels');
  await axe(page, 'the demo organization\'s labels');
  await screenshot(page, 'demo-labels');

  await app.nav('Batches');
  await page.getByText('weekend-orders.csv').first().waitFor({ timeout: T });
  await seen('Batches');

  await app.nav('Insights');
  await page.getByTestId('insights-summary').waitFor({ timeout: T });
  assert.match(await page.getByTestId('insights-summary').innerText(), new RegExp(`: ${LABELS} labels, \\$`));
  await seen('Insights');

  for (const name of ['Wallet', 'Storefront widget', 'Addresses & packages', 'Webhooks', 'Team', 'Audit log']) {
    await app.nav(name);
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: T });
    await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"]'), null, { timeout: T });
    await seen(name);
  }

  await app.nav('Shipments');
  await page.getByText('In transit').first().waitFor({ timeout: T });
  await seen('Shipments');
  await context.close();
  console.log(`[demo-seed] seeded in ${seeded.ms} ms`);
});

test('the demo shop shows the demo organization\'s widget, quoting with its key', async () => {
  const before = (await stack.sim.control('GET', `/__sim/keys/${seeded.keys.sandbox}`)).calls;
  const s = await openShop(engines.chromium, browser, shop, `widget=${seeded.widget}`);
  try {
    await widgetFrame(s);
    await s.page.click('#sign-in');
    const quoted = await shopEvent(s, 'quoted');
    assert.ok(quoted.detail.options.length > 0, JSON.stringify(quoted.detail));
    assert.ok(!quoted.detail.fallback);
    assert.ok((await stack.sim.control('GET', `/__sim/keys/${seeded.keys.sandbox}`)).calls > before, 'quoted with the organization\'s sandbox key');
    assert.deepEqual(s.problems, []);
  } finally {
    await s.close();
  }
});
