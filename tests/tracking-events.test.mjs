// The shop's tracking events (docs/tracking.md, "Events for the shop"): an
// admin sets the shop's URL on the dashboard's Tracking page and sees the
// signing secret once; labels bought through Ship and through a batch job
// move as the simulator's clock moves, the shop receives each event once,
// in order, signed, checked with the documented snippet, and the shopper's
// pages and the Shipments view end at delivered. A delivery
// the shop fails shows its next attempt on v1's schedule (read from the
// Worker's own record, not waited for) and holds its parcel's later events
// behind it; a resend from the dashboard is delivered once, and they
// follow. On the shared stack, with an organization of its own and a shop
// on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedStack, ROOT } from './support/stack.mjs';
import { axe, launch, watchProblems } from './support/browser.mjs';
import { act, address, advanceWhileProcessing, createJob, FROM, jobsOn, untilJob } from './support/jobs.mjs';
import { until } from './support/wait.mjs';
import { openSignedIn, T } from './support/pages.mjs';

// The shop's check exactly as docs/tracking.md gives it.
const doc = readFileSync(path.join(ROOT, 'docs/tracking.md'), 'utf8');
const snippet = /```js\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## Events for the shop')))[1];
const verified = new Function('createHmac', 'timingSafeEqual', 'Buffer', `${snippet.replace(/^\s*import .*$/m, '')}\nreturn verified;`)(createHmac, timingSafeEqual, Buffer);

// The shop: records each POST; answers 500 to the first `failing` ones.
const received = [];
let failing = 1;
const shop = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const status = failing > 0 ? 500 : 200;
    failing -= 1;
    received.push({ signature: req.headers['parcel-signature'], body, status, event: JSON.parse(body) });
    res.writeHead(status).end();
  });
});

const shared = await sharedStack();
let s, browser, admin, secret, shopUrl;
before(async () => {
  await new Promise((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${shop.address().port}/parcel-events`;
  s = await jobsOn(shared);
  // Signed in; `Person.call` answers { status, json }.
  admin = s.people.admin;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  shop.close();
});

const deliveries = async () => (await admin.call('GET', '/api/org/tracking/events')).json.deliveries;
const okOnes = (label) => received.filter((r) => r.status === 200 && r.event.data.label_id === label).map((r) => r.event.event);

test('an admin sets the URL on the Tracking page and sees the secret once; a URL that is not https is refused at its field', async () => {
  const { context, page } = await openSignedIn(browser, s, s.users.admin, { path: '/tracking-page' });
  try {
    const problems = watchProblems(page);
    const url = page.getByLabel("Your shop's events URL");
    await url.fill('http://shop.example/events');
    await page.getByRole('button', { name: 'Save the events URL' }).click();
    await page.locator('#events-url[aria-invalid="true"]').waitFor({ timeout: T });
    assert.match(await page.locator('.error-view').first().textContent(), /https:\/\//);
    await url.fill(shopUrl);
    await page.getByRole('button', { name: 'Save the events URL' }).click();
    await page.getByText('Your signing secret, shown only now.').waitFor({ timeout: T });
    secret = await page.locator('#events-secret').inputValue();
    assert.match(secret, /^evsec_[0-9a-f]{48}$/);
    // Read again, it is not there: not on the page, not in the answer.
    await page.reload();
    await page.getByText('No events yet', { exact: false }).waitFor({ timeout: T });
    assert.equal(await page.locator('#events-secret').count(), 0);
    assert.equal(await url.inputValue(), shopUrl);
    // A refresh of the deliveries leaves what is being typed.
    await url.fill('https://typing.example/events');
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/org/tracking/events') && r.request().method() === 'GET'),
      page.getByRole('button', { name: 'Refresh the deliveries' }).click(),
    ]);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    assert.equal(await url.inputValue(), 'https://typing.example/events');
    const read = (await admin.call('GET', '/api/org/tracking/events')).json;
    assert.equal(read.url, shopUrl);
    assert.equal(read.signed, true);
    assert.equal(read.secret, undefined);
    assert.ok(!JSON.stringify(read).includes(secret));
    assert.deepEqual(problems.filter((p) => !/422/.test(p)), []);
  } finally {
    await context.close();
  }
  const audit = (await admin.call('GET', '/api/org/audit')).json;
  assert.ok(audit.entries.some((e) => e.action === 'tracking_changed' && /events/.test(e.detail)), JSON.stringify(audit.entries));
  // Members who are not admins neither read nor change them.
  for (const method of ['GET', 'PUT']) {
    const res = await s.api('/api/org/tracking/events', { method, body: method === 'PUT' ? JSON.stringify({ url: shopUrl }) : undefined });
    assert.equal(res.status, 403, method);
  }
});

test('labels bought through Ship and a batch job: the shop receives each event once, in order, signed; a failed one waits for its schedule with the later events of its parcel behind it, a resend delivers it once and they follow', async () => {
  assert.ok(secret, 'the secret of the test before');
  // One label through the Ship page.
  const buyer = await openSignedIn(browser, s, s.users.operator);
  const problems = watchProblems(buyer.page);
  await buyer.ship.fillAll(FROM, address('Grace Hopper', '12 Elm St'));
  await buyer.ship.getRates();
  await buyer.ship.buyFirst();
  await buyer.ship.confirmButton().click();
  const shipped = await buyer.ship.trackingNumber();
  await buyer.context.close();
  // One through a batch job.
  const created = await createJob(s, { name: 'orders.csv', rows: [{ reference: '#E-1', from_address: FROM, to_address: address('Alan Turing', '7 Oak Ave', '10001'), parcel: { weight_oz: 16, length: 10, width: 8, height: 4 } }] });
  await act(s, created.id, 'start');
  const job = await untilJob(s, created.id, (j) => ['completed', 'paused', 'stopped'].includes(j.state), { every: 500, tick: advanceWhileProcessing(s) });
  assert.equal(job.state, 'completed', JSON.stringify(job.problem));
  const parcels = await until('both labels followed', async () => {
    const list = (await s.json('/api/shipments')).shipments;
    return list.length === 2 && list.every((x) => x.following === 'following' && x.link) && list;
  }, 30_000, 250);
  assert.ok(parcels.some((x) => x.tracking_number === shipped), 'the Ship label is followed');
  // A view asks for a fresh read (the shared stack reads on view after 1 s).
  const view = () => Promise.all(parcels.map((x) => fetch(s.edge.url + x.link).then((r) => r.text())));
  const step = async (name, done) => until(name, async () => { await view(); return done(); }, 30_000, 500);
  for (const x of parcels) await s.sim.control('POST', `/__sim/labels/${x.label_id}/scan`);
  // The first delivery fails: its next attempt is 5 minutes after it, by the Worker's clock.
  const failed = await step('a failed first delivery with its next attempt', async () => {
    const list = await deliveries();
    return list.find((d) => d.state === 'pending' && d.attempts.length === 1);
  });
  assert.equal(failed.attempts[0].status, 500);
  assert.equal(failed.event, 'shipment.in_transit');
  assert.equal(failed.next_attempt_at, failed.attempts[0].at + 300);

  // Both parcels move on. The other one's events reach the shop; the failed
  // one's later events wait behind it, so its shop never sees them out of order.
  const other = parcels.find((x) => x.label_id !== failed.label_id);
  const made = async (event) => (await deliveries()).some((d) => d.label_id === failed.label_id && d.event === event);
  await step('in transit at the shop', () => okOnes(other.label_id).includes('shipment.in_transit'));
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 36 * 3600 });
  await step('out for delivery at the shop', async () => okOnes(other.label_id).includes('shipment.out_for_delivery') && made('shipment.out_for_delivery'));
  await s.sim.control('POST', '/__sim/clock/advance', { seconds: 4 * 3600 });
  // The alarm that sends the other parcel's delivered event runs after the
  // failed parcel's out-for-delivery event was made: had that one been sent, it would be by now.
  await step('delivered at the shop', async () => okOnes(other.label_id).includes('shipment.delivered') && made('shipment.delivered'));
  const waiting = (await deliveries()).filter((d) => d.label_id === failed.label_id && d.id !== failed.id);
  assert.deepEqual(waiting.map((d) => d.event).filter((e) => e !== 'shipment.arriving_soon').sort(), ['shipment.delivered', 'shipment.out_for_delivery']);
  for (const d of waiting) {
    assert.deepEqual([d.event, d.state, d.attempts.length, d.next_attempt_at], [d.event, 'pending', 0, failed.next_attempt_at], 'waits for the one before it');
  }
  assert.deepEqual(received.filter((r) => r.event.data.label_id === failed.label_id).map((r) => r.status), [500]);

  // The admin sends it again from the dashboard, well before its next attempt; the ones behind it follow.
  const { context, page } = await openSignedIn(browser, s, s.users.admin, { path: '/tracking-page' });
  const adminProblems = watchProblems(page);
  const resend = page.getByRole('button', { name: `Send shipment.in_transit for ${failed.tracking_number} again` });
  await resend.click();
  await page.getByRole('row').filter({ has: resend }).getByText('Delivered').waitFor({ timeout: T });
  const done = (await deliveries()).find((d) => d.id === failed.id);
  assert.equal(done.state, 'delivered');
  assert.equal(done.next_attempt_at, undefined, 'no attempt left');
  assert.deepEqual(done.attempts.map((a) => a.status), [500, 200]);
  // The settings with their deliveries, at desktop and phone width, light and dark.
  for (const [viewport, colorScheme] of [[{ width: 1280, height: 900 }, 'light'], [{ width: 390, height: 844 }, 'dark']]) {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme });
    await axe(page, `tracking page settings ${viewport.width} ${colorScheme}`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, `${viewport.width} scrolls sideways`);
  }
  await context.close();
  assert.deepEqual(adminProblems, []);
  await until('the waiting ones delivered after it', () => okOnes(failed.label_id).includes('shipment.delivered'), 30_000, 250);
  // The shopper's pages and the Shipments view say the same.
  for (const x of parcels) assert.match(await (await fetch(s.edge.url + x.link)).text(), /Delivered<\/p>/);
  const viewer = await openSignedIn(browser, s, s.users.viewer, { path: '/shipments?status=delivered' });
  const table = viewer.page.getByRole('table', { name: 'Shipments, newest first' });
  for (const x of parcels) {
    const row = table.locator('tbody tr').filter({ hasText: x.tracking_number });
    await row.locator('td[data-label="Status"]').getByText('Delivered').waitFor({ timeout: T });
  }
  await viewer.context.close();
  assert.deepEqual(problems, []);

  // Each event once (the failed one: its 500, then the resend), in order, signed.
  const copies = (id) => received.filter((r) => r.event.id === id).map((r) => r.status);
  assert.deepEqual(copies(failed.id), [500, 200]);
  for (const r of received.filter((r) => r.event.id !== failed.id)) assert.deepEqual(copies(r.event.id), [200], r.event.event);
  const order = ['shipment.in_transit', 'shipment.arriving_soon', 'shipment.out_for_delivery', 'shipment.delivered'];
  for (const x of parcels) {
    const events = received.filter((r) => r.event.data.label_id === x.label_id && r.status === 200).map((r) => r.event.event);
    assert.deepEqual(events, order.filter((e) => events.includes(e)), `${x.tracking_number}: ${events}`);
    for (const e of ['shipment.in_transit', 'shipment.out_for_delivery', 'shipment.delivered']) {
      assert.equal(events.filter((n) => n === e).length, 1, `${x.tracking_number}: ${e} once in ${events}`);
    }
  }
  for (const r of received) {
    assert.ok(verified(secret, r.signature, r.body), `${r.event.event} verifies`);
    assert.equal(verified('evsec_another', r.signature, r.body), false);
    assert.match(r.event.id, /^sev_[0-9a-f]{24}$/);
    const p = parcels.find((x) => x.label_id === r.event.data.label_id);
    assert.equal(r.event.data.tracking_number, p.tracking_number);
    assert.equal(r.event.data.tracking_url, s.edge.url + p.link);
    assert.ok(r.event.data.scanned_at > 0 && r.event.data.carbon_grams > 0, r.body);
  }
  assert.equal(received.find((r) => r.event.data.reference === '#E-1')?.event.data.reference, '#E-1');
  // Stopping them: no URL, and what was waiting is not sent.
  const off = await admin.call('PUT', '/api/org/tracking/events', { url: null });
  assert.equal(off.status, 200);
  assert.equal(off.json.url, undefined);
  const again = await admin.call('POST', `/api/org/tracking/events/${failed.id}`);
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, 'EDGE.EVENT.REFUSED');
});
