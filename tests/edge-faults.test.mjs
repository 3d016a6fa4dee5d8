// What the Workers do when something underneath them goes wrong, through
// the real Workers in workerd and the real simulator, as organizations'
// members: a stack of this file's own, because each test here stops and
// restarts the Workers on their stored state (edited while they are down,
// for what no endpoint can do), restarts them with other settings, or
// slows, breaks or stops the simulator, which on the shared stack is every
// test file's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from './support/stack.mjs';
import { Person, assertError, newOrgLink } from './support/orgs.mjs';
import { filesWithTable, sqlite } from './support/sqlite.mjs';

const PASSWORD = 'correct horse battery staple';
/** The Durable Objects' SQLite files, edited while the Workers are down. */
const persist = mkdtempSync(path.join(tmpdir(), 'parcel-faults-'));
let stack;
before(async () => {
  stack = await startStack({ persist });
});
after(async () => {
  await stack?.stop();
  rmSync(persist, { recursive: true, force: true });
});

const person = () => new Person(stack.edge.url);
const email = (who) => `${who}.${randomBytes(4).toString('hex')}@example.com`;

test('an invitation a day past its expiry is refused as expired, and listed so', async () => {
  const admin = person();
  const link = await newOrgLink(stack.sessionSecret, stack.edge.url);
  const made = await admin.createOrg(link.token, { orgName: 'Aging Co', name: 'Ada Admin', email: email('admin'), password: PASSWORD });
  assert.equal(made.status, 200, made.text);
  // A day past its expiry (moved there in the organization's stored row,
  // with the Workers stopped: no endpoint can age an invitation), a link is
  // refused as expired.
  const aging = await admin.invite('viewer', 1);
  assert.equal(aging.status, 201, aging.text);
  await stack.edge.stop();
  const [orgFile] = filesWithTable(persist, 'invites').filter((f) => sqlite(f, 'SELECT id FROM invites WHERE id = ?', [aging.json.invite.id]).length);
  assert.ok(orgFile, 'the organization object holds the invitation');
  sqlite(orgFile, 'UPDATE invites SET expires_at = ? WHERE id = ?', [Math.floor(Date.now() / 1000) - 86400, aging.json.invite.id]);
  await stack.edge.restart();
  assertError(await person().preview(aging.json.token), 410, 'EDGE.INVITE.EXPIRED');
  assertError(await person().accept(aging.json.token, { email: email('late'), password: PASSWORD }), 410, 'EDGE.INVITE.EXPIRED');
  assert.equal((await admin.call('GET', '/api/org/invites')).json.invites.find((i) => i.id === aging.json.invite.id).state, 'expired');
});
