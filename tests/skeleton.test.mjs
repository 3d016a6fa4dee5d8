// The walking skeleton: browser → Worker (static assets + /api) → simulator,
// as the members of an organization of the test's own on the shared stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { sharedStack, signInPage, tokenField, ROOT } from './support/stack.mjs';
import { orgStack } from './support/orgs.mjs';
import { launch, screenshot, watchProblems } from './support/browser.mjs';

const shared = await sharedStack();
let stack, browser;
const NOT_SIGNED_IN = 'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)';
before(async () => {
  stack = await orgStack(shared);
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the dashboard shows the wallet balance the simulator holds, as money', async () => {
  await stack.sim.control('PUT', `/__sim/accounts/${stack.accountId}/wallet`, {
    balance_cents: 123456, card: 'ok', auto_reload: null,
  });
  const page = await browser.newPage();
  const problems = watchProblems(page);
  const res = await page.goto(stack.edge.url + '/wallet');
  // A strict CSP: the wasm may run, only the one hashed inline script, nothing else inline.
  const csp = res.headers()['content-security-policy'] || '';
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(res.headers()['x-content-type-options'], 'nosniff');
  await (await tokenField(page)).fill(stack.users.admin.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const balance = page.getByTestId('balance');
  await balance.waitFor({ timeout: 15000 });
  assert.equal(await balance.innerText(), '$1,234.56');
  // Any CSP violation would be a console error, which `problems` collects;
  // the one expected is the 401 of the session check before signing in.
  await screenshot(page, 'skeleton-wallet');
  assert.deepEqual(problems.filter((p) => p !== NOT_SIGNED_IN), []);
  await page.close();
});

test('a deep link is served the app (single-page fallback), which renders its own not-found view', async () => {
  const page = await browser.newPage();
  await signInPage(page, stack, stack.users.viewer);
  const res = await page.goto(stack.edge.url + '/no/such/page');
  assert.equal(res.status(), 200);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor({ timeout: 15000 });
  await page.close();
});

test('the API key appears in no response body, header or static asset the browser receives', async () => {
  const { live, sandbox } = stack.keys;
  const seen = [];
  const reading = []; // each response's body read, all awaited before the scan
  const page = await browser.newPage();
  page.on('response', (res) => reading.push((async () => {
    let body = '';
    try { body = (await res.body()).toString('latin1'); } catch { /* redirects have no body */ }
    seen.push({ url: res.url(), text: JSON.stringify(res.headers()) + body });
  })()));
  await signInPage(page, stack, stack.users.operator);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wallet' }).click();
  await page.getByTestId('balance').waitFor({ timeout: 15000 });
  // Error paths too: an unknown endpoint, a wrong method, an upstream 404.
  for (const [method, p] of [['GET', '/api/v1/nope'], ['PUT', '/api/v1/wallet'], ['GET', '/api/v1/labels/lbl_missing'], ['GET', '/api/v1/labels/..%2Fwallet']]) {
    // The page reads each body, or the browser never finishes the response for the scan.
    const status = await page.evaluate(async ([m, u]) => { const r = await fetch(u, { method: m }); await r.text(); return r.status; }, [method, p]);
    assert.ok(status >= 400 && status < 500, `${method} ${p} gave ${status}`);
  }
  await Promise.all(reading);
  await page.close();
  // Every file the Worker can serve as a static asset.
  const walk = (dir) => readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
  for (const file of walk(path.join(ROOT, 'dist'))) {
    seen.push({ url: file, text: readFileSync(file).toString('latin1') });
  }
  assert.ok(seen.some((s) => s.url.endsWith('/api/v1/wallet')), 'the wallet call was observed');
  assert.ok(seen.some((s) => s.url.endsWith('/api/v1/labels/lbl_missing') && s.text.includes('LABEL.NOT_FOUND')), 'an error body was scanned');
  assert.ok(seen.length > 5);
  for (const { url, text } of seen) {
    assert.ok(!text.includes(live), `live key leaked in ${url}`);
    assert.ok(!text.includes(sandbox), `sandbox key leaked in ${url}`);
    assert.ok(!text.includes(live.slice(9)), `live key hex leaked in ${url}`);
    for (const u of Object.values(stack.users)) assert.ok(!text.includes(u.token), `an access token leaked in ${url}`);
  }
});

test('sign-in: a wrong token shows the error, the right one the dashboard; sign-out returns to the login page', async () => {
  const page = await browser.newPage();
  const problems = watchProblems(page);
  await page.goto(stack.edge.url + '/');
  await (await tokenField(page)).fill('pt_' + '0'.repeat(48));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('That access token is not valid.').waitFor({ timeout: 15000 });
  await page.getByLabel('Access token').fill(stack.users.admin.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wallet' }).click();
  await page.getByTestId('balance').waitFor({ timeout: 15000 });
  // The cookie is HttpOnly: page scripts cannot read the session.
  assert.equal(await page.evaluate(() => document.cookie), '');
  // Admins with both keys get the switch; sandbox shows the banner and the sandbox wallet.
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('status').getByText('Sandbox: test labels, nothing is charged.').waitFor({ timeout: 15000 });
  await page.getByText('Sandbox balance').waitFor({ timeout: 15000 });
  await screenshot(page, 'shell-sandbox');
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await page.getByRole('status').waitFor({ state: 'detached', timeout: 15000 });
  // The login page asks whether sign-up is open as it shows: answered
  // before the reload, which would otherwise cut that request off.
  const asked = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/orgs');
  await page.getByRole('button', { name: 'Sign out' }).click();
  // The login page opens on the way this browser last signed in: the token.
  await page.getByLabel('Access token').waitFor({ timeout: 15000 });
  await asked;
  await page.reload();
  await page.getByLabel('Access token').waitFor({ timeout: 15000 });
  // The only console errors allowed are the 401s of the wrong token and the signed-out checks.
  assert.deepEqual(problems.filter((p) => p !== NOT_SIGNED_IN), []);
  await page.close();
});

test('the app\'s wasm goes out as the build-time brotli file to clients that take brotli, unchanged to others', async () => {
  const html = await (await fetch(stack.edge.url + '/')).text();
  const wasm = /href="(\/app-[0-9a-f]+_bg\.wasm)"/.exec(html)[1];
  const raw = readFileSync(path.join(ROOT, 'dist', wasm));
  const br = readFileSync(path.join(ROOT, 'dist', `${wasm}.br`));
  assert.ok(br.length < raw.length * 0.4, `${br.length} bytes of brotli for ${raw.length}`);
  // node:http: fetch would decode the body and hide what was sent.
  const get = (encoding) => new Promise((resolve, reject) => {
    http.get(stack.edge.url + wasm, { headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  const sent = await get('br');
  assert.equal(sent.res.headers['content-encoding'], 'br');
  assert.equal(sent.res.headers['content-type'], 'application/wasm');
  assert.match(sent.res.headers['cache-control'], /immutable/);
  assert.ok(sent.body.equals(br), 'the very bytes of the .br file');
  assert.ok(brotliDecompressSync(sent.body).equals(raw));
  const refused = await get('br;q=0');
  assert.notEqual(refused.res.headers['content-encoding'], 'br');
  assert.ok(refused.body.equals(raw));
});
