// The shoppers' tracking page (docs/tracking.md): a batch job's labels of a
// split order and of a single one, their pages in the brand the admin set,
// the lookup by reference and postcode, and the page following a parcel as
// the simulator's clock moves it from scan to delivery, and the brand set
// in the dashboard. Chromium (axe at phone and desktop width, light and
// dark) and Firefox. On the shared stack, with an organization of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedStack } from './support/stack.mjs';
import { axe, launch, screenshot, watchProblems } from './support/browser.mjs';
import { engines } from './support/widget.mjs';
import { act, address, advanceWhileProcessing, createJob, FROM, jobsOn, untilJob } from './support/jobs.mjs';
import { until } from './support/wait.mjs';
import { openSignedIn } from './support/pages.mjs';

const BRAND = { name: 'Ada Shop', accent: '#0b6e4f', radius: 12, font: 'Georgia', theme: 'auto', support_url: 'mailto:help@ada.example' };
const parcel = (oz) => ({ weight_oz: oz, length: 10, width: 8, height: 4 });
const grace = (oz) => ({ reference: '#A-100', from_address: FROM, to_address: address('Grace Hopper', '12 Elm St'), parcel: parcel(oz) });
// A job's rows each have their own reference: order #A-100 ships in two
// parcels from two jobs (a split order), #A-101 in one.
const JOBS = [
  [grace(12), { reference: '#A-101', from_address: FROM, to_address: address('Alan Turing', '7 Oak Ave', '10001'), parcel: parcel(16) }],
  [grace(30)],
];

const shared = await sharedStack();
let s, admin, browser, shipments;
before(async () => {
  s = await jobsOn(shared);
  admin = await s.edge.session(s.users.admin);
  browser = await launch();
  const set = await adminCall('PUT', '/api/org/tracking', BRAND);
  assert.equal(set.status, 200, await set.clone().text());
  for (const rows of JOBS) {
    const created = await createJob(s, { name: 'orders.csv', rows });
    await act(s, created.id, 'start');
    const job = await untilJob(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { every: 500, tick: advanceWhileProcessing(s) });
    assert.equal(job.state, 'completed', JSON.stringify(job.problem));
  }
  // Each label followed, with its page's link, before any page opens.
  shipments = await until('three shipments followed', async () => {
    const list = (await s.json('/api/shipments')).shipments;
    return list.length === 3 && list.every((x) => x.following === 'following' && x.link) && list;
  }, 30_000, 250);
});
after(async () => {
  await browser?.close();
});

function adminCall(method, path, body) {
  return fetch(s.edge.url + path, {
    method, headers: { cookie: admin.cookie, origin: admin.origin, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
}
const get = async (path) => {
  const res = await fetch(s.edge.url + path);
  return { status: res.status, headers: res.headers, html: await res.text() };
};
const lookup = (ref, postcode) => `/track/${s.org.id}?ref=${encodeURIComponent(ref)}&postcode=${encodeURIComponent(postcode)}`;
const of = (ref) => shipments.filter((x) => x.reference === ref);

test('the brand is an admin setting in the audit log; a bad one is refused naming its field', async () => {
  const bad = await adminCall('PUT', '/api/org/tracking', { ...BRAND, logo_url: 'http://insecure.example/logo.png' });
  assert.equal(bad.status, 422);
  assert.equal((await bad.json()).error.field, 'logo_url');
  const audit = await (await adminCall('GET', '/api/org/audit')).json();
  assert.ok(audit.entries.some((e) => e.action === 'tracking_changed'), JSON.stringify(audit.entries.map((e) => e.action)));
  const operator = await fetch(s.edge.url + '/api/org/tracking', {
    method: 'PUT', headers: { cookie: s.operator.cookie, origin: s.operator.origin, 'content-type': 'application/json' }, body: JSON.stringify(BRAND),
  });
  assert.equal(operator.status, 403);
});

test('lookup: a wrong postcode and an unknown order get the same answer; name and street only after the postcode', async () => {
  const form = await get(`/track/${s.org.id}`);
  assert.equal(form.status, 200);
  assert.match(form.html, /<label for="postcode">/);
  const wrong = await get(lookup('#A-100', '99999'));
  const unknown = await get(lookup('#NO-SUCH', '11201'));
  assert.equal(wrong.status, 404);
  assert.equal(unknown.status, wrong.status);
  assert.equal(unknown.html, wrong.html, 'the same body');
  for (const page of [form, wrong, unknown]) {
    assert.doesNotMatch(page.html, /Grace|Hopper|Elm St/);
  }
  const found = await get(lookup('#A-100', ' 11201 '));
  assert.equal(found.status, 200);
  assert.match(found.html, /To Grace Hopper, 12 Elm St, Brooklyn/);
  // A split order: one page, each parcel.
  assert.match(found.html, /Parcel 1 of 2/);
  assert.match(found.html, /Parcel 2 of 2/);
  for (const x of of('#A-100')) assert.ok(found.html.includes(x.tracking_number));
  assert.match(found.html, /This delivery: \d+ g CO₂e/);
  assert.match(found.html, /Ada Shop/);
  assert.match(found.html, /--accent:#0b6e4f/);
  assert.match(found.html, /mailto:help@ada\.example/);
  // The link of one shipment: its status, no name or street.
  const link = await get(of('#A-100')[0].link);
  assert.equal(link.status, 200);
  assert.doesNotMatch(link.html, /Grace|Hopper|Elm St/);
  assert.match(link.html, /Label created, waiting for the carrier/);
  assert.ok(Buffer.byteLength(link.html) <= 15_000, `${Buffer.byteLength(link.html)} bytes`);
  assert.doesNotMatch(link.html, /<script|\.wasm/);
  assert.match(link.headers.get('content-security-policy'), /default-src 'none'/);
  assert.equal((await get(`/t/${s.org.id.slice(4)}-00112233445566778899aa`)).status, 404);
});

test('the page follows the parcel as the clock moves: scanned, in transit, out for delivery, delivered', async () => {
  const [one] = of('#A-101');
  const seen = (text) => until(`"${text}" on ${one.link}`, async () => {
    const page = await get(one.link);
    return page.html.includes(text) && page;
  }, 30_000, 500);
  await s.sim.control('POST', `/__sim/labels/${one.label_id}/scan`);
  const scanned = await seen('On its way');
  assert.match(scanned.html, /Accepted at origin facility/);
  assert.match(scanned.html, /Estimated delivery|Arriving|Expected/);
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 24 * 3600 });
  await seen('Arrived at destination facility');
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 12 * 3600 });
  await seen('Out for delivery</p>');
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 4 * 3600 });
  const delivered = await seen('Delivered</p>');
  assert.match(delivered.html, /Delivered [A-Z][a-z]+day, /);
  const after = (await s.json('/api/shipments')).shipments.find((x) => x.label_id === one.label_id);
  assert.equal(after.status, 'delivered');
  assert.equal(after.following, 'done');
});

test('the Shipments view: parcels in motion by default, the delivered one on asking, each linking to its tracking page', async () => {
  const { context, page, app } = await openSignedIn(browser, s, s.users.viewer, { path: '/shipments' });
  try {
    const problems = watchProblems(page);
    const table = page.getByRole('table', { name: 'Shipments, newest first' });
    const numbers = async () => (await table.locator('tbody tr td[data-label="Tracking number"]').allTextContents()).sort();
    await table.waitFor();
    // Its settings are an admin's.
    assert.equal(await page.getByRole('link', { name: /tracking page: its name/ }).count(), 0);
    const [one] = of('#A-101');
    // #A-101 was delivered by the test before; #A-100's two parcels are not.
    assert.deepEqual(await numbers(), of('#A-100').map((x) => x.tracking_number).sort());
    await page.getByRole('status').filter({ hasText: 'shipments shown' }).waitFor();
    assert.match(await page.getByRole('status').filter({ hasText: 'shown' }).textContent(), /^2 of 3 shipments shown; 0 late/);
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/\/shipments\?status=delivered$/);
    await until('only the delivered parcel', async () => (await numbers()).join() === one.tracking_number);
    const row = table.locator('tbody tr');
    assert.match(await row.locator('td[data-label="Status"]').textContent(), /Delivered/);
    const link = row.getByRole('link', { name: `Tracking page of ${one.tracking_number}` });
    assert.equal(await link.getAttribute('href'), one.link);
    // The shopper's page it opens says the same.
    const [shopper] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await shopper.waitForLoadState();
    assert.match(await shopper.content(), /Delivered<\/p>/);
    // A filter nothing matches says so, and offers the way back.
    await app.go('/shipments?status=out_for_delivery&still=30');
    await page.getByText('No shipment matches these filters.').waitFor();
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL(/\/shipments$/);
    await until('the parcels in motion again', async () => (await numbers()).length === 2);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('chromium: axe finds nothing serious at phone and desktop width, light and dark; nothing scrolls sideways', async () => {
  for (const [vp, viewport] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]]) {
    for (const colorScheme of ['light', 'dark']) {
      const context = await browser.newContext({ viewport, colorScheme });
      const page = await context.newPage();
      const problems = watchProblems(page);
      for (const [name, path] of [['order', lookup('#A-100', '11201')], ['lookup', `/track/${s.org.id}`], ['missed', lookup('#A-100', '00000')]]) {
        await page.goto(s.edge.url + path);
        await axe(page, `${name} ${vp} ${colorScheme}`);
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        assert.equal(sideways, false, `${name} ${vp} scrolls sideways`);
        await screenshot(page, `tracking-${name}-${vp}-${colorScheme}`);
      }
      assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);
      await context.close();
    }
  }
});

test('firefox: the order page renders, and the lookup form finds it', async () => {
  const firefox = await engines.firefox.launch();
  try {
    const { page, close } = await engines.firefox.shopper(firefox, '10.99.0.1');
    await page.goto(`${s.edge.url}/track/${s.org.id}`);
    await page.type('#ref', '#A-100');
    await page.type('#postcode', '11201');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    const heading = await page.$eval('h1', (h) => h.textContent);
    assert.equal(heading, 'Order #A-100');
    const parcels = await page.$$eval('section h2', (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(parcels, ['Parcel 1 of 2', 'Parcel 2 of 2']);
    const accent = await page.$eval('.status', (p) => getComputedStyle(p).color);
    assert.equal(accent, 'rgb(11, 110, 79)');
    await close();
  } finally {
    await firefox.close();
  }
});

// Last: it changes the brand the tests above assert.
test('in the dashboard: an admin opens the tracking page from Shipments, sees the brand, has a bad logo refused at its field, and renames the page; the shopper sees it', async () => {
  const { context, page } = await openSignedIn(browser, s, s.users.admin, { path: '/shipments' });
  try {
    // A refused save answers 422, which the browser reports; nothing else may appear.
    const problems = watchProblems(page);
    await page.getByRole('link', { name: "Your shoppers' tracking page: its name and look" }).click();
    await page.waitForURL(/\/tracking-page$/);
    const field = (label) => page.getByLabel(label, { exact: true });
    const save = page.getByRole('button', { name: 'Save the tracking page' });
    await until('the brand set before, in the form', async () => (await field('Shop name').inputValue()) === BRAND.name);
    assert.equal(await field('Accent colour (optional)').inputValue(), BRAND.accent);
    assert.equal(await field('Corner radius in px (optional)').inputValue(), '12');
    assert.equal(await field('Support link (optional)').inputValue(), BRAND.support_url);
    await axe(page, 'tracking page settings');
    await screenshot(page, 'tracking-brand-settings');
    const audited = async () => (await (await adminCall('GET', '/api/org/audit')).json()).entries.filter((e) => e.action === 'tracking_changed').length;
    const before = await audited();

    await field('Logo (optional)').fill('http://insecure.example/logo.png');
    await save.click();
    await until('the logo marked as refused', async () => (await field('Logo (optional)').getAttribute('aria-invalid')) === 'true');
    assert.equal(await page.getByRole('status').filter({ hasText: 'Saved.' }).count(), 0);
    assert.doesNotMatch((await get(`/track/${s.org.id}`)).html, /insecure\.example/);

    await field('Logo (optional)').fill('');
    await field('Shop name').fill('Ada & Co');
    await field('Accent colour (optional)').fill('#ffb000');
    await page.getByLabel('Theme').selectOption('dark');
    await save.click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await field('Logo (optional)').getAttribute('aria-invalid'), null);
    const shown = await get(`/track/${s.org.id}`);
    assert.match(shown.html, /Ada &amp; Co/);
    assert.match(shown.html, /--accent:#ffb000/);
    assert.equal(await audited(), before + 1);
    assert.deepEqual(problems.filter((p) => !/422/.test(p)), []);
  } finally {
    await context.close();
  }
});
