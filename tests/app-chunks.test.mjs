// The dashboard's on-demand pages in Chromium (Playwright) and Firefox ESR
// (puppeteer-core over WebDriver BiDi), through the real Worker: `/` loads
// the first module only; opening Batches, then Webhooks fetches each page's
// chunk files (tests/support/sizes.mjs reads which from the built loader)
// once, with no reload, and shows the page; going back fetches nothing; a
// bookmarked batch page opens with the first load and its chunks only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, startStack } from './support/stack.mjs';
import { watchProblems } from './support/browser.mjs';
import { chunks, firstLoad } from './support/sizes.mjs';
import { engines } from './support/widget.mjs';
import { T } from './support/pages.mjs';

const dist = path.join(ROOT, 'dist');
const { splits } = chunks(dist);
const firstWasm = firstLoad(dist).filter((f) => f.file.endsWith('.wasm')).map((f) => f.file);

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

let stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack?.stop(); });

for (const name of ['chromium', 'firefox']) {
  test(`${name}: / loads no chunk; Batches, then Webhooks fetch their chunks once each and show; back to Batches fetches nothing; a bookmarked /batches/new loads only the batch chunks`, async () => {
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
      await page.goto(`${stack.edge.url}/`);
      await page.locator('#token').fill(stack.users.admin.token);
      await d.role(page, 'button', 'Sign in').click();
      await d.wait(d.role(page, 'button', 'Sign out'));
      problems.length = 0; // the session check before signing in answers 401
      assert.deepEqual(wasmSince(0), firstWasm, 'the first load fetches its own module only');
      // Marks this document: a full reload would lose it.
      await page.evaluate(() => { window.parcelSameDocument = true; });

      let mark = requests.length;
      await d.link(page, 'Batches').click();
      await d.wait(d.role(page, 'heading', 'Batches'));
      assert.deepEqual(wasmSince(mark), [...splits.batches].sort(), 'Batches fetches its chunks');

      mark = requests.length;
      await d.link(page, 'Webhooks').click();
      await d.wait(d.role(page, 'heading', 'Webhooks'));
      const shared = new Set(splits.batches);
      assert.deepEqual(wasmSince(mark), splits.webhooks.filter((f) => !shared.has(f)).sort(),
        'Webhooks fetches its chunks, but none Batches already fetched');

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
      const allowed = new Set([...firstWasm, ...splits.batches]);
      assert.deepEqual(fetched.filter((f) => !allowed.has(f)), [], 'only the first load and the batch chunks');
      assert.deepEqual(tabProblems, []);
    } finally {
      await context.close();
      await browser.close();
    }
  });
}
