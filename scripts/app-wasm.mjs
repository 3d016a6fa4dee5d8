// Trunk's post_build hook (Trunk.toml): builds the wasm of a page whose
// `<link data-trunk rel="rust" data-trunk-skip …>` Trunk leaves alone, with
// the step Trunk cannot run between cargo and wasm-bindgen
// (trunk-rs/trunk#1022):
//   1. cargo links the bin with its relocations kept (`--emit-relocs`);
//   2. wasm-split-cli cuts the module at its `#[wasm_split]` functions into
//      the main module, one file per chunk and the JS that loads them;
//   3. wasm-bindgen binds the main module (the chunks call JS only through it);
//   4. wasm-opt shrinks every part (release); the imports get short names
//      and esbuild minifies the bindings and the stylesheets (release).
// Every file gets a content-hashed name (served as immutable), the chunk
// loader fetches each chunk with its SRI hash, and the link is replaced by
// what Trunk writes for its own builds: the init script and the preloads
// with their SRI hashes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, writeFileSync, existsSync, mkdirSync, renameSync, statSync, utimesSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { withPacks } from './app-packs.mjs';
import { shortImports } from './wasm-imports.mjs';

const env = (name) => {
  const value = process.env[name];
  if (!value) fail(`${name} is not set: run this as Trunk's post_build hook (Trunk.toml)`);
  return value;
};
function fail(message) {
  console.error(`app-wasm: ${message}`);
  process.exit(1);
}

const staging = env('TRUNK_STAGING_DIR');
const release = env('TRUNK_PROFILE') === 'release';
const publicUrl = env('TRUNK_PUBLIC_URL');
const htmlFile = path.join(staging, 'index.html');
const html = readFileSync(htmlFile, 'utf8');
const links = html.match(/<link\b[^>]*\bdata-trunk-skip\b[^>]*>/g) ?? [];
if (links.length === 0) process.exit(0); // a page Trunk built itself
if (links.length > 1) fail(`one skipped rust link per page, found ${links.length}`);
const [link] = links;
const attr = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(link)?.[1];
if (attr('rel') !== 'rust') fail(`the skipped link is not rel="rust": ${link}`);
const bin = attr('data-bin') ?? fail(`no data-bin on ${link}`);
const manifest = path.resolve(path.dirname(env('TRUNK_HTML_FILE')), attr('href') ?? fail(`no href on ${link}`));
const optLevel = attr('data-wasm-opt') ?? 'z';

/** A JS module (its imports and exports kept) or a stylesheet as esbuild minifies it, in a release build. */
function minify(source, loader = 'js') {
  if (!release) return source;
  const res = spawnSync(env('ESBUILD_BIN'), ['--minify', `--loader=${loader}`, ...(loader === 'js' ? ['--format=esm'] : []), '--log-level=error'], { input: source, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (res.error || res.status !== 0) fail(`esbuild --minify failed: ${res.error?.message ?? res.stderr}`);
  return res.stdout;
}

/** Runs a tool; `capture` returns its stdout, `quiet` shows its stderr only if it fails. */
function run(cmd, args, { capture = false, quiet = false } = {}) {
  const res = spawnSync(cmd, args, { stdio: ['ignore', capture ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28 });
  if (res.error) fail(`${cmd}: ${res.error.message} (scripts/install installs it)`);
  if (res.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${res.status})${quiet ? `:\n${res.stderr}` : ''}`);
  return res.stdout;
}

// 1. The bin, linked with its relocations: only this link gets the flag, so
// every dependency stays as other builds compiled it.
const messages = run('cargo', [
  'rustc', '--target=wasm32-unknown-unknown', '--manifest-path', manifest, '--bin', bin,
  ...(release ? ['--release'] : []), '--offline', '--message-format=json-render-diagnostics',
  '--', '-Clink-arg=--emit-relocs',
], { capture: true });
const artifact = messages.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  .find((m) => m.reason === 'compiler-artifact' && m.target.name === bin && m.executable);
if (!artifact) fail(`cargo named no wasm for bin ${bin}`);
// A directory of this build's own: two checkouts sharing the target dir
// may build at once. Removed at the end; a crashed build's, a day later.
const work = path.join(path.dirname(artifact.executable), `${bin}-split-${process.pid}`);
const DAY_MS = 86_400_000;
for (const d of readdirSync(path.dirname(work))) {
  const old = path.join(path.dirname(work), d);
  if (d.startsWith(`${bin}-split`) && statSync(old).mtimeMs < Date.now() - DAY_MS) rmSync(old, { recursive: true, force: true });
}
rmSync(work, { recursive: true, force: true });

// 2. The split: <bin>.wasm (main), split_<chunk>.wasm, chunk_<n>.wasm (code
// chunks share) and __wasm_split.js (their loader).
const split = path.join(work, 'split');
run('wasm-split-cli', [artifact.executable, split, '--out-name', bin]);

// 3. wasm-bindgen on the main module; it keeps the exports the chunks use.
const bound = path.join(work, 'bindgen');
run('wasm-bindgen', ['--target=web', '--keep-lld-exports', '--no-demangle', '--no-typescript', `--out-dir=${bound}`, `--out-name=${bin}`, path.join(split, `${bin}.wasm`)]);
if (existsSync(path.join(bound, 'snippets'))) fail('wasm-bindgen wrote JS snippets, which this hook does not serve');

const hex = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 16);
};

// 4. wasm-opt on each part (release only, as Trunk does), once per content:
// each part's output is kept under the hash of its input, the level and
// wasm-opt's version, so a rebuild reoptimises only the parts that changed
// (a page's edit changes its chunk and the main module, not the other
// ~300). The misses run in parallel, one per core; the cache keeps what a
// build used in the last day (another checkout may be building beside this
// one: each output is written under a name of this process's, then renamed).
// The chunk files wasm-split-cli wrote beside the main module.
const chunks = readdirSync(split).filter((f) => f.endsWith('.wasm') && f !== `${bin}.wasm`).sort();
const parts = [...chunks.map((f) => path.join(split, f)),
  path.join(bound, `${bin}_bg.wasm`)];
const cacheDir = path.join(path.dirname(artifact.executable), `${bin}-wasm-opt`);
const cached = new Map();
if (release) {
  mkdirSync(cacheDir, { recursive: true });
  const version = run('wasm-opt', ['--version'], { capture: true }).trim();
  for (const file of parts) cached.set(file, path.join(cacheDir, `${hex(readFileSync(file), `-O${optLevel}`, version)}.wasm`));
  const misses = parts.filter((file) => {
    if (!existsSync(cached.get(file))) return true;
    utimesSync(cached.get(file), new Date(), new Date()); // used: kept another day
    return false;
  });
  const optimise = (file) => new Promise((resolve) => {
    const out = `${cached.get(file)}.${process.pid}.tmp`;
    // quiet: it warns about the name subsections wasm-split-cli keeps.
    const child = spawn('wasm-opt', [`-O${optLevel}`, file, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => fail(`wasm-opt: ${e.message} (scripts/install installs it)`));
    child.on('close', (status) => {
      if (status !== 0) fail(`wasm-opt -O${optLevel} ${file} failed (exit ${status}):\n${stderr}`);
      renameSync(out, cached.get(file));
      resolve();
    });
  });
  const queue = [...misses];
  await Promise.all(Array.from({ length: availableParallelism() }, async () => {
    while (queue.length) await optimise(queue.shift());
  }));
  for (const f of readdirSync(cacheDir)) {
    const file = path.join(cacheDir, f);
    if (statSync(file, { throwIfNoEntry: false })?.mtimeMs < Date.now() - DAY_MS) rmSync(file, { force: true });
  }
  console.error(`app-wasm: wasm-opt on ${misses.length} of ${parts.length} parts (the rest unchanged)`);
}
const optimized = (file) => readFileSync(release ? cached.get(file) : file);

// The first load's three files' integrity (index.html's preloads).
const sri = (bytes) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
const write = (name, bytes) => writeFileSync(path.join(staging, name), bytes);

// The chunks, each named by its own SHA-256 (base64url, 43 characters) and
// fetched with the same digest as its integrity: the loader holds one hash
// per chunk file (about 300; a hash does not compress) and `N` rebuilds the
// SRI string from the name. Measured: 3.5 KB brotli less than a hex name
// beside a separate integrity hash.
let loader = readFileSync(path.join(split, '__wasm_split.js'), 'utf8');
const chunkBytes = new Map();
for (const file of chunks) {
  const bytes = optimized(path.join(split, file));
  const stem = `${path.basename(file, '.wasm')}-${createHash('sha256').update(bytes).digest('base64url')}`;
  const fetchOf = `fetch(new URL("./${file}", import.meta.url))`;
  if (loader.split(fetchOf).length !== 2) fail(`the chunk loader does not fetch ${file} exactly once (a wasm-split-cli change?)`);
  loader = loader.replace(fetchOf, `C("${stem}")`);
  write(`${stem}.wasm`, bytes);
  chunkBytes.set(stem, bytes);
}
// Each page's pack (scripts/app-packs.mjs): its files in one request when
// it is the first page a visit opens.
const packed = withPacks(loader, (stem) => chunkBytes.get(stem) ?? fail(`no chunk ${stem}`), fail);
loader = packed.loader;
for (const { stem, bytes } of packed.packs) write(`${stem}.wasm`, bytes);
// wasm-split-cli's comments (which pages share each chunk): 1.4 KB brotli.
loader = loader.replace(/^\/\* [\w, ]+ \*\/\n/gm, '');

// The main module, its bindings and the loader import each other: one
// hash over the three (with the names left blank) names them all.
const { wasm: mainWasm, js: mainJs } = shortImports(
  optimized(path.join(bound, `${bin}_bg.wasm`)), readFileSync(path.join(bound, `${bin}.js`), 'utf8'), `./${bin}_bg.js`, fail);
// Only the ES imports: the import object keeps the module name the wasm asks for.
const loaderImport = 'from "./__wasm_split.js"';
const mainImport = `import { initSync } from "./${bin}.js";`;
if (!mainJs.includes(loaderImport)) fail(`${bin}.js does not import the chunk loader: is there no #[wasm_split] function?`);
if (!loader.includes(mainImport)) fail('the chunk loader does not import the bindings (a wasm-split-cli change?)');
const BLANK = '\0name\0';
const jsBlank = mainJs.replaceAll(loaderImport, `from "./${BLANK}_split.js"`);
const loaderBlank = loader.replace(mainImport, `import { initSync } from "./${BLANK}.js";\n${packed.runtime}`);
const base = `${bin}-${hex(mainWasm, jsBlank, loaderBlank)}`;
const names = { js: `${base}.js`, loader: `${base}_split.js`, wasm: `${base}_bg.wasm` };
// The bindings minified (release: esbuild, wrangler's, scripts/env): 1.8 KB
// brotli less. The loader is left as wasm-split-cli and app-packs.mjs wrote
// it (minified, 90 B less), the shape tests/support/sizes.mjs reads.
const js = minify(jsBlank.replaceAll(BLANK, base));
loader = loaderBlank.replaceAll(BLANK, base);
write(names.js, js);
write(names.loader, loader);
write(names.wasm, mainWasm);

const href = (name) => `${publicUrl}${name}`;
const tags = `<script type="module">
import init from '${href(names.js)}';
await init({ module_or_path: '${href(names.wasm)}' });
</script>
<link rel="modulepreload" href="${href(names.js)}" crossorigin="anonymous" integrity="${sri(js)}">
<link rel="modulepreload" href="${href(names.loader)}" crossorigin="anonymous" integrity="${sri(loader)}">
<link rel="preload" href="${href(names.wasm)}" crossorigin="anonymous" integrity="${sri(mainWasm)}" as="fetch" type="application/wasm">`;
// The stylesheets Trunk linked, minified too, their integrity renewed.
let page = html.replace(link, tags);
for (const tag of release ? html.match(/<link\b[^>]*\brel="stylesheet"[^>]*>/g) ?? [] : []) {
  const href = /\bhref="([^"]+)"/.exec(tag)?.[1] ?? fail(`no href on ${tag}`);
  if (!href.startsWith(publicUrl)) fail(`${href} is not under ${publicUrl}`);
  const file = path.join(staging, href.slice(publicUrl.length));
  const css = minify(readFileSync(file, 'utf8'), 'css');
  writeFileSync(file, css);
  const integrity = `sha384-${createHash('sha384').update(css).digest('base64')}`;
  page = page.replace(tag, tag.replace(/\bintegrity="[^"]*"/, `integrity="${integrity}"`));
}
writeFileSync(htmlFile, page);
rmSync(work, { recursive: true, force: true });
console.log(`app-wasm: ${names.wasm}, ${chunks.length} chunks and ${packed.packs.length} packs`);
