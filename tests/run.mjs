// The browser and workerd tests: starts the shared stack once (the
// simulator and the four Workers in one workerd), runs the test files with
// `node --test` (each file in its own process), hands each file the stack's
// coordinates in PARCEL_STACK, stops the stack at the end and prints how
// many stacks the run started, failing past MAX_STACKS, and each file's time.
// Files run two at a time (each works in organizations of its own), then
// the ALONE ones one at a time: they move the shared simulator's one clock
// or set its faults, which every file beside them would see.
// Usage: node tests/run.mjs [FILE...] (default: every tests/*.test.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileTimesReport } from './support/file-times.mjs';
import { ROOT } from './support/workers.mjs';

/** The bound: more means a test started a stack it could share. */
const MAX_STACKS = 8;

/**
 * The files that freeze, set or advance the shared simulator's clock or set
 * its faults (directly, for one rate-limit window, or through
 * tests/support's jobs, batches, ledger seeding and widget scenarios).
 * Beside other files the shared simulator refuses them that
 * (tests/support/stack.mjs), naming this list. A file that moves only its
 * own stack's simulator (app-faults, app-widget, edge-faults,
 * edge-org-keys) runs beside the others.
 */
const ALONE = new Set([
  'app-batches-a11y', 'app-batches', 'app-errors', 'app-insights', 'app-labels', 'app-ship',
  'edge-insights', 'edge-org-tokens', 'edge-safety', 'edge', 'jobs', 'orgs-throttle',
  'tracking-events', 'tracking-page', 'tracking', 'webhooks',
].map((name) => `tests/${name}.test.mjs`));
/** Two files at once: the two cores are about three quarters busy with one. */
const BESIDE_AT_ONCE = 2;

const files = process.argv.slice(2);
if (!files.length) {
  for (const f of readdirSync(path.join(ROOT, 'tests')).sort()) if (f.endsWith('.test.mjs')) files.push(path.join('tests', f));
}

const dir = mkdtempSync(path.join(tmpdir(), 'parcel-run-'));
const stacksFile = path.join(dir, 'stacks');
writeFileSync(stacksFile, '');
process.env.PARCEL_STACKS_FILE = stacksFile;
const timesFile = path.join(dir, 'times');
process.env.PARCEL_FILE_TIMES = timesFile;
// Imported after PARCEL_STACKS_FILE is set: the shared start is counted there too.
const { startShared } = await import('./support/stack.mjs');
const stack = await startShared();

// --test-force-exit: a file whose tests have all ended exits even if a
// process it started is still alive (a failed start once left the
// simulator running and the run waited for CI's limit).
// Beside the usual report (spec on a terminal, TAP otherwise), each file's time at the end.
const reporters = [process.stdout.isTTY ? 'spec' : 'tap', './tests/support/file-times.mjs'].flatMap((r) => [`--test-reporter=${r}`, '--test-reporter-destination=stdout']);
let child = null;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child?.kill(signal));
/** Runs `group` through `node --test`, `atOnce` files at a time; resolves to its exit code. */
function runFiles(group, atOnce, env) {
  if (!group.length) return 0;
  child = spawn(process.execPath, ['--test', '--test-force-exit', `--test-concurrency=${atOnce}`, ...reporters, ...group], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PARCEL_STACK: JSON.stringify(stack.coordinates), ...env },
  });
  return new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
}
const alone = files.filter((f) => ALONE.has(path.relative(ROOT, path.resolve(ROOT, f))));
const beside = files.filter((f) => !alone.includes(f));
// The files beside each other first: the stack is new, its clock the real
// time and running, with no fault. Each ALONE file then resets them itself.
const groupsStarted = Date.now();
const besideCode = await runFiles(beside, BESIDE_AT_ONCE, { PARCEL_BESIDE: '1' });
const besideEnded = Date.now();
const aloneCode = await runFiles(alone, 1, {});
const groups = `[files] ${beside.length} files ${BESIDE_AT_ONCE} at a time in ${((besideEnded - groupsStarted) / 1000).toFixed(0)} s, ${alone.length} alone in ${((Date.now() - besideEnded) / 1000).toFixed(0)} s`;
const code = besideCode || aloneCode;
await stack.stop({ keepLog: code !== 0 });
if (code !== 0) console.log(`\n[stacks] the shared Workers' log (every line they wrote, panics included): ${stack.coordinates.logFile}`);

if (existsSync(timesFile)) console.log(`\n${fileTimesReport(readFileSync(timesFile, 'utf8'))}`);
console.log(groups);
const starts = readFileSync(stacksFile, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t'));
rmSync(dir, { recursive: true, force: true });
const started = starts.filter(([kind]) => kind !== 'restart');
const byFile = new Map();
for (const [kind, file] of starts) {
  if (kind === 'shared') continue;
  const seen = byFile.get(file) ?? { private: 0, restart: 0 };
  seen[kind] += 1;
  byFile.set(file, seen);
}
console.log(`\n[stacks] ${started.length} started (1 shared, ${started.length - 1} of a test's own), ${starts.length - started.length} restarts on their state`);
for (const [file, n] of byFile) console.log(`[stacks]   ${file}: ${n.private} started, ${n.restart} restarts`);
if (started.length > MAX_STACKS) {
  console.log(`[stacks] more than ${MAX_STACKS}: a test started a stack of its own that the shared one could serve`);
  process.exit(code || 1);
}
process.exit(code);
