// The dashboard's on-demand pages in Chromium (Playwright) and Firefox ESR
// (puppeteer-core over WebDriver BiDi), through the real Worker: signing in
// on /ship loads the first module, then the ship page's pack (its chunk
// files in one); opening Batches, then Webhooks fetches the chunk files
// the pages before did not bring (tests/support/sizes.mjs reads which from
// the built loader), once, with no reload, and shows the page; going back
// fetches nothing; a bookmarked batch page opens with the first load and
// the batch pack only; the ship page fetches its offer chunk (rates,
// purchase) once its form is entered, and nothing before.
// On the shared stack, as the deployment's own admin (its USERS): its
// organization has no saved addresses, so Ship loads no chunk of them; an
// organization's member loads that chunk with the first page, and the
// visit's first pack is then another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, sharedStack, signInPage } from './support/stack.mjs';
import { watchProblems } from './support/browser.mjs';
import { chunks, firstLoad } from './support/sizes.mjs';
import { engines } from './support/widget.mjs';
import { ShipPage, T } from './support/pages.mjs';

const dist = path.join(ROOT, 'dist');
const { splits, packs } = chunks(dist);
const firstWasm = firstLoad(dist).filter((f) => f.file.endsWith('.wasm')).map((f) => f.file);
// What opening split `name` fetches once the files `loaded` are in: its
// pack while none of its files is (the first on-demand page of a visit),
// else the files it lacks, one by one.
const opening = (name, loaded) => (packs[name] && !splits[name].some((f) => loaded.has(f))
  ? [packs[name]]
  : splits[name].filter((f) => !loaded.has(f)).sort());

// The few calls the scenario needs, per engine.
const drive = {
  chromium: {
    context: (browser) => browser.newContext(),
    role: (page, role, name) => page.getByRole(role, { name, exact: true }),
    wait: (locator) => locator.first().waitFor({ timeout: T }),
    link: (page, name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }),
  },
  firefox: {
    context: (browser) => browser.createBrowserContext(),
    role: (page, role, name) => page.locator(`::-p-aria([name="${name}"][role="${role}"])`),
    wait: (locator) => locator.setTimeout(T).wait(),
    link: (page, name) => page.locator(`nav[aria-label="Main"] ::-p-aria([name="${name}"][role="link"])`),
  },
};

const stack = await sharedStack();
stack.users = stack.deploymentUsers;

for (const name of ['chromium', 'firefox']) {
  test(`${name}: /ship loads the first module and its pack; Batches, then Webhooks fetch the chunk files they lack once each and show; back to Batches fetches nothing; a bookmarked /batches/new loads only the batch chunks`, async () => {
    const engine = engines[name];
    const d = drive[name];
    const browser = await engine.launch();
    const context = await d.context(browser);
    const page = await context.newPage();
    const problems = watchProblems(page);
    // Every request's path, in order; `since(n)` the wasm among those after the n-th.
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    const wasmSince = (n) => requests.slice(n).filter((p) => p.endsWith('.wasm')).map((p) => p.slice(1)).sort();
    const documents = () => requests.filter((p) => !/\.\w+$/.test(p) && !p.startsWith('/api/')).length;
    try {
      await page.goto(`${stack.edge.url}/ship`);
      await d.role(page, 'button', 'Use an access token').click();
      await page.locator('#token').fill(stack.users.admin.token);
      await d.role(page, 'button', 'Sign in').click();
      await d.wait(d.role(page, 'button', 'Sign out'));
      await d.wait(d.role(page, 'heading', 'Ship a parcel'));
      problems.length = 0; // the session check before signing in answers 401
      // The first page a visit opens: its files in one pack.
      assert.ok(packs.ship, 'the ship page shares files, so it has a pack');
      assert.deepEqual(wasmSince(0), [...firstWasm, packs.ship].sort(), 'the first load, then the ship pack');
      // Marks this document: a full reload would lose it.
      await page.evaluate(() => { window.parcelSameDocument = true; });
      const loaded = new Set(splits.ship);

      // Later pages: only the files they lack, one by one (a pack would
      // bring again what the pages before brought).
      let mark = requests.length;
      await d.link(page, 'Batches').click();
      await d.wait(d.role(page, 'heading', 'Batches'));
      assert.deepEqual(wasmSince(mark), opening('batches', loaded), 'Batches fetches what Ship did not bring');
      for (const f of splits.batches) loaded.add(f);

      mark = requests.length;
      await d.link(page, 'Webhooks').click();
      await d.wait(d.role(page, 'heading', 'Webhooks'));
      assert.ok(splits.webhooks.some((f) => loaded.has(f)), 'Webhooks shares code with the pages before');
      assert.deepEqual(wasmSince(mark), opening('webhooks', loaded),
        'Webhooks fetches its chunks, but none Ship or Batches already fetched');

      mark = requests.length;
      await d.link(page, 'Batches').click();
      await d.wait(d.role(page, 'heading', 'Batches'));
      assert.deepEqual(wasmSince(mark), [], 'a page seen before fetches nothing');
      assert.equal(await page.evaluate(() => window.parcelSameDocument), true, 'no full reload');
      assert.equal(documents(), 1, `one document: ${requests.join(' ')}`);
      const all = requests.filter((p) => p.endsWith('.wasm'));
      assert.equal(new Set(all).size, all.length, `each module fetched once: ${all.join(' ')}`);

      assert.deepEqual(problems, []);

      // A bookmark, opened in a new tab of the same session.
      const bookmark = await context.newPage();
      const tabProblems = watchProblems(bookmark);
      const fetched = [];
      bookmark.on('request', (r) => { if (r.url().endsWith('.wasm')) fetched.push(new URL(r.url()).pathname.slice(1)); });
      await bookmark.goto(`${stack.edge.url}/batches/new`);
      await d.wait(d.role(bookmark, 'heading', 'New batch'));
      // The browser may answer from its cache without a request; nothing else.
      const allowed = new Set([...firstWasm, packs.batches]);
      assert.deepEqual(fetched.filter((f) => !allowed.has(f)), [], 'only the first load and the batch pack');
      assert.deepEqual(tabProblems, []);
    } finally {
      await context.close();
      await browser.close();
    }
  });
}

// The ship page's rates, purchase and bought label are a chunk of their
// own: a visit that only looks never fetches it; entering the form does,
// so it is there by the time rates are. A failed fetch of it is shown with
// "Try again", which fetches it anew, and the rates then show.
test('chromium: /ship fetches its own chunk, then the offer chunk only once the form is entered; a failed fetch of it recovers with Try again', async () => {
  const browser = await engines.chromium.launch();
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = watchProblems(page);
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname.slice(1)); });
  const offerOwn = splits.ship_offer.find((f) => f.startsWith('split_ship_offer'));
  // The ship page's chunk is in: the offer fetches what it lacks.
  const offerFetches = opening('ship_offer', new Set(splits.ship));
  assert.ok(offerFetches.length > 0);
  // The offer's own file, and its pack, fail until `blocked` is cleared.
  let blocked = true;
  for (const file of new Set([offerOwn, packs.ship_offer].filter(Boolean))) {
    await page.route(`**/${file}`, (route) => (blocked ? route.abort('connectionreset') : route.continue()));
  }
  try {
    await signInPage(page, stack, stack.users.admin);
    problems.length = 0; // the session check before signing in answers 401
    const ship = new ShipPage(page);
    await ship.getRatesButton().waitFor({ timeout: T });
    const shipFiles = opening('ship', new Set());
    assert.deepEqual(wasm.filter((f) => !firstWasm.includes(f)), shipFiles, 'the signed-in ship page fetches its chunk and nothing more');

    await ship.fillAll();
    // Each field entered asks again for a chunk whose fetch failed.
    const later = [...new Set(wasm.filter((f) => !firstWasm.includes(f) && !shipFiles.includes(f)))].sort();
    assert.deepEqual(later, offerFetches, `entering the form fetches the offer: ${wasm.join(' ')}`);
    await ship.getRatesButton().click();
    const alert = page.locator('.error-view[role="alert"]');
    await alert.waitFor({ timeout: T });
    assert.match(await alert.innerText(), /Try again/);
    assert.equal(await ship.table().count(), 0, 'no rates without their chunk');

    blocked = false;
    await alert.getByRole('button', { name: 'Try again' }).click();
    await ship.table().waitFor({ timeout: T });
    assert.ok(await ship.rows().count() > 0, 'the rates show');
    assert.equal(await alert.count(), 0, 'the error is gone');
    // The aborted fetches log their failure (request, resource, the loader's
    // TypeError); nothing else may be logged.
    const aborted = (p) => [offerOwn, ...offerFetches].some((f) => p === `requestfailed: ${stack.edge.url}/${f} net::ERR_CONNECTION_RESET`)
      || p === 'console: Failed to load resource: net::ERR_CONNECTION_RESET' || p.startsWith('console: TypeError: Failed to fetch');
    assert.deepEqual(problems.filter((p) => !aborted(p)), []);
  } finally {
    await context.close();
    await browser.close();
  }
});
