// The batch screens through the real Worker in workerd, the real simulator
// and Chromium, as an organization's members on the shared stack: 300 rows
// imported, planned, confirmed and run to the end (the simulator's limits
// raised), with a reload and a second device during the run, the results
// CSV matched to the simulator's labels row for row, and the labels
// printed as merged PDFs (tests/support/batches.mjs `batchToTheEnd`;
// tests/bench/jobs-scale.mjs runs it on 5,000 rows). (A review-first batch
// with failed rows retried: tests/app-faults.test.mjs.)
import { test, before, after } from 'node:test';
import { sharedStack } from './support/stack.mjs';
import { launch } from './support/browser.mjs';
import { RAISED, batchToTheEnd, batchesOn } from './support/batches.mjs';

const shared = await sharedStack();
let s, browser;
before(async () => {
  s = await batchesOn(shared, { limits: RAISED });
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('300 rows: imported, planned, confirmed, run to the end through a reload and on a second device; the results CSV is the simulator\'s labels row for row; merged PDFs print', { timeout: 600000 }, () => batchToTheEnd(browser, s, 300, [7, 107, 207]));
