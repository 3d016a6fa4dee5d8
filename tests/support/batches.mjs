// The batch screens' tests and benchmark: the simulator with keys whose
// limits are raised (as tests/jobs.test.mjs does), our Worker in front of
// it, the rows of an import as CSV, and the page objects of /batches.
import { randomBytes } from 'node:crypto';
import { RAISED_LIMITS, keysWithLimits, newKeys, newUsers, startEdge, startSim, signInPage } from './stack.mjs';
import { ShipPage } from './pages.mjs';

export const T = 20000;
/** Limits high enough that 5,000 rows are not held up by the table's. */
export const RAISED = RAISED_LIMITS;
const ACCOUNT = 'acct_demo';

/** Simulator and Worker; with `limits`, the Worker's keys carry them; `vars` are the Worker's settings. */
export async function batchStack({ limits, persist = false, vars = {} } = {}) {
  const simKeys = newKeys();
  const users = newUsers();
  const sim = await startSim({ keys: simKeys });
  const keys = limits ? await keysWithLimits(sim, limits) : simKeys;
  await sim.control('PUT', `/__sim/accounts/${ACCOUNT}/wallet`, { balance_cents: 100_000_000, card: 'ok', auto_reload: null });
  const options = { upstream: sim.url, keys, users, vars, persist, sessionSecret: randomBytes(32).toString('hex') };
  const s = { sim, keys, users, edge: await startEdge(options) };
  const operator = await s.edge.session(users.operator);
  /** The job API from Node as the operator (to watch a job and move the clock). */
  s.json = async (p, init = {}) => {
    const res = await fetch(s.edge.url + p, { ...init, headers: { cookie: operator.cookie, origin: operator.origin, 'content-type': 'application/json', ...init.headers } });
    const text = await res.text();
    if (!res.ok) throw new Error(`${p} → ${res.status} ${text}`);
    return JSON.parse(text);
  };
  s.label = async (id) => (await fetch(`${sim.url}/v1/labels/${id}`, { headers: { authorization: `Bearer ${keys.live}` } })).json();
  s.stop = async () => { await s.edge.stop(); await sim.stop(); };
  return s;
}

export const TEMPLATE = ['reference', 'name', 'street1', 'street2', 'city', 'state', 'zip', 'country', 'phone', 'email', 'weight', 'weight_unit', 'length', 'width', 'height', 'dimension_unit'];

const quote = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));
export const csv = (header, rows) => [header, ...rows].map((r) => r.map(quote).join(',')).join('\n') + '\n';

/** `n` distinct shipments in our template; `undeliverable` rows fail when their labels are made. */
export function templateRows(n, { undeliverable = [] } = {}) {
  return Array.from({ length: n }, (_, i) => [
    `#${String(i + 1).padStart(5, '0')}`, `Customer ${i + 1}`, `${i + 1} ${undeliverable.includes(i) ? 'UNDELIVERABLE ' : ''}Elm St`, '',
    'Brooklyn', 'NY', '11201', 'US', '', '', String(10 + (i % 7)), 'oz', '10', '8', '4', 'in',
  ]);
}

export const SENDER = { name: 'Ada Shop Inc', street1: '500 Market St Suite 3', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };

/** The batch screens as a merchant uses them. */
export class Batches {
  constructor(page, s) { this.page = page; this.s = s; }
  async signIn(user) {
    await signInPage(this.page, { edge: this.s.edge }, user);
    await this.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
    await this.page.getByRole('heading', { name: 'Batches', exact: true }).waitFor({ timeout: T });
  }
  async newBatch() {
    await this.page.getByRole('link', { name: 'New batch' }).click();
    await this.page.getByRole('heading', { name: 'New batch' }).waitFor({ timeout: T });
  }
  async upload(name, text, label = 'Choose a file, or drop it here') {
    await this.page.getByLabel(label).setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
  }
  summary() { return this.page.getByTestId('rows-summary'); }
  /** The sender form is the dashboard's address form. */
  fillSender(a = SENDER) { return new ShipPage(this.page).fillAddress('Ship from (every row)', a); }
  /** Plans the batch; `ceiling` in dollars picks "buy as quoted". Returns the job id. */
  async plan({ ceiling } = {}) {
    if (ceiling) {
      await this.page.getByLabel('Buy as quoted, within a ceiling').check();
      await this.page.getByLabel('At most per label ($)').fill('1000');
      await this.page.getByLabel('At most in all ($)').fill(String(ceiling));
    }
    await this.page.getByRole('button', { name: 'Plan the batch' }).click();
    await this.page.getByRole('heading', { name: 'The plan' }).waitFor({ timeout: 60000 });
    return new URL(this.page.url()).pathname.split('/').pop();
  }
  state() { return this.page.getByTestId('job-state'); }
  count(name) { return this.page.getByTestId(`count-${name}`); }
}
