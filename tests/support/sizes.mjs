// What a built page loads before any click, and what each of the
// dashboard's on-demand pages fetches when first opened, read from dist/ as
// the browser would: the page's stylesheets, preloads, scripts and their
// static imports; the chunk loader's files for each page. Sizes: raw,
// gzip -9 and brotli 11 (what the Worker sends for wasm; see precompress.mjs).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

export function measure(file) {
  const buf = readFileSync(file);
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    br: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }).length,
  };
}

export const sum = (files) => files.reduce((t, f) => ({ raw: t.raw + f.raw, gzip: t.gzip + f.gzip, br: t.br + f.br }), { raw: 0, gzip: 0, br: 0 });

/** `href` of a page under `dist` (served at `base`) as a file path. */
function local(dist, base, href) {
  const url = new URL(href, `http://x${base}`);
  if (url.host !== 'x' || !url.pathname.startsWith(base)) throw new Error(`${href} is not a file of ${dist}`);
  return path.resolve(dist, decodeURIComponent(url.pathname.slice(base.length)));
}

/** The static imports of a JS module (not `import(…)` nor `new URL(…)` fetches). */
const staticImports = (text) => [...text.matchAll(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w*{}\s,$]*?\sfrom\s*)?["']([^"']+)["']/g)].map((m) => m[1]);

/**
 * The files `dist/index.html` (served at `base`) loads before any click:
 * itself, its stylesheets, preloads, scripts and the JS they import, with
 * their sizes. Its icon is not counted (a few hundred bytes, not html, js,
 * wasm or css).
 */
export function firstLoad(dist, base = '/') {
  const htmlFile = path.resolve(dist, 'index.html');
  const html = readFileSync(htmlFile, 'utf8');
  const files = new Set([htmlFile]);
  const js = [];
  for (const [tag] of html.matchAll(/<(?:link|script)\b[^>]*>/g)) {
    const rel = /\brel="([^"]+)"/.exec(tag)?.[1];
    const href = /\b(?:href|src)="([^"]+)"/.exec(tag)?.[1];
    if (!href || (tag.startsWith('<link') && !['stylesheet', 'modulepreload', 'preload'].includes(rel))) continue;
    const file = local(dist, base, href);
    files.add(file);
    if (file.endsWith('.js')) js.push(file);
  }
  // The inline init script: its import and the wasm it instantiates.
  for (const [, body] of html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
    for (const href of [...staticImports(body), ...[...body.matchAll(/module_or_path:\s*'([^']+)'/g)].map((m) => m[1])]) {
      const file = local(dist, base, href);
      files.add(file);
      if (file.endsWith('.js')) js.push(file);
    }
  }
  while (js.length) {
    const file = js.pop();
    for (const spec of staticImports(readFileSync(file, 'utf8'))) {
      const dep = path.resolve(path.dirname(file), spec);
      if (!files.has(dep)) {
        files.add(dep);
        js.push(dep);
      }
    }
  }
  return [...files].map((file) => ({ file: path.relative(path.resolve(dist), file), ...measure(file) }));
}

/**
 * The dashboard's chunks (every wasm in `dist` its first load does not
 * fetch, packs aside) and, per split of the chunk loader (`batches`,
 * `webhooks`, …), the files opening such a page fetches: its own chunk and
 * the ones it shares; and the split's pack, which holds those files and is
 * fetched instead when the page is the first on-demand one a visit opens.
 */
export function chunks(dist) {
  const first = new Set(firstLoad(dist).map((f) => f.file));
  const loaderName = [...first].find((f) => f.endsWith('_split.js'));
  if (!loaderName) throw new Error(`no chunk loader in ${dist}'s first load`);
  const loader = readFileSync(path.join(dist, loaderName), 'utf8');
  // `C("name")`: scripts/app-wasm.mjs's fetch of `name.wasm`.
  const fetched = (text) => [...text.matchAll(/\bC\("([\w-]+)"\)/g)].map((m) => `${m[1]}.wasm`);
  const shared = Object.fromEntries([...loader.matchAll(/const (__chunk_\d+) = makeLoad\(([\s\S]*?)\n, \[\]\);/g)].map((m) => [m[1], fetched(m[2])]));
  const splits = {};
  // A split's pack (scripts/app-packs.mjs), fetched instead of its files
  // when it is the first page a visit opens.
  const packs = {};
  for (const [, name, pack, body, deps] of loader.matchAll(/export const __wasm_split_load_(\w+) = wrapAsyncCb\((?:P\("([\w-]+)", \[[^\]]*\], )?makeLoad\(([\s\S]*?)\n, \[([^\]]*)\]\)\)?\);/g)) {
    splits[name] = [...fetched(body), ...deps.split(',').map((d) => d.trim()).filter(Boolean).flatMap((d) => shared[d] ?? [])];
    if (pack) packs[name] = `${pack}.wasm`;
  }
  const files = readdirSync(dist).filter((f) => f.endsWith('.wasm') && !first.has(f) && !f.startsWith('pack_')).sort()
    .map((file) => ({ file, ...measure(path.join(dist, file)) }));
  const named = new Set([...Object.values(splits).flat(), ...Object.values(packs)]);
  const stray = readdirSync(dist).filter((f) => f.endsWith('.wasm') && !first.has(f) && !named.has(f));
  if (stray.length) throw new Error(`wasm in ${dist} that neither the first load nor a page fetches: ${stray.join(', ')}`);
  return { files, splits, packs };
}
