// What the dashboard's wasm is made of: its first load and each page chunk,
// by kind (framework, bindings, serde per type, formatting, the app's
// pages and components, std). A profiling build of the same release
// profile with v0 symbol names (generic code is named after what it is
// instantiated for, so a page's view code counts as the page's), split,
// bound and optimised as scripts/app-wasm.mjs does but with names kept,
// then `twiggy top` per module, every function classified by its name.
//   cargo install twiggy --version 0.8.0 --locked    (once; not a test tool)
//   node tests/bench/wasm-profile.mjs [--top 25] [--reuse]   (--reuse: the last build)
// Its own target directory (…/parcel/target-profile): the v0 names change
// every crate's build. Raw bytes of code and data, without the name section.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { ROOT } from '../support/stack.mjs';

const top = Number(process.argv[process.argv.indexOf('--top') + 1]) || 25;
const target = path.join(process.env.XDG_CACHE_HOME || path.join(process.env.HOME, '.cache'), 'parcel/target-profile');
const run = (cmd, args, env = {}) => {
  const res = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  return res.stdout;
};

const reuse = process.argv.includes('--reuse');
if (!reuse) run('cargo', ['rustc', '--release', '--target=wasm32-unknown-unknown', '-p', 'app', '--bin', 'app', '--offline', '--quiet', '--', '-Clink-arg=--emit-relocs'],
  { CARGO_TARGET_DIR: target, RUSTFLAGS: '-Csymbol-mangling-version=v0' });
const work = path.join(target, 'profile');
const input = path.join(target, 'wasm32-unknown-unknown/release/app.wasm');
if (!reuse) {
  rmSync(work, { recursive: true, force: true });
  run('wasm-split-cli', [input, work, '--out-name', 'app']);
  run('wasm-bindgen', ['--target=web', '--keep-lld-exports', '--no-demangle', '--no-typescript', `--out-dir=${work}/bindgen`, '--out-name=app', `${work}/app.wasm`]);
}
const modules = [['first load', `${work}/bindgen/app_bg.wasm`], ...readdirSync(work).filter((f) => /^split_\w+\.wasm$/.test(f)).sort().map((f) => [f.slice(6, -5), path.join(work, f)])];

const FRAMEWORK = /^(leptos\w*|tachys|reactive_graph|reactive_stores|any_spawner|or_poisoned|throw_error|server_fn|hydration_context|slotmap|futures\w*|send_wrapper|async_once_cell|wasm_split_helpers|either_of|next_tuple|oco_ref|guardian|pin_project\w*|const_str_slice_concat|indexmap|rustc_hash|drain_filter_polyfill|html_escape|itertools)$/;
const BINDINGS = /^(wasm_bindgen\w*|js_sys|web_sys|gloo\w*|console_error_panic_hook)$/;
const STD = /^(core|alloc|std|dlmalloc|hashbrown|compiler_builtins|memchr|smallvec)$/;
const FORMAT = /core::fmt|alloc::fmt|core::num::(flt2dec|dec2flt|fmt)|ryu::|itoa::|<(f64|f32|u\d+|i\d+|usize|isize|str|char|bool) as core::fmt/;

/**
 * A readable name: crate hashes dropped; a v0 symbol twiggy left mangled
 * (wasm-opt suffixes some) becomes its identifiers joined by `::`, enough
 * to tell its crate and module.
 */
function readable(name) {
  if (!name.startsWith('_R')) return name.replace(/\[[0-9a-f]{16}\]/g, '');
  const idents = [];
  for (let i = 2; i < name.length;) {
    const m = /^(\d+)_?/.exec(name.slice(i));
    if (!m) { i += 1; continue; }
    const len = Number(m[1]);
    const ident = name.slice(i + m[0].length, i + m[0].length + len);
    if (len > 0 && /^[A-Za-z_]\w*$/.test(ident)) {
      idents.push(ident);
      i += m[0].length + len;
    } else i += m[0].length;
  }
  return idents.join('::');
}

/** The kind of one twiggy item, from its (demangled v0) name. */
function kind(name) {
  if (/^data segment/.test(name)) return 'data: strings, vtables, constant tables';
  if (/^(code|func)\[\d+\]$/.test(name)) return 'code without a name (glue)';
  if (/^(elem|table|type|import|export|global|memory|start)\b|section|\[\d+\]$/.test(name)) return 'wasm structure: types, imports, exports, table';
  const serde = /serde(_core|_json)?::/.test(name);
  const own = /(?:^|[<\s(&,*])((?:app|api)::[a-z_]+(?:::[a-z_]+)?)/.exec(name);
  if (serde) {
    const type = /(?:^|[<\s(&,*])((?:app|api)::(?:[a-z_]+::)*[A-Z]\w*)/.exec(name);
    return type ? `serde: ${type[1]}` : 'serde: serde_json reader and writer';
  }
  if (FORMAT.test(name) && !own) return 'formatting: core::fmt, numbers to and from text';
  if (own) return own[1].startsWith('api') ? `api: ${own[1]}` : own[1];
  const crate = /^[<&*\s]*(?:dyn )?([a-z_][a-z0-9_]*)::/.exec(name)?.[1];
  if (crate && FRAMEWORK.test(crate)) return 'framework: Leptos, router, reactive graph, tachys';
  if (crate && BINDINGS.test(crate)) return 'bindings: wasm-bindgen, js-sys, web-sys, gloo';
  if (crate && STD.test(crate)) return 'std: alloc, collections, panics, hashing';
  if (crate === 'csv' || crate === 'csv_core') return 'csv';
  return crate ? `other: ${crate}` : `other: ${name.slice(0, 40)}`;
}

const kib = (n) => (n / 1024).toFixed(1);
for (const [label, file] of modules) {
  const opt = `${file}.g.wasm`;
  // Brotli of the shipped module (same optimisation, names dropped).
  const shipped = `${file}.oz.wasm`;
  if (!reuse) {
    run('wasm-opt', ['-Oz', '-g', file, '-o', opt]);
    run('wasm-opt', ['-Oz', file, '-o', shipped]);
  }
  const br = brotliCompressSync(readFileSync(shipped), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  const rows = run('twiggy', ['top', '-n', '1000000', '--format', 'csv', opt]).trim().split('\n').slice(1).map((line) => {
    const m = /^("(?:[^"]|"")*"|[^,]*),(\d+),/.exec(line);
    return { name: readable(m[1].replace(/^"|"$/g, '').replaceAll('""', '"')), size: Number(m[2]) };
  }).filter((r) => !/names" subsection|^custom section/.test(r.name));
  const groups = new Map();
  for (const r of rows) {
    const k = kind(r.name);
    groups.set(k, (groups.get(k) ?? 0) + r.size);
  }
  const total = rows.reduce((t, r) => t + r.size, 0);
  const sorted = [...groups].sort((a, b) => b[1] - a[1]);
  const serde = sorted.filter(([k]) => k.startsWith('serde')).reduce((t, [, v]) => t + v, 0);
  console.log(`\n### ${label}: ${kib(total)} KiB of code and data (${kib(readFileSync(shipped).length)} KiB shipped, ${kib(br)} KiB brotli)\n`);
  console.log('| part | KiB | share |\n|---|---|---|');
  for (const [k, v] of sorted.slice(0, top)) console.log(`| ${k} | ${kib(v)} | ${(100 * v / total).toFixed(1)}% |`);
  const rest = sorted.slice(top).reduce((t, [, v]) => t + v, 0);
  if (rest) console.log(`| ${sorted.length - top} smaller parts | ${kib(rest)} | ${(100 * rest / total).toFixed(1)}% |`);
  console.log(`| (all serde (de)serialisers together) | ${kib(serde)} | ${(100 * serde / total).toFixed(1)}% |`);
}
