// Batch jobs at the done-when's scale, with the checks the test command
// makes on a few hundred rows (tests/jobs.test.mjs, tests/app-batches.test.mjs):
// 5,000 rows (20 undeliverable) at raised limits through the job API
// (`jobToTheEnd`: every row bought or explained exactly once, the wallet
// charged exactly, no 429, no stale rate, the results CSV the simulator's
// labels row for row, PDFs of 100), then 5,000 rows through the batch
// screens in Chromium (`batchToTheEnd`: import, plan, a reload and a
// second device mid-run, the rows windowed and filtered, the CSV and the
// PDFs from the page). Prints how long each took; fails if a check fails.
//   scripts/build-edge && scripts/build-app && cargo build --profile native -p sim \
//     && node tests/bench/jobs-scale.mjs [ROWS=5000]
import { RAISED_LIMITS, startStack } from '../support/stack.mjs';
import { jobToTheEnd, jobsOn } from '../support/jobs.mjs';
import { batchToTheEnd, batchesOn } from '../support/batches.mjs';
import { launch } from '../support/browser.mjs';

const ROWS = Number(process.argv[2] || 5000);
const undeliverable = Array.from({ length: 20 }, (_, i) => Math.floor((i * ROWS) / 20) + 7);

const stack = await startStack();
const browser = await launch();
try {
  let t = performance.now();
  const job = await jobToTheEnd(await jobsOn(stack, { limits: RAISED_LIMITS }), ROWS, undeliverable);
  const api = (performance.now() - t) / 1000;
  console.log(`job API: ${ROWS} rows (${undeliverable.length} undeliverable) to the end with every check in ${api.toFixed(1)} s; ${job.stats.quote_calls} quotes, ${job.chunks.length} chunk(s), 429s ${job.stats.rate_limited}`);
  t = performance.now();
  await batchToTheEnd(browser, await batchesOn(stack, { limits: RAISED_LIMITS }), ROWS, undeliverable);
  const screens = (performance.now() - t) / 1000;
  console.log(`batch screens: ${ROWS} rows imported, planned, run to the end and checked in Chromium in ${screens.toFixed(1)} s`);
} finally {
  await browser.close();
  await stack.stop();
}
