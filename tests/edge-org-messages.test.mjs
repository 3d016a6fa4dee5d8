// What an organization is told about its keys and webhook secrets names
// what its people use, through the real Workers in workerd: verifying or
// activating a next key that was never entered names the API keys page
// (not the deployment's SVC_*_NEXT secrets); a delivery to an organization
// without a webhook secret, or signed with the wrong one, names the
// Webhook settings page (not WEBHOOK_SECRET). On the shared stack, in an
// organization of its own (the deployment's own organization, configured by
// Worker secrets and told so: tests/edge-deployment.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { keysWithLimits, sharedStack } from './support/stack.mjs';
import { Person, PASSWORD, assertError, newOrgLink } from './support/orgs.mjs';

const shared = await sharedStack();
const { edge, sessionSecret } = shared;

/** Names nothing only a deployment's operator can set. */
function namesNoWorkerSecret(e) {
  for (const text of [e.message, e.suggestion]) assert.doesNotMatch(text, /SVC_|WEBHOOK_SECRET|wrangler|Worker secret/, text);
}

test('an organization\'s key and webhook messages name its pages', async () => {
  const link = await newOrgLink(sessionSecret, edge.url);
  const admin = new Person(edge.url);
  const made = await admin.createOrg(link.token, { orgName: 'Message Goods', name: 'Mia Admin', email: `mia.${randomBytes(4).toString('hex')}@example.com`, password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  const org = made.json.org.id;
  // A sandbox key of a simulator account of its own (the API keys page checks it with the service).
  const account = `acct_${randomBytes(6).toString('hex')}`;
  const { sandbox } = await keysWithLimits(shared.sim, undefined, account);
  const set = await admin.call('PUT', '/api/org/keys', { action: 'set', slot: 'current', key: sandbox });
  assert.equal(set.status, 200, set.text);
  assert.equal((await admin.call('GET', '/api/session')).json.mode, 'sandbox');

  // No next key entered: verify and activate say where to enter one.
  for (const step of ['verify', 'activate']) {
    const e = assertError(await admin.call('POST', `/api/keys/sandbox/${step}`), 409, 'EDGE.KEY.NO_NEXT_KEY');
    namesNoWorkerSecret(e);
    assert.match(e.message, /organization has no next sandbox key/);
    assert.match(e.suggestion, /API keys page \(\/keys\)/);
    assert.match(e.suggestion, /“API key”/);
  }

  // A delivery before any secret is entered, and one signed with a wrong secret.
  const body = JSON.stringify({ event: 'label.created', data: {} });
  const deliver = (path, secret) => fetch(edge.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-signature': 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') },
    body,
  }).then(async (res) => ({ status: res.status, headers: res.headers, json: await res.json() }));
  const hook = `/hooks/v1/label-created/${org}`;
  const missing = assertError(await deliver(hook, 'whsec_anything_at_all'), 503, 'WEBHOOK.SECRET.MISSING');
  namesNoWorkerSecret(missing);
  assert.match(missing.message, /organization has no webhook secret/);
  assert.match(missing.suggestion, /Webhook settings page \(\/webhooks\/settings\)/);
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  assert.equal((await admin.call('PUT', '/api/org/webhook', { action: 'set', slot: 'current', secret })).status, 200);
  const wrong = assertError(await deliver(hook, `whsec_${randomBytes(16).toString('hex')}`), 401, 'WEBHOOK.SIGNATURE.INVALID');
  namesNoWorkerSecret(wrong);
  assert.match(wrong.suggestion, /Webhook settings page \(\/webhooks\/settings\)/);
});
