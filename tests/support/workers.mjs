// The four Workers as Miniflare options, read from their wrangler.toml files
// by wrangler's own config reader, so tests and benchmarks run exactly what
// the configs deploy: the Durable Object classes, INBOX bound to the ledger
// Worker's class by `script_name`, the ACCOUNTS and PDF services, dist/ as
// static assets with the single-page fallback and `run_worker_first`, the
// [vars]. All four run in one workerd, found by their config names.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each Worker's config; the main Worker first: it answers the instance's own URL. */
export const CONFIGS = {
  main: 'wrangler.toml',
  accounts: 'accounts/wrangler.toml',
  ledger: 'ledger/wrangler.toml',
  pdf: 'pdf/wrangler.toml',
};

const read = new Map();

/**
 * One Worker (`main`, `accounts`, `ledger` or `pdf`) as its config describes
 * it, its built module as the script, `bindings` (vars and secrets: strings)
 * over the config's [vars].
 */
export function workerOptions(which, bindings = {}) {
  const config = path.join(ROOT, CONFIGS[which]);
  if (!read.has(config)) {
    const { workerOptions: options, main } = unstable_getMiniflareWorkerOptions(config);
    read.set(config, { ...options, name: unstable_readConfig({ config }).name, modules: true, scriptPath: main });
  }
  const options = read.get(config);
  return { ...options, bindings: { ...options.bindings, ...bindings } };
}

/** The four Workers with each one's `bindings`, the main Worker first. */
export function fourWorkers(bindings = {}) {
  return Object.keys(CONFIGS).map((which) => workerOptions(which, bindings[which]));
}
